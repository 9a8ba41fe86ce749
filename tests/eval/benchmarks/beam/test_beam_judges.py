"""BEAM's judges: the rule judge on phrasings of our own (where it must say yes, no, and undecided), the
rubric judge's prompts and scoring replayed through a scripted client, event ordering's tau times F1."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from memsuite.eval.benchmarks.beam.judges.llm import judge_llm, kendall_tau_b, ordering_score
from memsuite.eval.benchmarks.beam.judges.rule import judge_rule, names, parse_item, versions
from memsuite.eval.benchmarks.beam.schema import BeamQuestion


def q(ability: str, rubric: list[str], text: str = "What is it?", **record: Any) -> BeamQuestion:
    return BeamQuestion("100K/1", ability, 0, {"question": text, "rubric": rubric, **record})


def items(verdict: dict) -> list:
    return [i["passed"] for i in verdict["items"]]


def test_item_parsing_versions_and_names():
    assert parse_item("LLM response should state: 250ms") == ("state", "250ms")
    assert parse_item("Core functionality") == ("state", "Core functionality")
    assert versions("Flask-Login v0.6.2 and Python 3.11") == {"0.6.2", "3.11"}
    assert {"flask-login", "werkzeug.security"} <= names("We use Flask-Login with Werkzeug.security here.")


def test_a_stated_value_passes_and_a_different_number_fails():
    ku = q("knowledge_update", ["LLM response should state: 250ms"])
    assert judge_rule(ku, "It now averages about 250 ms after the caching tweaks.")["correct"] is True
    assert judge_rule(ku, "Roughly 300ms on average.")["correct"] is False
    count = q("multi_session_reasoning", ["LLM response should state: 165 commits"])
    assert judge_rule(count, "165 commits have been merged into main.")["correct"] is True
    three = q("multi_session_reasoning", ["LLM response should state: Three"])
    assert judge_rule(three, "3: hashing, roles and lockout.")["correct"] is True
    assert judge_rule(count, "150 commits were merged into main.")["correct"] is False


def test_dates_in_any_format_and_a_wrong_date():
    tr = q("temporal_reasoning", ["LLM response should state: from March 29 till April 19"])
    assert judge_rule(tr, "From 29 March till 19 April: 21 days.")["correct"] is True
    assert judge_rule(tr, "From March 29 till April 12.")["correct"] is False


def test_a_missing_version_or_name_fails():
    ce = q("contradiction_resolution", ["LLM response should mention: Flask-Login v0.6.2 was integrated"])
    assert judge_rule(ce, "You said Flask-Login v0.6.2 was integrated for sessions.")["correct"] is True
    assert judge_rule(ce, "You said Flask-Login v0.6.3 was integrated.")["correct"] is False
    assert judge_rule(ce, "You said a login library v0.6.2 was integrated.")["correct"] is False


def test_a_contradiction_item_passes_when_the_answer_points_it_out():
    cr = q("contradiction_resolution", ["LLM response should state: there is contradictory information"])
    assert judge_rule(cr, "Your statements conflict: which one is correct?")["correct"] is True
    assert judge_rule(cr, "Yes, you wrote Flask routes.")["correct"] is False


def test_a_paraphrase_holding_most_words_is_undecided_with_coverage():
    ie = q(
        "information_extraction",
        [
            "LLM response should state: backend tasks scheduled in the first week",
            "LLM response should state: 21",
        ],
    )
    verdict = judge_rule(ie, "Backend tasks came in week one; 21 in all.")
    assert items(verdict) == [None, True]
    assert verdict["correct"] is None and verdict["coverage"] == 0.5 and verdict["score"] == 1.0


def test_abstention_passes_on_a_refusal_that_invents_nothing():
    ab = q(
        "abstention",
        ["Based on the provided chat, there is no information related to your background"],
        text="Can you tell me about my background?",
    )
    assert judge_rule(ab, "There is no information about your background in our chats.")["correct"] is True
    assert judge_rule(ab, "You worked at Acme for 5 years.")["correct"] is False
    invented = judge_rule(ab, "I don't know, though you mentioned working 5 years somewhere.")
    assert invented["correct"] is False and "states the number 5" in invented["items"][0]["reason"]


def test_a_refusal_on_an_answerable_question_fails():
    ie = q(
        "information_extraction",
        ["LLM response should state: March 29"],
        text="When does my first sprint end?",
    )
    verdict = judge_rule(ie, "I don't know; that was not mentioned.")
    assert verdict["correct"] is False and "declines" in verdict["reason"]


def test_code_block_rule():
    inf = q("instruction_following", ["LLM response should contain: code blocks with syntax highlighting"])
    assert judge_rule(inf, "Here:\n```python\nprint('hi')\n```")["correct"] is True
    assert judge_rule(inf, "Here:\n```\nprint('hi')\n```")["correct"] is False  # no language: no highlighting
    assert judge_rule(inf, "Call print('hi') in your view.")["correct"] is False


def test_version_rule():
    inf = q(
        "instruction_following", ["LLM response should contain: explicit version details for each dependency"]
    )
    assert judge_rule(inf, "- Flask 2.3.2\n- SQLAlchemy 2.0.19\n- Flask-Login 0.6.2")["correct"] is True
    assert judge_rule(inf, "- Flask 2.3.2\n- SQLAlchemy\n- Flask-Login 0.6.2")["correct"] is False
    assert judge_rule(inf, "We use Flask and SQLAlchemy.")["correct"] is False
    assert judge_rule(inf, "Flask 2.3.2 with SQLAlchemy 2.0.19.")["correct"] is None  # no list to check


def test_preference_items_without_a_rule_are_undecided():
    pf = q("preference_following", ["LLM response should contain: suggests lightweight libraries"])
    verdict = judge_rule(pf, "Use Flask-Login and plain sqlite3.")
    assert verdict["correct"] is None and verdict["coverage"] == 0.0
    assert "no documented rule" in verdict["items"][0]["reason"]


def test_kendall_tau_b_matches_known_values():
    assert kendall_tau_b([1, 2, 3], [1, 2, 3]) == pytest.approx(1.0)
    assert kendall_tau_b([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    # Worked by hand: one discordant pair of six; with ties, 4 concordant, one tie each: 4 / sqrt(5 * 5).
    assert kendall_tau_b([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(2 / 3)
    assert kendall_tau_b([1, 2, 2, 3], [1, 2, 3, 3]) == pytest.approx(0.8)
    assert kendall_tau_b([1], [1]) is None


def test_ordering_score_of_a_right_order_a_swap_and_an_extra_line():
    ref = ["a", "b", "c"]
    assert ordering_score(ref, ["a", "b", "c"])["score"] == pytest.approx(1.0)
    swapped = ordering_score(ref, ["a", "c", "b"])
    assert swapped["f1"] == 1.0 and swapped["score"] == pytest.approx((1 / 3 + 1) / 2)
    extra = ordering_score(ref, ["a", "b", "c", "x"])
    assert extra["precision"] == 0.75 and extra["score"] < 1.0


@dataclass
class _Result:
    text: str | None
    data: Any = None
    failure: Any = None
    prompt_tokens: int = 0


class _Failure:
    kind = "timeout"
    message = "took too long"


class ScriptedJudge:
    """Answers each rubric prompt with a score picked from the item's text; records every prompt."""

    def __init__(
        self, scores: dict[str, float], equivalent: set[tuple[str, str]] = frozenset(), fail: bool = False
    ):
        self.scores, self.equivalent, self.fail = scores, equivalent, fail
        self.prompts: list[str] = []

    def chat_json(self, messages, **kwargs):
        prompt = messages[0]["content"]
        self.prompts.append(prompt)
        if self.fail:
            return _Result(None, failure=_Failure())
        item = prompt.split("Rubric criterion: ", 1)[1].split("\n", 1)[0]
        return _Result("{}", data={"score": self.scores[item], "reason": "scripted"})

    def chat(self, messages, **kwargs):
        prompt = messages[0]["content"]
        self.prompts.append(prompt)
        first = prompt.split("First snippet: ", 1)[1].split("\n", 1)[0]
        second = prompt.split("Second snippet: ", 1)[1]
        return _Result("YES" if (first, second) in self.equivalent else "NO")


RULES = (
    "positive requirement",
    "negative constraint",
    "off-topic or evasive, the score is 0.0",
    "accept paraphrases and synonyms",
    "compare the values",
    "Style does not count",
    "all parts present is full compliance, some",
    '{"score": <1.0, 0.5 or 0.0>',
)


@pytest.mark.parametrize(
    "ability",
    [
        "abstention",
        "contradiction_resolution",
        "information_extraction",
        "instruction_following",
        "knowledge_update",
        "multi_session_reasoning",
        "preference_following",
        "summarization",
        "temporal_reasoning",
    ],
)
def test_every_ability_asks_each_rubric_item_with_every_rule_and_averages(ability):
    question = q(ability, ["LLM response should state: A", "LLM response should state: B"], text="Which one?")
    judge = ScriptedJudge({"LLM response should state: A": 1.0, "LLM response should state: B": 0.5})
    verdict = judge_llm(judge, question, "my answer")
    assert len(judge.prompts) == 2
    for prompt in judge.prompts:
        assert "Question the user asked: Which one?" in prompt and "Response to grade: my answer" in prompt
        for rule in RULES:
            assert rule in prompt, (ability, rule)
    assert verdict["score"] == 0.75 and verdict["score_int"] == 0.5 and verdict["correct"] is False


def test_a_failed_judge_call_is_no_verdict_not_a_wrong_answer():
    verdict = judge_llm(ScriptedJudge({}, fail=True), q("knowledge_update", ["x"]), "answer")
    assert verdict["correct"] is None and verdict["failure"] == "timeout"


def test_event_ordering_aligns_lines_then_scores_tau_times_f1():
    rubric = ["Setup", "Transactions", "Security"]
    question = q("event_ordering", rubric)
    answer = "1) security hardening\n2) initial setup\n\n3) transaction handling"
    pairs = {("Setup", "2) initial setup"), ("Transactions", "3) transaction handling")}
    pairs |= {("Security", "1) security hardening")}
    judge = ScriptedJudge({r: 1.0 for r in rubric}, equivalent=pairs)
    verdict = judge_llm(judge, question, answer)
    ordering = verdict["ordering"]
    assert ordering["recall"] == 1.0 and ordering["precision"] == 0.75  # the blank line counts, as split
    assert verdict["score"] == pytest.approx(ordering["tau_norm"] * ordering["f1"])
    assert verdict["score"] < 1.0 and verdict["rubric_score"] == 1.0
    assert any(p.startswith("Answer YES if the two snippets") for p in judge.prompts)
