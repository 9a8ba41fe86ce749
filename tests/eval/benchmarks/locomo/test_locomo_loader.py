"""The LoCoMo loader on the real dev file, evidence-id repair, and malformed-file errors."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from memsuite.eval.benchmarks.locomo.loader import load_conversations, repair_evidence
from memsuite.eval.benchmarks.locomo.schema import EvidenceRepairs
from memsuite.memory_systems.errors import DatasetError

DEV = Path("locomo") / "locomo.dev.json"


@pytest.mark.shared_data("locomo")
def test_dev_file_loads_with_its_quirks_counted(shared_data):
    conversations, repairs = load_conversations(shared_data / DEV)
    assert [c.sample_id for c in conversations] == [
        "conv-26",
        "conv-30",
        "conv-41",
        "conv-42",
        "conv-43",
        "conv-44",
        "conv-47",
    ]
    assert sum(len(c.questions) for c in conversations) == 1347
    assert sum(len(c.turns) for c in conversations) == 4124
    # The three malformed ids of the release, and two well-formed ids naming no turn.
    assert (repairs.repaired, repairs.dropped, repairs.unknown) == (2, 1, 2)
    by_id = {c.sample_id: c for c in conversations}
    assert by_id["conv-26"].questions[37].evidence == ("D8:6", "D9:17")
    assert "D11:26" in by_id["conv-43"].questions[18].evidence
    assert "D:11:26" in by_id["conv-43"].questions[18].raw_evidence
    assert "D" in by_id["conv-42"].questions[88].raw_evidence
    assert "D" not in by_id["conv-42"].questions[88].evidence
    for conversation in conversations:
        numbers = [s.number for s in conversation.sessions]
        assert numbers == sorted(numbers) and len(numbers) >= 10  # session_10 after session_9
        assert all(t.dia_id.startswith(f"D{s.number}:") for s in conversation.sessions for t in s.turns)
    adversarial = [q for c in conversations for q in c.questions if q.category == 5]
    assert len(adversarial) == 312 and all(q.adversarial_answer for q in adversarial[:10])
    assert any(t.blip_caption for t in conversations[0].turns)


@pytest.mark.parametrize(
    ("raw", "ids", "counts"),
    [
        (["D1:3"], ("D1:3",), (0, 0, 0)),
        (["D8:6; D9:17"], ("D8:6", "D9:17"), (1, 0, 0)),
        (["D:11:26"], ("D11:26",), (1, 0, 0)),
        (["D"], (), (0, 1, 0)),
        (["(D1:3)"], ("D1:3",), (1, 0, 0)),
        (["D01:03"], ("D1:3",), (1, 0, 0)),
        (["D7:99"], ("D7:99",), (0, 0, 1)),  # well-formed, names no turn: kept, counted
        (["D:7:99"], (), (0, 1, 0)),  # malformed and naming no turn: no unambiguous reading
        (["D1:3", "D1:3"], ("D1:3",), (0, 0, 0)),
    ],
)
def test_evidence_repair(raw, ids, counts):
    repairs = EvidenceRepairs()
    known = {"D1:3", "D8:6", "D9:17", "D11:26"}
    assert repair_evidence(raw, known, repairs, sample_id="c", question=0) == ids
    assert (repairs.repaired, repairs.dropped, repairs.unknown) == counts


def _minimal() -> list[dict]:
    return [
        {
            "sample_id": "conv-x",
            "conversation": {
                "speaker_a": "Ann",
                "speaker_b": "Bo",
                "session_1_date_time": "1:00 pm on 1 May, 2023",
                "session_1": [{"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a cat."}],
            },
            "qa": [
                {"question": "What did Ann adopt?", "answer": "a cat", "evidence": ["D1:1"], "category": 4}
            ],
        }
    ]


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (lambda d: d[0]["qa"][0].pop("answer"), "conversation 0 (conv-x): qa[0]: field 'answer'"),
        (lambda d: d[0]["qa"][0].update(category=7), "qa[0]: field 'category'"),
        (lambda d: d[0]["qa"][0].update(evidence="D1:1"), "qa[0]: field 'evidence'"),
        (
            lambda d: d[0]["conversation"].pop("session_1_date_time"),
            "field 'conversation.session_1_date_time'",
        ),
        (
            lambda d: d[0]["conversation"]["session_1"][0].pop("text"),
            "field 'conversation.session_1[0].text'",
        ),
        (lambda d: d[0].pop("sample_id"), "conversation 0: field 'sample_id'"),
        (lambda d: d[0]["conversation"].pop("speaker_b"), "field 'conversation.speaker_b'"),
    ],
)
def test_malformed_file_names_file_conversation_question_and_field(tmp_path, mutate, expected):
    data = copy.deepcopy(_minimal())
    mutate(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(DatasetError) as error:
        load_conversations(path)
    assert str(path) in str(error.value) and expected in str(error.value)


def test_not_json_and_missing_file(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text("[{")
    with pytest.raises(DatasetError, match="not valid JSON"):
        load_conversations(path)
    with pytest.raises(DatasetError, match="not found"):
        load_conversations(tmp_path / "absent.json")


def test_numeric_answers_become_text_and_category_5_needs_none(tmp_path):
    data = _minimal()
    data[0]["qa"] += [
        {"question": "How many cats?", "answer": 1, "evidence": ["D1:1"], "category": 1},
        {"question": "What dog?", "adversarial_answer": "a pug", "evidence": [], "category": 5},
    ]
    path = tmp_path / "ok.json"
    path.write_text(json.dumps(data))
    (conversation,), _ = load_conversations(path)
    assert conversation.questions[1].answer == "1"
    assert (
        conversation.questions[2].answer is None and conversation.questions[2].adversarial_answer == "a pug"
    )
