"""Two runs' rows compared without their timings: what perf/compare_rows.py and the resume test rely on."""

from __future__ import annotations

import json

import pytest

from memsuite.eval.analysis.row_diff import diff_rows, identical, read_rows


def _row(question: str, *, correct: bool = True, retrieve_ms: float = 1.0) -> dict:
    return {
        "system": "bm25",
        "unit_id": "u1",
        "question_id": question,
        "verdicts": {"rule": {"correct": correct}},
        "usage": {"retrieve_ms": retrieve_ms, "wall_s": retrieve_ms / 1000, "llm_calls": 0},
        "metadata": {"hits": ["a", "b"]},
    }


def test_timings_and_order_are_left_out_and_a_changed_verdict_is_named():
    before = [_row("q1"), _row("q2")]
    assert identical(diff_rows(before, [_row("q2", retrieve_ms=9.0), _row("q1", retrieve_ms=3.0)]))

    result = diff_rows(before, [_row("q1", correct=False), _row("q3")])
    assert not identical(result)
    assert result["different"] == {("bm25", "u1", "q1"): ["verdicts.rule.correct"]}
    assert result["only_before"] == [("bm25", "u1", "q2")] and result["only_after"] == [("bm25", "u1", "q3")]


def test_a_named_field_is_ignored_and_a_repeated_row_is_reported():
    changed = dict(_row("q1"), metadata={"hits": ["b", "a"]})
    assert not identical(diff_rows([_row("q1")], [changed]))
    assert identical(diff_rows([_row("q1")], [changed], ignore=["metadata.hits"]))
    assert diff_rows([_row("q1"), _row("q1")], [_row("q1")])["duplicates"] == [("bm25", "u1", "q1")]


def test_rows_are_read_from_a_run_folder_and_a_folder_without_them_is_named(tmp_path):
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "rows.jsonl").write_text(json.dumps(_row("q1")) + "\n\n")
    assert read_rows(tmp_path / "run") == [_row("q1")]
    with pytest.raises(FileNotFoundError, match=r"empty: no rows\.jsonl"):
        read_rows(tmp_path / "empty")
