"""Latency percentiles in every benchmark's usage table, from the rows' own timings."""

from __future__ import annotations

import pytest
from runfolders import table_of, write_run

from memsuite.eval.benchmarks.meme.scoring import meme_scores
from memsuite.eval.protocol import Row
from memsuite.eval.report.document import build_report
from memsuite.eval.report.runs import load_runs
from memsuite.eval.report.usage import latency_record


def _row(i: int, **usage) -> Row:
    return Row(
        "bm25", "meme", "e1", f"q{i}", "q", "gold", "ctx", answer="a",
        verdicts={"rule": {"correct": True}}, usage=usage,
        metadata={"task": "ER", "phase": "after", "entities": [f"x{i}"]},
    )  # fmt: skip


def test_percentiles_of_retrieval_and_uncached_answer_calls(tmp_path):
    # Retrieval 1..100 ms; answer calls 10..1000 ms, plus one cached answer (0 s) that times no call.
    rows = [_row(i, retrieve_ms=float(i), answer_wall_s=i / 100, answer_cached=False) for i in range(1, 101)]
    rows.append(_row(101, retrieve_ms=50.0, answer_wall_s=0.0, answer_cached=True))
    record = latency_record(rows)
    assert record["retrieve p50 ms"] == pytest.approx(50.0)
    assert record["answer p50 ms"] == pytest.approx(505.0)  # the cached 0 ms is not in it
    assert record["answer p99 ms"] == pytest.approx(990.1)
    scores = {"by_judge": {"rule": meme_scores(rows)}}
    path = write_run(tmp_path / "run", benchmark="meme", rows=rows, scores=scores)
    usage = table_of(build_report(load_runs([path])), "meme_usage")
    cells = dict(zip(usage.columns, usage.rows[0], strict=True))
    assert cells["retrieve p95 ms"] == pytest.approx(record["retrieve p95 ms"])
    assert "p50 / p95 / p99" in " ".join(usage.notes)


def test_search_latency_of_benchmarks_that_time_it_as_latency_ms_and_no_answer_call():
    rows = [_row(i, latency_ms=float(i)) for i in range(1, 11)]
    record = latency_record(rows)
    assert record["retrieve p50 ms"] == pytest.approx(5.5)
    assert record["answer p50 ms"] is None


def test_every_benchmark_gets_a_latency_plot(tmp_path):
    from memsuite.eval.report.document import write_report

    rows = [_row(i, retrieve_ms=float(i)) for i in range(1, 11)]
    scores = {"by_judge": {"rule": meme_scores(rows)}}
    path = write_run(tmp_path / "run", benchmark="meme", rows=rows, scores=scores)
    report = build_report(load_runs([path]))
    (figure,) = [f for s in report.sections for f in s.figures if f.name == "meme_latency"]
    assert "retrieval latency" in figure.title
    assert "meme_latency.png" in {p.name for p in write_report(report, tmp_path / "out")}
