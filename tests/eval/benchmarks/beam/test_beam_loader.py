"""The BEAM loader on the real dev data and on malformed copies: every file checked before any work,
refusals naming the file, the place and the field; the 10M plan-part layout streamed."""

from __future__ import annotations

import gzip
import json
import shutil
import tracemalloc

import pytest
from beam_data import chat, question, write_conversation

from memsuite.eval.benchmarks.beam.loader import BeamData
from memsuite.eval.benchmarks.beam.schema import ABILITIES, evidence_ids
from memsuite.memory_systems.errors import ConfigError, DatasetError


@pytest.fixture(scope="module")
def dev(shared_data):
    return BeamData(shared_data / "beam")


@pytest.mark.shared_data("beam")
def test_the_whole_dev_set_loads_and_checks(dev):
    assert len(dev.ids) == 52
    assert dev.ids[:2] == ["100K/1", "100K/2"] and dev.ids[-1] == "1M/31"
    scales = [c.scale for c in dev.conversations.values()]
    assert (scales.count("100K"), scales.count("500K"), scales.count("1M")) == (16, 28, 8)
    assert sum(len(c.questions) for c in dev.conversations.values()) == 1040
    first = dev.conversations["100K/1"]
    assert first.message_count == 188
    messages = list(first.messages())
    assert [m.id for m in messages] == [str(i) for i in range(188)]
    assert messages[0].time_anchor == "March-15-2024" and messages[1].time_anchor == "March-15-2024"
    assert messages[0].content.endswith("->-> 1,1")  # the release's index marker, kept as released


def test_evidence_flattens_lists_nested_lists_and_dicts():
    assert evidence_ids([4, [60, 61], 116]) == ("4", "60", "61", "116")
    assert evidence_ids({"first_statement": [58], "second_statement": [24, 58]}) == ("58", "24")
    assert evidence_ids(None) == ()


@pytest.mark.shared_data("beam")
def test_selection_options(shared_data):
    picked = BeamData(shared_data / "beam", chats=["500K/3", "128K/2"], abilities=["knowledge_update"])
    assert picked.ids == ["500K/3", "100K/2"]
    assert {q.ability for c in picked.conversations.values() for q in c.questions} == {"knowledge_update"}
    one = BeamData(shared_data / "beam", scales=["1M"], per_ability=1)
    assert len(one.ids) == 8
    assert all(len(c.questions) == len(ABILITIES) for c in one.conversations.values())
    with pytest.raises(ConfigError, match="100K/5"):
        BeamData(shared_data / "beam", chats=["100K/5"])  # held out
    with pytest.raises(ConfigError, match="unknown ability 'recall'"):
        BeamData(shared_data / "beam", abilities=["recall"])
    with pytest.raises(ConfigError, match="no scale '10M'"):
        BeamData(shared_data / "beam", scales=["10M"])


def _conversation(tmp_path, **kwargs):
    pairs = [(f"user says {i}", f"assistant says {i}") for i in range(4)]
    questions = {
        "information_extraction": [question("what?", [2, 3])],
        "abstention": [question("x?", None, ideal_response="no information")],
    }
    return write_conversation(tmp_path / "100K" / "1", chat(pairs), questions, **kwargs)


def test_a_truncated_gzip_is_refused_naming_the_file(tmp_path):
    folder = _conversation(tmp_path)
    data = (folder / "chat.json.gz").read_bytes()
    (folder / "chat.json.gz").write_bytes(data[: len(data) // 2])
    with pytest.raises(DatasetError, match=r"chat\.json\.gz.*(ends early|truncated)"):
        BeamData(tmp_path)


def test_a_message_without_id_is_refused_naming_batch_turn_message_and_field(tmp_path):
    folder = _conversation(tmp_path, gz=False)
    batches = json.loads((folder / "chat.json").read_text())
    del batches[1]["turns"][0][1]["id"]
    (folder / "chat.json").write_text(json.dumps(batches))
    with pytest.raises(DatasetError, match=r"chat\.json: batch 1 turn 0 message 1: field id: missing"):
        BeamData(tmp_path)


def test_an_id_seen_twice_is_refused(tmp_path):
    folder = _conversation(tmp_path, gz=False)
    batches = json.loads((folder / "chat.json").read_text())
    batches[1]["turns"][0][0]["id"] = 0
    (folder / "chat.json").write_text(json.dumps(batches))
    with pytest.raises(DatasetError, match="field id: 0 appears twice"):
        BeamData(tmp_path)


def test_source_chat_ids_naming_no_message_is_refused_naming_the_question(tmp_path):
    folder = _conversation(tmp_path)
    path = folder / "probing_questions" / "probing_questions.json"
    questions = json.loads(path.read_text())
    questions["information_extraction"].append(
        question("when?", {"first_event": [1], "second_event": [[99]]})
    )
    path.write_text(json.dumps(questions))
    with pytest.raises(
        DatasetError, match=r"information_extraction question 1: field source_chat_ids: 99 names no"
    ):
        BeamData(tmp_path)


def test_an_unknown_ability_is_refused_naming_the_file(tmp_path):
    folder = _conversation(tmp_path)
    path = folder / "probing_questions" / "probing_questions.json"
    questions = json.loads(path.read_text())
    questions["recall"] = [question("what?", [1])]
    path.write_text(json.dumps(questions))
    with pytest.raises(DatasetError, match=r"probing_questions\.json: ability 'recall': unknown"):
        BeamData(tmp_path)


def test_a_question_without_rubric_is_refused(tmp_path):
    folder = _conversation(tmp_path)
    path = folder / "probing_questions" / "probing_questions.json"
    questions = json.loads(path.read_text())
    del questions["abstention"][0]["rubric"]
    path.write_text(json.dumps(questions))
    with pytest.raises(DatasetError, match="abstention question 0: field rubric"):
        BeamData(tmp_path)


def test_a_10m_conversation_in_plan_parts_streams_in_order(tmp_path):
    folder = tmp_path / "10M" / "1"
    pairs = [(f"user {i} " + "word " * 100, f"assistant {i} " + "reply " * 400) for i in range(3000)]
    batches = chat(pairs, per_batch=10)
    for number, start in enumerate(range(0, len(batches), 100)):
        part = folder / f"plan-{number}"
        part.mkdir(parents=True)
        (part / "chat.json").write_text(json.dumps(batches[start : start + 100]))
    (folder / "probing_questions").mkdir()
    questions = {"summarization": [question("sum?", list(range(0, 6000, 7)), ideal_summary="s")]}
    (folder / "probing_questions" / "probing_questions.json").write_text(json.dumps(questions))
    data = BeamData(tmp_path / "10M")
    conversation = data.conversations["10M/1"]
    assert len(conversation.chat_files) == 3 and conversation.message_count == 6000
    tracemalloc.start()
    count = sum(1 for _ in conversation.messages())
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert count == 6000
    size = sum(p.stat().st_size for p in conversation.chat_files)
    assert peak < size / 2, (
        peak,
        size,
    )  # about three 1 MiB read chunks, not the 9 MB chat  # never the whole chat in memory


@pytest.mark.shared_data("beam")
def test_a_conversation_folder_alone_and_a_plain_json(tmp_path, shared_data):
    target = tmp_path / "chats" / "500K" / "7"
    shutil.copytree(shared_data / "beam" / "500K" / "7", target)
    raw = gzip.decompress((target / "chat.json.gz").read_bytes())
    (target / "chat.json.gz").unlink()
    (target / "chat.json").write_bytes(raw)
    alone = BeamData(target)
    assert alone.ids == ["500K/7"]
    assert (
        alone.conversations["500K/7"].message_count
        == BeamData(shared_data / "beam", chats=["500K/7"]).conversations["500K/7"].message_count
    )
