"""The REALTALK protocol: documents and relevant ids at each granularity, the whole chat ranked (ties to
the earlier message), unscored questions, reference rows, options; and bm25's figures on a real chat
against realtalk_reference.py (the release file read with json, bm25s called directly)."""

from __future__ import annotations

from pathlib import Path

import pytest
import realtalk_reference
from realtalk_data import message, qa, write_chat

from memsuite.baselines.dense import DenseMemory
from memsuite.eval.benchmarks.realtalk.protocol import RealtalkBenchmark
from memsuite.eval.registry import definition
from memsuite.memory_systems.errors import ConfigError
from memsuite.memory_systems.registry import get_system

UNIT = "Chat_1_Ann_Bob"


def _small(tmp_path) -> Path:
    sessions = {
        1: [
            message("D1:1", "I adopted a grey cat named Miso", speaker="Ann"),
            message("D1:2", "the weather is nice", speaker="Bob"),
            message("D1:4", "the weather is nice", speaker="Ann"),  # D1:3 was removed in cleaning
        ],
        2: [
            message("D2:1", "Miso broke a vase today", speaker="Ann", when="30.12.2023, 08:00:00"),
            message("D1:5", "poor vase", speaker="Bob", when="30.12.2023, 08:01:00"),  # a D1 id in session 2
        ],
    }
    questions = [
        qa("What is the name of Ann's cat?", ["D1:1."], answer="Miso"),
        qa("What did the cat break?", ["D2:1; D1:3"], answer="a vase", category=2),
        qa("How is the weather?", ["D1:2-D1:4"], category=3),
        qa("Anything else?", ["D:56", "D9:9"]),
    ]
    return write_chat(tmp_path, sessions, questions)


def _rows(tmp_path, system="bm25", **options):
    benchmark = RealtalkBenchmark(_small(tmp_path), **options)
    rows = list(benchmark.run_unit(get_system(system), UNIT, definition("realtalk").context(k=2, judges=())))
    return benchmark, {r.question_id: r for r in rows}


def test_message_granularity_rows(tmp_path):
    _, rows = _rows(tmp_path)
    first = rows["q000"]
    assert first.metadata["ranking"][0] == "D1:1"
    assert sorted(first.metadata["ranking"]) == sorted(["D1:1", "D1:2", "D1:4", "D2:1", "D1:5"])
    assert (first.metadata["relevant"], first.metadata["dangling"], first.metadata["category"]) == (
        ["D1:1"],
        [],
        1,
    )
    assert first.verdicts["retrieval"]["metrics"]["recall_all@1"] == 1.0
    assert first.verdicts["retrieval"]["correct"] is True
    assert "Ann: I adopted a grey cat named Miso" in first.context  # under its speaker and time
    second = rows["q001"]
    assert (second.metadata["relevant"], second.metadata["dangling"]) == (["D2:1"], ["D1:3"])
    assert rows["q002"].metadata["relevant"] == ["D1:2", "D1:4"]
    unscored = rows["q003"]
    assert unscored.metadata["relevant"] == [] and unscored.metadata["dangling"] == ["D9:9"]
    assert unscored.verdicts["retrieval"] == {
        "judge": "retrieval",
        "granularity": "message",
        "k": 2,
        "correct": None,
        "undefined": "cites no id the chat holds",
    }


def test_equal_scores_rank_the_earlier_message_first(tmp_path, embedder):
    # D1:2 and D1:4 have the same text: the same bm25 score and the same vector.
    _, rows = _rows(tmp_path)
    ranking = rows["q002"].metadata["ranking"]
    assert ranking.index("D1:2") + 1 == ranking.index("D1:4")
    benchmark = RealtalkBenchmark(_small(tmp_path / "dense"))
    dense = DenseMemory(embedder=embedder, window_tokens=1024)
    found = {
        r.question_id: r
        for r in benchmark.run_unit(dense, UNIT, definition("realtalk").context(k=2, judges=()))
    }
    ranking = found["q002"].metadata["ranking"]
    assert ranking.index("D1:2") + 1 == ranking.index("D1:4")


def test_dense_encodes_each_question_once_with_the_others(tmp_path, embedder):
    # Each question is searched twice (ranking, context); announced up front, it is encoded once, in
    # one call with the chat's other questions.
    benchmark = RealtalkBenchmark(_small(tmp_path))
    dense = DenseMemory(embedder=embedder, window_tokens=1024)
    rows = list(benchmark.run_unit(dense, UNIT, definition("realtalk").context(k=2, judges=())))
    assert len(rows) == 4 and all(len(r.metadata["ranking"]) == 5 for r in rows)
    # One call for the messages (4 distinct texts), one for the 4 questions.
    assert (dense.usage().embedding_calls, dense.usage().embedded_texts) == (2, 8)


def test_session_granularity_maps_a_message_to_the_session_it_lies_in(tmp_path):
    _, rows = _rows(tmp_path, granularity="session")
    assert sorted(rows["q000"].metadata["ranking"]) == ["session_1", "session_2"]
    assert rows["q001"].metadata["relevant"] == ["session_2"]
    assert rows["q002"].metadata["relevant"] == ["session_1"]


def test_captions_are_an_option(tmp_path):
    sessions = {1: [message("D1:1", "look at this", blip_caption="a red kite over a beach")]}
    path = write_chat(tmp_path, sessions, [qa("What flew over the beach?", ["D1:1"])])
    for captions, shown in (
        (False, "look at this"),
        (True, "look at this\n[shares a red kite over a beach]"),
    ):
        benchmark = RealtalkBenchmark(path, captions=captions)
        system = get_system("bm25")
        list(benchmark.run_unit(system, UNIT, definition("realtalk").context(k=1, judges=())))
        assert [r.text for r in system.records(namespace=UNIT)] == [shown]


def test_reference_rows_have_no_ranking(tmp_path):
    _, rows = _rows(tmp_path, system="gold_evidence")
    row = rows["q001"]
    assert row.metadata["ranking"] == []
    assert (
        row.verdicts["retrieval"]["undefined"] == "a reference row (evidence documents given, not retrieved)"
    )
    assert "Miso broke a vase today" in row.context and "weather" not in row.context
    _, rows = _rows(tmp_path / "full", system="full_context")
    assert rows["q000"].context.index("grey cat") < rows["q000"].context.index("poor vase")


def test_options_are_checked(tmp_path):
    path = _small(tmp_path)
    for options, error in (
        ({"granularity": "turn"}, "granularity"),
        ({"captions": "yes"}, "captions"),
        ({"max_questions": 0}, "max_questions"),
        ({"categories": [4.5]}, "categories"),
        ({"chats": [2]}, "unknown chat 2"),
        ({"chats": 3}, "a count must be 1 to 1"),
    ):
        with pytest.raises(ConfigError, match=error):
            RealtalkBenchmark(path, **options)
    benchmark = RealtalkBenchmark(path, chats=[1], categories=[1], max_questions=1)
    assert benchmark.units() == [UNIT] and [q.index for q in benchmark.questions_of(UNIT)] == [0]
    assert RealtalkBenchmark(path, chats=["Chat_1_Ann_Bob"]).source["questions"] == 4
    # No answer call, so no answer verdict (a config asking for one is refused when it is read).
    (row,) = benchmark.run_unit(get_system("bm25"), UNIT, definition("realtalk").context(k=1, judges=("f1",)))
    assert "f1" not in row.verdicts and "retrieval" in row.verdicts
    ctx = definition("realtalk").context(k=1, judges=("exact_match",))
    with pytest.raises(ConfigError, match="unknown realtalk judge 'exact_match'"):
        next(benchmark.run_unit(get_system("bm25"), UNIT, ctx))


@pytest.mark.shared_data("realtalk")
def test_bm25_on_a_real_chat_matches_the_reference(shared_data):
    folder = shared_data / "realtalk"
    reference = realtalk_reference
    benchmark = RealtalkBenchmark(folder, chats=[4])
    unit = benchmark.units()[0]
    rows = list(benchmark.run_unit(get_system("bm25"), unit, definition("realtalk").context(k=10, judges=())))
    ids, texts, qa_items = reference.read_chat(folder / f"{unit}.json")
    rankers = reference.Rankers()
    for row in rows:
        relevant, dangling = reference.cited(qa_items[int(row.question_id[1:])]["evidence"], set(ids))
        assert (row.metadata["relevant"], row.metadata["dangling"]) == (relevant, dangling)
        scores = rankers.bm25(unit, texts, row.question)
        ranked = [ids[i] for i in sorted(range(len(ids)), key=lambda i: -scores[i])]
        assert row.metadata["ranking"] == ranked
        metrics = row.verdicts["retrieval"]["metrics"]
        for depth in reference.KS:
            for name, value in reference.metrics(ranked, set(relevant), depth).items():
                assert round(metrics[f"{name}@{depth}"], 4) == round(value, 4)
