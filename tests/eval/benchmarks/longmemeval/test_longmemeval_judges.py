"""LongMemEval's LLM judge through a replay endpoint: each question type's prompt carries its rule."""

import pytest

from memsuite.eval.benchmarks.longmemeval.judges.llm import JUDGE_MAX_TOKENS, judge_llm
from memsuite.eval.benchmarks.longmemeval.schema import LmeQuestion
from memsuite.memory_systems.llm import LLMFailure


def q(qtype, answer="3 days", qid="q1"):
    return LmeQuestion(qid, qtype, "How long did it take?", answer, "2024/01/02 (Tue) 10:00", (), ())


@pytest.mark.parametrize(
    ("question", "rule", "absent"),
    [
        (q("temporal-reasoning"), "off-by-one", None),
        (q("knowledge-update"), "earlier information beside the updated answer", "off-by-one"),
        (q("multi-session"), "only part of the information", "off-by-one"),
        (q("single-session-preference", "The user wants sourdough tips."), "Rubric:", "off-by-one"),
        (q("multi-session", "You never mentioned it.", "q2_abs"), "cannot be answered", "off-by-one"),
    ],
)
def test_each_type_sends_its_rule_and_reads_yes(replay_llm, question, rule, absent):
    llm = replay_llm({"other": ["Yes.", "no"]})
    assert judge_llm(llm, question, "It took 4 days.")["correct"] is True
    assert judge_llm(llm, question, "It took 9 days.")["correct"] is False
    call = llm.calls[0]
    prompt = call.messages[0]["content"]
    assert rule in prompt and "It took 4 days." in prompt and question.answer in prompt
    assert absent is None or absent not in prompt
    assert call.body.get("temperature") == 0.0 and call.body.get("max_tokens") == JUDGE_MAX_TOKENS


def test_a_failed_judge_call_is_undecided(replay_llm):
    llm = replay_llm({"other": [LLMFailure("http_error", "boom", status_code=500)]})
    verdict = judge_llm(llm, q("multi-session"), "3 days")
    assert verdict["correct"] is None and verdict["failure"] == "http_error"
