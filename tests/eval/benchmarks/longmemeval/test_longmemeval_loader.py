"""The LongMemEval loader on the released dev files, on malformed files, and on an M-shaped file."""

from __future__ import annotations

import gzip
import json
import tracemalloc
from pathlib import Path

import pytest

from memsuite.eval.benchmarks.longmemeval.loader import LmeFile
from memsuite.eval.benchmarks.longmemeval.schema import QUESTION_TYPES, corpus
from memsuite.memory_systems.errors import ConfigError, DatasetError

ORACLE = Path("longmemeval") / "longmemeval_oracle.dev.json"
S = Path("longmemeval") / "longmemeval_s_cleaned.dev.json.gz"


def _record(qid: str, *, sessions: int = 2, qtype: str = "multi-session", turn_text: str = "hello") -> dict:
    return {
        "question_id": qid,
        "question_type": qtype,
        "question": "Where did I go?",
        "answer": "Paris",
        "question_date": "2023/05/30 (Tue) 10:00",
        "haystack_dates": [f"2023/05/{i + 1:02d} (Mon) 09:00" for i in range(sessions)],
        "haystack_session_ids": [f"answer_s{i}" if i == 0 else f"other_{qid}_{i}" for i in range(sessions)],
        "haystack_sessions": [
            [
                {"role": "user", "content": turn_text, "has_answer": i == 0},
                {"role": "assistant", "content": "ok"},
            ]
            for i in range(sessions)
        ],
        "answer_session_ids": ["answer_s0"],
    }


def _write(path: Path, records: list) -> Path:
    path.write_text(json.dumps(records, indent=2), encoding="utf-8")
    return path


@pytest.mark.shared_data("longmemeval")
def test_the_released_dev_files_load_unchanged(shared_data):
    oracle = LmeFile(shared_data / ORACLE)
    assert len(oracle.ids) == 400 and set(oracle.counts) == set(QUESTION_TYPES)
    s = LmeFile(shared_data / S, per_type=2)
    assert sum(s.counts.values()) == 399 and len(s.ids) == 12
    assert [s.question_type(q) for q in s.ids].count("temporal-reasoning") == 2
    question = s.question("gpt4_2655b836")
    assert question.question_type == "temporal-reasoning" and len(question.sessions) == 45
    assert question.answer == "GPS system not functioning correctly"
    # The integer answers of the release are read as text.
    assert all(isinstance(oracle.question(q).answer, str) for q in oracle.ids[:50])


@pytest.mark.shared_data("longmemeval")
def test_selection_by_type_and_id(shared_data):
    chosen = LmeFile(shared_data / ORACLE, question_types=["knowledge-update"])
    assert len(chosen.ids) == 62 and {chosen.question_type(q) for q in chosen.ids} == {"knowledge-update"}
    one = LmeFile(shared_data / ORACLE, question_ids=["gpt4_2655b836"])
    assert one.ids == ["gpt4_2655b836"]
    with pytest.raises(ConfigError, match="not_a_question"):
        LmeFile(shared_data / ORACLE, question_ids=["not_a_question"])
    with pytest.raises(ConfigError, match="unknown question type 'chit-chat'"):
        LmeFile(shared_data / ORACLE, question_types=["chit-chat"])


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda r: r.pop("haystack_sessions"), r"record 1: field haystack_sessions: missing"),
        (
            lambda r: r["haystack_dates"].pop(),
            r"record 1: field haystack_sessions: haystack lists differ in length",
        ),
        (
            lambda r: r.update(question_type="chit-chat"),
            r"record 1: field question_type: unknown type 'chit-chat'",
        ),
        (
            lambda r: r["haystack_sessions"][1].append("hi"),
            r"record 1: field haystack_sessions\[1\]\[2\]: not a",
        ),
    ],
)
def test_a_malformed_record_is_refused_naming_file_record_and_field(tmp_path, mutate, message):
    bad = _record("q1")
    mutate(bad)
    path = _write(tmp_path / "bad.json", [_record("q0"), bad, _record("q2")])
    with pytest.raises(DatasetError, match=message) as caught:
        LmeFile(path)
    assert str(path) in str(caught.value)


def test_truncated_json_is_refused_naming_the_record(tmp_path):
    text = json.dumps([_record("q0"), _record("q1")])
    cut = tmp_path / "cut.json"
    cut.write_text(text[: len(text) - 40], encoding="utf-8")
    with pytest.raises(DatasetError, match=r"cut\.json: record 1: truncated"):
        LmeFile(cut)
    gz = tmp_path / "cut.json.gz"
    gz.write_bytes(gzip.compress(text.encode())[:-30])
    with pytest.raises(DatasetError, match=r"cut\.json\.gz: record"):
        LmeFile(gz)
    not_array = _write(tmp_path / "obj.json", {"question_id": "q"})  # type: ignore[arg-type]
    with pytest.raises(DatasetError, match="not a JSON array"):
        LmeFile(not_array)


def test_gzip_and_plain_files_read_the_same_records(tmp_path):
    records = [_record(f"q{i}", turn_text="é ünïcode ☃ " * (i + 1)) for i in range(5)]
    plain = _write(tmp_path / "f.json", records)
    gz = tmp_path / "f.json.gz"
    gz.write_bytes(gzip.compress(plain.read_bytes()))
    for path in (plain, gz):
        loaded = LmeFile(path)
        assert loaded.ids == [f"q{i}" for i in range(5)]
        assert loaded.question("q3").sessions[0].turns[0].content == "é ünïcode ☃ " * 4


def test_an_m_shaped_file_streams_in_bounded_memory(tmp_path):
    """80 records of ~0.5 MB each (M's shape: hundreds of sessions per question, a file far larger than
    one record); the loader holds one record at a time, never the file."""
    path = tmp_path / "m_shaped.json"
    with path.open("w", encoding="utf-8") as out:
        out.write("[\n")
        for i in range(80):
            record = _record(f"m{i}", sessions=200, turn_text="word " * 500)
            out.write(("," if i else "") + json.dumps(record))
        out.write("\n]")
    size = path.stat().st_size
    assert size > 40_000_000
    tracemalloc.start()
    loaded = LmeFile(path)
    question = loaded.question("m17")
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert len(loaded.ids) == 80 and len(question.sessions) == 200
    assert peak < size / 5, f"peak {peak:,} bytes for a {size:,}-byte file"
    assert len(corpus(question, "turn")) == 200
