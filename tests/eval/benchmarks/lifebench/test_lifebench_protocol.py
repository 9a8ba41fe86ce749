"""The LifeBench protocol and judges: records ingested a day at a time, each question asked when the
memory holds nothing after its time; the rendering; the letter rule, abstention and the score_points
judge through the replay server (the real client over HTTP)."""

from __future__ import annotations

import pytest
from lifebench_data import small_user

from memsuite.eval.benchmarks.lifebench.documents import record_text
from memsuite.eval.benchmarks.lifebench.judges.abstention import abstains
from memsuite.eval.benchmarks.lifebench.judges.choice import judge_choice, named_letters
from memsuite.eval.benchmarks.lifebench.loader import load_user
from memsuite.eval.benchmarks.lifebench.protocol import LifebenchBenchmark
from memsuite.eval.registry import definition
from memsuite.memory_systems.registry import get_system


def test_rendering_per_record_type(tmp_path):
    user = load_user(small_user(tmp_path))
    sms, photo = user.records[0], user.records[1]
    assert record_text(sms) == (
        "SMS, 2025-01-05 09:00:00\ncontactName: Zhang Wei\nphoneNumber: +8613800000000\n"
        "message_type: Receive\nmessage_content: Dinner at the Riverside Cafe on Friday?"
    )
    assert record_text(sms, summaries=True).endswith(
        "\nsummary: summary of Dinner at the Riverside Cafe on Friday?"
    )
    assert "location: Riverside Cafe, No. 12 Pudong Avenue, Pudong, Shanghai, Shanghai" in record_text(photo)
    assert "faceRecognition" not in record_text(photo)  # an empty list is an empty field
    assert record_text(user.contacts[0]) == "Contact\nname: Zhang Wei\nrelation: Friend"


@pytest.mark.parametrize(
    ("answer", "named"),
    [
        ("B", ["B"]), ("(B)", ["B"]), ("**C**", ["C"]), ("B. Home", ["B"]), ("The answer is A.", ["A"]),
        ("Option D", ["D"]), ("A restaurant", []), ("", []), ("A) or maybe (B)", ["A", "B"]),
    ],
)  # fmt: skip
def test_letter_rule(answer, named):
    assert named_letters(answer, "ABCD") == named


def test_choice_verdicts_say_why_wrong():
    assert judge_choice("B", "B", "ABCD")["correct"] is True
    none = judge_choice("the cafe", "A", "ABCD")
    assert none["correct"] is False and none["reason"] == "the answer names no option letter"
    two = judge_choice("(A) or (B)", "A", "ABCD")
    assert two["correct"] is False and two["reason"] == "the answer names 2 letters: A, B"


def test_abstention():
    assert abstains("Unable to answer") and abstains("I don't know.")
    assert abstains("It was at the Riverside Cafe.") is None


def test_questions_never_see_the_future_and_every_judge_applies(tmp_path, replay_llm):
    folder = small_user(tmp_path)

    def reply(messages):
        text = messages[-1]["content"]
        if text.startswith("Grade a model's answer"):
            return {"earned": [5]}
        if "Reply with its letter only" in text:
            return "A"
        return "Unable to answer" if "passport" in text else "The Riverside Cafe"

    llm = replay_llm({"other": [reply] * 10})
    benchmark = LifebenchBenchmark(str(folder))
    judges = ("choice", "abstention", "llm")
    ctx = definition("lifebench").context(k=2, answer_llm=llm, judges=judges)
    rows = {r.question_id: r for r in benchmark.run_unit(get_system("bm25"), "annuser", ctx)}
    assert set(rows) == {"q000", "q001", "q002", "q003"}
    # Asked at the end of 2025-02: the contact and the records up to 2025-02-10, never the 2025-03-01 sms.
    for row in rows.values():
        assert row.metadata["corpus_size"] == 4 and "sms:2" not in row.metadata["ranking"]
    first = rows["q000"]
    assert first.metadata["ranking"][0] == "sms:0" and len(first.metadata["ranking"]) == 4
    assert first.verdicts["retrieval"]["metrics"]["recall_any@1"] == 1.0
    assert first.verdicts["retrieval_day"]["granularity"] == "day"
    assert first.verdicts["llm"]["score"] == 1.0 and first.verdicts["choice"]["correct"] is None
    assert rows["q001"].verdicts["choice"]["correct"] is True
    assert rows["q002"].verdicts["abstention"]["correct"] is True
    parcel = rows["q003"]
    assert parcel.metadata["future"] == ["sms:2"] and parcel.verdicts["retrieval"]["correct"] is None
    assert len(parcel.metadata["dangling"]) == 4
    assert "Today is 2025-02-28." in llm.calls[0].messages[0]["content"]
    scores = benchmark.summarize(list(rows.values()))
    assert scores.judge("choice").values["overall"]["majority_baseline"] == 1.0
    assert scores.judge("llm").values["overall"]["score"] == 1.0
    assert scores.at("evidence", "dangling") == 4 and scores.at("evidence", "future") == 1


@pytest.mark.shared_data("lifebench")
def test_dev_user_retrieval_rows(shared_data):
    benchmark = LifebenchBenchmark(str(shared_data / "lifebench"), users=["lumingqiang"], max_questions=20)
    ctx = definition("lifebench").context(k=10, judges=())
    rows = list(benchmark.run_unit(get_system("bm25"), "lumingqiang", ctx))
    assert len(rows) == 20
    for row in rows:
        assert row.metadata["question_type"] and row.metadata["ask_time"]
        assert len(row.metadata["ranking"]) <= row.metadata["corpus_size"]
        assert set(row.metadata["relevant"]) <= set(row.metadata["ranking"])
