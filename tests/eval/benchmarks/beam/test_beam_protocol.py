"""The BEAM protocol: each granularity's documents and relevant ids, and bm25's figures on a real
conversation against beam_reference.py (bm25s called directly on the release files)."""

from __future__ import annotations

import beam_reference
import pytest
from beam_data import chat, question, write_conversation

from memsuite.eval.benchmarks.beam.protocol import BeamBenchmark
from memsuite.eval.registry import definition
from memsuite.memory_systems.registry import get_system


def _small(tmp_path):
    pairs = [(f"the port is {6640 + i}", f"noted port {6640 + i}") for i in range(6)]
    questions = {
        "information_extraction": [question("which port did the assistant note last?", [11])],
        "knowledge_update": [question("port?", {"original_info": [2], "updated_info": [[8]]})],
        "abstention": [question("my cat?", None, ideal_response="no information")],
    }
    return write_conversation(tmp_path / "100K" / "1", chat(pairs, per_batch=2), questions)


def _rows(tmp_path, granularity):
    benchmark = BeamBenchmark(_small(tmp_path), granularity=granularity)
    rows = list(benchmark.run_unit(get_system("bm25"), "100K/1", definition("beam").context(k=2, judges=())))
    return {r.question_id: r for r in rows}


def test_message_granularity(tmp_path):
    rows = _rows(tmp_path, "message")
    assert rows["information_extraction:0"].metadata["relevant"] == ["11"]
    assert rows["knowledge_update:0"].metadata["relevant"] == ["2", "8"]
    assert sorted(rows["knowledge_update:0"].metadata["ranking"], key=int) == [str(i) for i in range(12)]
    assert rows["abstention:0"].verdicts["retrieval"]["undefined"] == "no evidence ids (abstention)"


def test_turn_granularity_maps_an_assistant_message_to_its_user_message(tmp_path):
    rows = _rows(tmp_path, "turn")
    assert rows["information_extraction:0"].metadata["relevant"] == ["10"]
    assert rows["knowledge_update:0"].metadata["relevant"] == ["2", "8"]
    assert sorted(rows["knowledge_update:0"].metadata["ranking"], key=int) == [
        str(i) for i in range(0, 12, 2)
    ]


def test_batch_granularity(tmp_path):
    rows = _rows(tmp_path, "batch")
    assert rows["information_extraction:0"].metadata["relevant"] == ["batch-3"]
    assert rows["knowledge_update:0"].metadata["relevant"] == ["batch-1", "batch-3"]
    assert rows["knowledge_update:0"].verdicts["retrieval"]["metrics"]["evidence_recall@1"] == 0.5


@pytest.mark.shared_data("beam")
def test_bm25_equals_the_reference_on_a_real_conversation(shared_data):
    benchmark = BeamBenchmark(shared_data / "beam", chats=["100K/3"])
    rows = list(benchmark.run_unit(get_system("bm25"), "100K/3", definition("beam").context(k=10, judges=())))
    folder = shared_data / "beam" / "100K" / "3"
    ids, texts = beam_reference.messages(folder)
    questions = beam_reference.read_json(folder / "probing_questions" / "probing_questions.json")
    rankers = beam_reference.Rankers()
    for row in rows:
        scores = rankers.bm25("100K/3", texts, row.question)
        mismatches, same, _ = beam_reference.check_row(row.to_dict(), ids, scores, questions, 10)
        assert mismatches == [] and same, row.question_id


def _evidence_within(value, kept):
    """``source_chat_ids`` with only the ids in ``kept``, same shape."""
    if isinstance(value, dict):
        return {key: _evidence_within(item, kept) for key, item in value.items()}
    if isinstance(value, list):
        return [x for x in (_evidence_within(item, kept) for item in value) if x != []]
    return value if value in kept else []


@pytest.mark.shared_data("beam")
def test_dense_equals_the_reference_on_the_head_of_a_real_conversation(shared_data, tmp_path):
    # The first 16 messages of a real conversation (long assistant replies: ~70 windows of 200
    # tokens, so messages split into several windows), with its real questions whose evidence lies
    # there, evidence cut to those messages: a whole conversation would take minutes to encode twice.
    source = shared_data / "beam" / "100K" / "3"
    batches = beam_reference.read_json(source / "chat.json.gz")
    head, count = [], 0
    for turn in batches[0]["turns"]:
        if count >= 16:
            break
        head.append(turn)
        count += len(turn)
    kept = {m["id"] for turn in head for m in turn}
    questions = {}
    for ability, records in beam_reference.read_json(
        source / "probing_questions" / "probing_questions.json"
    ).items():
        record = dict(records[0], source_chat_ids=_evidence_within(records[0].get("source_chat_ids"), kept))
        if beam_reference.flatten(record["source_chat_ids"]) or ability == "abstention":
            questions[ability] = [record]
    assert len(questions) >= 5
    folder = write_conversation(tmp_path / "100K" / "3", [dict(batches[0], turns=head)], questions)
    rows = list(
        BeamBenchmark(folder).run_unit(
            get_system("dense"), "100K/3", definition("beam").context(k=10, judges=())
        )
    )
    ids, texts = beam_reference.messages(folder)
    rankers = beam_reference.Rankers()
    for row in rows:
        scores = rankers.dense("100K/3", texts, row.question)
        mismatches, same, _ = beam_reference.check_row(row.to_dict(), ids, scores, questions, 10)
        assert mismatches == [] and same, row.question_id
    assert rankers.windows > len(texts)  # some messages were split into windows
