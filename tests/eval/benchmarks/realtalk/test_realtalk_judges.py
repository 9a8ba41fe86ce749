"""REALTALK's answer judges (the release's lexical score and LLM score, LoCoMo's rule judge) through
the protocol and the replay server (the real client over HTTP), and the summary's counts."""

from __future__ import annotations

import pytest
from realtalk_data import message, qa, write_chat

from memsuite.eval.answer_rules import overlap
from memsuite.eval.benchmarks.realtalk.judges.llm import parse_score
from memsuite.eval.benchmarks.realtalk.judges.official import lexical_score
from memsuite.eval.benchmarks.realtalk.protocol import RealtalkBenchmark
from memsuite.eval.registry import definition
from memsuite.memory_systems.llm import LLMFailure
from memsuite.memory_systems.registry import get_system


@pytest.fixture
def no_stemming(monkeypatch):
    monkeypatch.setattr(overlap, "_stem", lambda word: word)  # stemming: test_locomo_official.py


def test_lexical_score_per_category(no_stemming):
    assert lexical_score(1, "hiking, pottery", "pottery, hiking, chess") == pytest.approx(2 / 3)
    assert lexical_score(2, "on 3 May", "3 May") == pytest.approx(0.8)
    assert lexical_score(3, "yes", "Yes; she likes it") == 1.0  # gold cut at its first ';'
    assert lexical_score(4, "x", "x") is None


def test_score_parsing():
    assert parse_score({"score": 1}) == 1.0 and parse_score({"score": "0.5"}) == 0.5
    for bad in ({"score": 2}, {"score": True}, {"score": "high"}, {"grade": 1}, None):
        assert parse_score(bad) is None


def test_answers_judged_by_every_judge_and_summarised(tmp_path, replay_llm, no_stemming):
    sessions = {1: [message("D1:1", "I adopted a grey cat named Miso"), message("D1:2", "nice weather")]}
    questions = [
        qa("What is the name of Ann's cat?", ["D1:1"], answer="Miso"),
        qa("How is the weather?", ["D1:2"], answer="Sunny; warm too", category=3),
        qa("Anything dangling?", ["D7:7"], answer="Miso", category=2),
    ]
    path = write_chat(tmp_path, sessions, questions)

    def reply(messages):
        text = messages[-1]["content"]
        if text.startswith("Grade a model's answer"):
            return {"grade": 1} if "weather" in text else {"score": 0.8}
        return LLMFailure("http_error", "down", status_code=503) if "dangling" in text else "Miso"

    llm = replay_llm({"other": [reply] * 5})
    benchmark = RealtalkBenchmark(path)
    ctx = definition("realtalk").context(k=1, answer_llm=llm, judges=("f1", "llm", "rule"))
    rows = list(benchmark.run_unit(get_system("bm25"), "Chat_1_Ann_Bob", ctx))
    first, second, third = rows
    assert first.answer == "Miso" and first.verdicts["f1"]["score"] == 1.0
    assert first.verdicts["llm"] == {**first.verdicts["llm"], "score": 0.8, "correct": True}
    assert first.verdicts["rule"]["correct"] is True
    assert "Question: What is the name of Ann's cat?" in llm.calls[0].messages[0]["content"]
    assert second.verdicts["f1"]["score"] == 0.0 and second.verdicts["llm"]["failure"] == "unparseable_score"
    assert third.answer is None and third.verdicts["f1"]["failure"] == "http_error"
    assert third.verdicts["retrieval"]["undefined"] == "cites no id the chat holds"
    summary = benchmark.summarize(rows).to_json()  # as summary.json holds it
    assert summary["f1"]["overall"] == {**summary["f1"]["overall"], "n": 2, "n_failed": 1, "score": 0.5}
    assert (summary["llm"]["overall"]["n"], summary["llm"]["overall"]["n_failed"]) == (1, 2)
    assert summary["rule"]["by_category"]["multi-hop"]["coverage"] == 1.0
    retrieval = summary["retrieval"]["overall"]
    assert (retrieval["n"], retrieval["n_unscored"], retrieval["n_undefined"]) == (2, 1, 0)
    assert summary["evidence"]["chats"]["Chat_1_Ann_Bob"]["dangling_ids"] == [
        {"question": "q002", "id": "D7:7"}
    ]
    assert (summary["evidence"]["dangling"], summary["evidence"]["unscored"]) == (1, 1)


def test_rejudge_reads_every_question_with_the_protocols_ids(tmp_path):
    from memsuite.eval.benchmarks.realtalk.rejudge import realtalk_questions

    sessions = {1: [message("D1:1", "I adopted a grey cat named Miso")]}
    write_chat(tmp_path, sessions, [qa("Cat?", ["D1:1"], answer="Miso"), qa("Dog?", ["D4:4"], category=2)])
    questions = realtalk_questions(tmp_path)
    assert [(q.unit_id, q.question_id, q.category, q.gold) for q in questions] == [
        ("Chat_1_Ann_Bob", "q000", "multi-hop", "Miso"),
        ("Chat_1_Ann_Bob", "q001", "temporal", "an answer"),
    ]
    assert questions[1].metadata["dangling"] == ["D4:4"]
