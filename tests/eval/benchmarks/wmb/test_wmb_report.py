"""WMB-100K's report: the README's results layout, per-qtype accuracy, result-file fields, latency and
sweep plots, from runs written directly with rows scored by the benchmark's own scoring."""

from __future__ import annotations

import pytest
from runfolders import table_of, without_intervals, write_run

from memsuite.eval.analysis.compare import headline
from memsuite.eval.benchmarks.wmb.scoring import result_json, wmb_scores
from memsuite.eval.protocol import Row
from memsuite.eval.registry import definition
from memsuite.eval.report.document import build_report, table_markdown, write_report
from memsuite.eval.report.model import Sweep
from memsuite.eval.run.folder import load_runs


def _wmb_row(qid: str, qtype: str, correct: bool | None, latency_ms: float, memories: list[str]) -> Row:
    verdict = {"correct": not memories} if qtype == "FalseMemory" else {"correct": correct}
    return Row(
        "bm25",
        "wmb",
        "daily_life",
        qid,
        "q",
        "gold",
        "\n".join(memories),
        verdicts={"rule": verdict},
        usage={"latency_ms": latency_ms, "search_calls": 1},
        metadata={"qtype": qtype, "memories": memories, "hits": [], "gold_turn_ids": []},
    )


#: S1: 1 of 2 correct; S2: 1 of 1; FM: one false positive, one clean. Latencies 100, 400 (-0.01),
#: 600 (-0.05), 50, 20 ms.
WMB_ROWS = [
    _wmb_row("daily_life.S1.001", "S1Situational", True, 100, ["user: wakes at 7:15"]),
    _wmb_row("daily_life.S1.002", "S1Situational", False, 400, ["user: likes tea"]),
    _wmb_row("daily_life.S2.001", "S2MultiMemory", True, 600, ["user: a", "user: b"]),
    _wmb_row("daily_life.FM.001", "FalseMemory", None, 50, ["user: something"]),
    _wmb_row("daily_life.FM.002", "FalseMemory", None, 20, []),
]


def test_wmb_tables_and_latency_plot(tmp_path):
    scores = {"judges": {"rule": wmb_scores(WMB_ROWS)}, "result_json": result_json(WMB_ROWS)}
    path = write_run(tmp_path / "wmb", benchmark="wmb", rows=WMB_ROWS, scores=scores)
    report = build_report(load_runs([path]))
    results = dict(
        zip(
            table_of(report, "wmb_results_rule").columns,
            table_of(report, "wmb_results_rule").rows[0],
            strict=True,
        )
    )
    assert results["Part B (/100)"] == 50.0 and results["FM Penalty"] == 0.25
    assert results["Speed Penalty"] == pytest.approx(0.06)
    assert results["Score (/100)"] == pytest.approx(49.69) and results["Grade"] == "Failing"
    assert (results["p50 ms"], results["p95 ms"]) == (100, 600)
    assert results["Part B S1-S7"] == pytest.approx(200 / 3)
    fields = dict(
        zip(
            table_of(report, "wmb_result_fields").columns,
            table_of(report, "wmb_result_fields").rows[0],
            strict=True,
        )
    )
    assert (fields["part_b.correct"], fields["part_b.total"], fields["part_b.score"]) == (2, 3, 66.7)
    assert fields["total"] == 66.4 and fields["fm.false_positives"] == 1
    qtype_table = table_of(report, "wmb_qtypes_rule")
    qtypes = dict(zip(qtype_table.columns, qtype_table.rows[0], strict=True))
    assert (
        qtypes["S1Situational"] == 50.0 and qtypes["S2MultiMemory"] == 100.0 and qtypes["FalseMemory"] == 50.0
    )
    assert qtypes["S3CrossCategory"] is None
    # Each rate carries its interval over questions, computed from the rows the rate counts.
    part_b = table_of(report, "wmb_results_rule").intervals[(0, "Part B (/100)")]
    assert (part_b.value, part_b.n, part_b.too_small) == (50.0, 2, True)
    assert table_of(report, "wmb_results_rule").intervals[(0, "Part B S1-S7")].n == 3
    probes = qtype_table.intervals[(0, "FalseMemory")]
    assert (probes.value, probes.lo, probes.hi) == (50.0, 0.0, 100.0)
    assert (0, "S3CrossCategory") not in qtype_table.intervals
    files = write_report(report, tmp_path / "out")
    assert (tmp_path / "out" / "wmb_latency.png").stat().st_size > 1000
    markdown = without_intervals(files[0].read_text())
    assert "| bm25 | 50.0 | 0.25 | 0.06 | 49.7 | Failing | 100 | 600 | rule |" in markdown
    assert "No results yet" in markdown  # the README publishes no v2.1 numbers: said, not invented


def test_wmb_sweep_run_column_and_curves(tmp_path):
    scores = {"judges": {"rule": wmb_scores(WMB_ROWS)}, "result_json": result_json(WMB_ROWS)}
    paths = [write_run(tmp_path / f"k-{k}", benchmark="wmb", rows=WMB_ROWS, scores=scores) for k in (1, 5)]
    sweep = Sweep("k", (1, 5), ("k-1", "k-5"))
    report = build_report(load_runs(paths, ["k-1", "k-5"]), sweep=sweep)
    table = table_of(report, "wmb_results_rule")
    assert table.columns[:2] == ("k", "system") and table.column("k") == ["1", "5"]
    files = write_report(report, tmp_path / "out")
    assert tmp_path / "out" / "wmb_sweep_k.png" in files
    assert "| k-5 | wmb |" in files[0].read_text()  # the runs table keeps the variant folder names


FAILED = {"correct": None, "failure": "timeout", "failed_call": "judge", "reason": "judge call failed"}


def test_wmb_left_out_rows_and_whole_memory_contexts_are_shown_per_cell(tmp_path):
    failing = _wmb_row("daily_life.S1.003", "S1Situational", None, 90, ["user: x"])
    failing = Row(**{**failing.__dict__, "verdicts": {"rule": dict(FAILED)}})
    whole = _wmb_row("daily_life.S2.002", "S2MultiMemory", True, 80, ["user: c"])
    whole = Row(**{**whole.__dict__, "metadata": {**whole.metadata, "context_is_whole_memory": True}})
    rows = [
        *(
            Row(**{**r.__dict__, "metadata": {**r.metadata, "context_is_whole_memory": False}})
            for r in WMB_ROWS
        ),
        failing,
        whole,
    ]
    scores = {"judges": {"rule": wmb_scores(rows)}}
    report = build_report(load_runs([write_run(tmp_path / "wmb", benchmark="wmb", rows=rows, scores=scores)]))
    results = table_of(report, "wmb_results_rule")
    record = dict(zip(results.columns, results.rows[0], strict=True))
    # The failed S1 row is out of Part B (still 1 of 2) and counted beside it.
    assert record["Part B (/100)"] == 50.0 and record["S1 left out"] == 1 and record["S1-S7 left out"] == 1
    markdown = without_intervals(table_markdown(results))
    assert "| 50.0 (1 left out) |" in markdown
    assert "left out: rows whose answer or judge call failed" in markdown
    accuracy = table_of(report, "wmb_qtypes_rule")
    cells = dict(zip(accuracy.columns, accuracy.rows[0], strict=True))
    assert cells["left out"] == "S1Situational 1" and cells["whole memory"] == "S2MultiMemory 1/2"
    markdown = without_intervals(table_markdown(accuracy))
    assert "| 50.0 (1 left out) | 100.0 † |" in markdown
    assert "context = whole memory for 1 of 6 questions" in markdown


def test_gold_turn_retrieval_rate_carries_a_question_interval(tmp_path):
    def gold_row(i: int, retrieved: bool, verdict: dict | None = None) -> Row:
        row = _wmb_row(f"daily_life.S1.{i:03d}", "S1Situational", True, 100, ["user: x"])
        metadata = {**row.metadata, "gold_turn_ids": ["t1"], "gold_turn_retrieved": retrieved}
        verdicts = {"rule": verdict or {"correct": True}}
        return Row(**{**row.__dict__, "metadata": metadata, "verdicts": verdicts})

    # Twelve questions with gold turns, nine found; a failed judge call is left out of the rate too.
    rows = [gold_row(i, i < 9) for i in range(12)] + [gold_row(12, False, dict(FAILED)), *WMB_ROWS[3:]]
    scores = {"judges": {"rule": wmb_scores(rows)}}
    report = build_report(load_runs([write_run(tmp_path / "wmb", benchmark="wmb", rows=rows, scores=scores)]))
    accuracy = table_of(report, "wmb_qtypes_rule")
    record = dict(zip(accuracy.columns, accuracy.rows[0], strict=True))
    interval = accuracy.intervals[(0, "gold turn retrieved %")]
    assert record["gold turn retrieved %"] == interval.value == 75.0
    assert record["questions with gold turns"] == 12
    assert interval.n == 12 and interval.lo < 75.0 < interval.hi and not interval.too_small
    assert (0, "questions with gold turns") not in accuracy.intervals  # a count
    assert "75.0 [" in table_markdown(accuracy)


def test_headline_and_compare_resample_questions_as_the_report_does(tmp_path):
    # Twelve S1 questions of one category, eight right: the category is one unit, so resampling
    # units would give a zero-width interval marked too small; WMB's intervals resample questions.
    rows = [_wmb_row(f"daily_life.S1.{i:03d}", "S1Situational", i < 8, 100, ["user: x"]) for i in range(12)]
    scores = {"judges": {"rule": wmb_scores(rows)}}
    run = load_runs([write_run(tmp_path / "wmb", benchmark="wmb", rows=rows, scores=scores)])[0]
    found = headline(run, "bm25", spec=definition("wmb").outcomes)
    assert found.name == "Part B (S1)" and found.judge == "rule"
    assert found.interval.n == 12 and found.interval.value == pytest.approx(8 / 12)
    assert found.interval.lo < 8 / 12 < found.interval.hi and not found.interval.too_small
    report = build_report(load_runs([run.path]))
    results = table_of(report, "wmb_results_rule")
    cell = next(v for (i, c), v in results.intervals.items() if i == 0 and c.startswith("Part B"))
    assert (cell.lo, cell.hi) == pytest.approx((found.interval.lo * 100, found.interval.hi * 100))
