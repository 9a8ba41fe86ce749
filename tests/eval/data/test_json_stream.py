"""The streamed JSON array reader shared by the benchmarks' loaders."""

import gzip
import json

import pytest

from memsuite.eval.data.json_stream import iter_raw_records
from memsuite.memory_systems.errors import DatasetError


def test_elements_come_back_with_their_offsets_across_chunks(tmp_path):
    # Elements larger than one 1 MiB chunk, with multi-byte characters, so a record straddles reads.
    records = [{"i": i, "text": "é" * (700_000 + i)} for i in range(3)]
    path = tmp_path / "a.json"
    path.write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    data = path.read_bytes()
    seen = list(iter_raw_records(path))
    assert [r for _, _, _, r in seen] == records
    for index, offset, raw, record in seen:
        assert data[offset : offset + len(raw)] == raw
        assert json.loads(raw) == record == records[index]


def test_a_gzip_file_streams_the_same_records(tmp_path):
    records = [{"n": n} for n in range(5)]
    path = tmp_path / "a.json.gz"
    path.write_bytes(gzip.compress(json.dumps(records).encode()))
    assert [r for _, _, _, r in iter_raw_records(path)] == records


def test_a_cut_file_is_refused_naming_the_file_and_record(tmp_path):
    path = tmp_path / "cut.json"
    path.write_text('[{"a": 1}, {"b": ')
    with pytest.raises(DatasetError, match=r"cut\.json: record 1: truncated"):
        list(iter_raw_records(path))
    path.write_text('[{"a": 1}')
    with pytest.raises(DatasetError, match=r"record 1: truncated JSON \(the array is not closed\)"):
        list(iter_raw_records(path))


def test_a_file_that_is_not_an_array_is_refused(tmp_path):
    path = tmp_path / "obj.json"
    path.write_text('{"a": 1}')
    with pytest.raises(DatasetError, match=r"obj\.json: not a JSON array"):
        list(iter_raw_records(path))
