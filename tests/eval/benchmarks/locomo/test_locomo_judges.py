"""The mem0 LLM judge and the answer step through the replay server (the real client over HTTP)."""

from __future__ import annotations

from types import SimpleNamespace

from memsuite.eval.answer_rules import overlap
from memsuite.eval.benchmarks.locomo.judges import LocomoCase
from memsuite.eval.benchmarks.locomo.judges.llm import (
    NOT_MENTIONED,
    answer_prompt,
    judge_llm,
    parse_label,
    resolve_choice,
)
from memsuite.eval.benchmarks.locomo.protocol import ask
from memsuite.eval.benchmarks.locomo.schema import Question
from memsuite.eval.registry import definition
from memsuite.eval.retrieval_qa.adversarial import choice_options
from memsuite.eval.retrieval_qa.step import Context
from memsuite.memory_systems.llm import LLMFailure
from memsuite.memory_systems.tokens import count_tokens

Q = Question(0, "When did Caroline go to the support group?", 2, "7 May 2023", None, ("D1:3",))
CASE = LocomoCase(Q, ("D1:3", "D1:4"), True, True)


def answer_question(ctx, case, context, *, sample_id):
    """LoCoMo's answer step on one question: (the row's answer, its verdicts, its usage)."""
    row = ask(
        ctx,
        SimpleNamespace(name="bm25"),
        case,
        Context(context, False, (), 0.0, count_tokens(context)),
        sample_id=sample_id,
        metadata={},
    )
    return row.answer, row.verdicts, row.usage


def test_judge_reads_the_label_and_sends_the_case(replay_llm):
    llm = replay_llm({"other": [{"label": "CORRECT"}, {"label": "WRONG"}]})
    right = judge_llm(llm, Q.question, "7 May 2023", "May 7th, 2023")
    wrong = judge_llm(llm, Q.question, "7 May 2023", "June 2023")
    assert right["correct"] is True and wrong["correct"] is False
    prompt = llm.calls[0].messages[0]["content"]
    assert "Gold answer: 7 May 2023" in prompt and "Generated answer: May 7th, 2023" in prompt
    assert llm.calls[0].body.get("temperature") == 0.0


def test_a_failed_or_unreadable_judge_call_is_never_a_wrong_answer(replay_llm):
    script = [LLMFailure("http_error", "boom", status_code=500), "maybe?", {"label": "UNSURE"}]
    llm = replay_llm({"other": script})
    failed = judge_llm(llm, Q.question, "7 May 2023", "May 7")
    not_json = judge_llm(llm, Q.question, "7 May 2023", "May 7")
    no_label = judge_llm(llm, Q.question, "7 May 2023", "May 7")
    assert failed["correct"] is None and failed["failure"] == "http_error"
    assert not_json["correct"] is None and not_json["failure"] == "invalid_json"
    assert no_label["correct"] is None and no_label["failure"] == "unparseable_label"


def test_label_parsing():
    assert parse_label({"label": "correct"}, "") is True
    assert parse_label(None, "The answer names the same day. CORRECT") is True
    assert parse_label(None, "INCORRECT date, so WRONG") is False
    assert parse_label(None, "CORRECT or WRONG") is None


def test_answer_and_judge_in_one_step(replay_llm, monkeypatch):
    monkeypatch.setattr(overlap, "_stem", lambda word: word)  # stemming: test_locomo_official.py

    def reply(messages):
        text = messages[-1]["content"]
        return {"label": "CORRECT"} if text.startswith("Label an answer") else "7 May 2023"

    llm = replay_llm({"other": [reply, reply]})
    ctx = definition("locomo").context(k=5, answer_llm=llm, judges=("evidence", "f1", "llm"))
    answer, verdicts, usage = answer_question(ctx, CASE, "context", sample_id="conv-x")
    assert answer == "7 May 2023"
    assert verdicts["f1"]["score"] == 1.0 and verdicts["llm"]["correct"] is True
    assert verdicts["evidence"]["recall"] == 1.0  # the LLM-free verdict, always given
    assert "DATE" in llm.calls[0].messages[0]["content"]  # the temporal hint of category 2
    assert llm.calls[0].body.get("max_tokens") == 32
    assert usage["answer_prompt_tokens"] > 0


def test_a_failed_answer_call_fails_every_answer_verdict(replay_llm):
    llm = replay_llm({"other": [LLMFailure("http_error", "down", status_code=503)]})
    ctx = definition("locomo").context(k=5, answer_llm=llm, judges=("f1", "llm"))
    answer, verdicts, usage = answer_question(ctx, CASE, "context", sample_id="conv-x")
    assert answer is None and "answer_failure" in usage and usage["answer_calls"] == 1
    for name in ("f1", "llm"):
        verdict = verdicts[name]
        assert verdict["correct"] is None and verdict["failure"] == "http_error"
        assert verdict["failed_call"] == "answer"
    assert verdicts["evidence"]["correct"] is True  # retrieval is judged whatever the answer call did
    assert len(llm.calls) == 1  # no judge call for an answer that does not exist


def test_category_5_choice_prompt_letters_map_back_to_text():
    q = Question(3, "What dog did Ann adopt?", 5, None, "a pug", ())
    options = choice_options("a pug", ["a beagle", "Paris", "a beagle"], seed=0, sample_id="conv-x", index=3)
    assert sorted(options) == sorted(["a pug", "a beagle", "Paris", NOT_MENTIONED])  # repeats drawn once
    prompt = answer_prompt(q, "ctx", options=options)
    assert all(f"({letter})" in prompt for letter in "abcd") and "letter" in prompt
    assert answer_prompt(q, "ctx") == answer_prompt(Question(3, q.question, 4, "x", None, ()), "ctx")  # open
    letter = "abcd"[options.index(NOT_MENTIONED)]
    for reply in (letter, f"({letter})", f"{letter.upper()}.", f"({letter}) {NOT_MENTIONED}", NOT_MENTIONED):
        assert resolve_choice(reply, options) == NOT_MENTIONED, reply
    assert resolve_choice("a pug, I think", options) == "a pug, I think"  # names no option: kept
    assert resolve_choice("(e)", options) == "(e)"  # no such option


def test_category_5_through_the_shared_step_open_and_choice(replay_llm, monkeypatch):
    monkeypatch.setattr(overlap, "_stem", lambda word: word)
    adversarial = Question(3, "What dog did Ann adopt?", 5, None, "a pug", ())
    options = choice_options("a pug", ["a beagle", "Paris"], seed=0, sample_id="conv-x", index=3)
    letter = "abcd"[options.index(NOT_MENTIONED)]

    def judge(messages):
        text = messages[-1]["content"]
        assert "Tempting wrong answer: a pug" in text and "Gold answer" not in text  # the restated prompt
        return {"label": "WRONG"}

    script = ["7 May 2023", LLMFailure("timeout", "slow"), letter, "Ann adopted a pug.", judge]
    llm = replay_llm({"other": script})
    ctx = definition("locomo").context(k=5, answer_llm=llm, judges=("f1", "llm", "rule"))
    _, verdicts, usage = answer_question(ctx, CASE, "context", sample_id="conv-x")
    assert verdicts["f1"]["score"] == 1.0  # the answer stands; only the judge call failed
    assert verdicts["llm"]["correct"] is None and verdicts["llm"]["failed_call"] == "judge"
    assert verdicts["llm"]["failure"] == "timeout" and usage["judge_failures"] == 1
    choice = LocomoCase(adversarial, (), True, None, options=options)
    answer, verdicts, _ = answer_question(ctx, choice, "context", sample_id="conv-x")
    assert answer == NOT_MENTIONED  # the letter read as its option's text
    # Every answer judge scores the option chosen; the llm judge makes no call for it.
    assert verdicts["llm"]["correct"] is True and verdicts["llm"]["choice"] == letter
    assert verdicts["rule"]["correct"] is True and verdicts["f1"]["score"] == 1.0
    assert len(llm.calls) == 3
    open_case = LocomoCase(adversarial, (), True, None)
    answer, verdicts, _ = answer_question(ctx, open_case, "context", sample_id="conv-x")
    assert "Pick the correct answer" not in llm.calls[3].messages[0]["content"]  # asked as any question
    assert verdicts["llm"]["correct"] is False and verdicts["rule"]["correct"] is False
    assert "trap" in verdicts["rule"]["reason"]


def test_summaries_leave_failed_rows_out_and_count_them_per_cell():
    from memsuite.eval.benchmarks.locomo.scoring import locomo_scores
    from memsuite.eval.protocol import Row

    def row(i: int, category: int, llm: dict) -> Row:
        return Row(
            "bm25",
            "locomo",
            "conv-x",
            f"q{i}",
            "?",
            "gold",
            "ctx",
            verdicts={"llm": llm},
            metadata={"category": category, "k": 5},
        )

    rows = [
        row(0, 1, {"correct": True}),
        row(1, 1, {"correct": None, "failure": "timeout", "failed_call": "answer"}),
        row(2, 2, {"correct": False}),
        row(3, 5, {"correct": None, "skipped": "category 5"}),
    ]
    scores = locomo_scores(rows)["by_judge"]["llm"]
    single = scores["categories"]["multi-hop"]
    assert single == {"n": 1, "mean": 1.0, "n_failed": 1, "undefined": 0}
    assert scores["overall"]["n_failed"] == 1 and scores["overall"]["mean"] == 0.5
    assert scores["categories"]["adversarial"]["undefined"] == 1
