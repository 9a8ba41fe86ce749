"""DynamicMem's report: per-checkpoint curves, retention vs update and failure stages, from runs written
directly with rows scored by the benchmark's own scoring."""

from __future__ import annotations

import gzip
import json

import pytest
from runfolders import table_of, without_intervals, write_run

from memsuite.eval.analysis.diagnostics import OUTCOMES as STAGE_OUTCOMES
from memsuite.eval.benchmarks.dynamicmem.protocol import SNAPSHOT_FILE, probe_record
from memsuite.eval.benchmarks.dynamicmem.scoring import summarize as dynamicmem_summarize
from memsuite.eval.protocol import Row
from memsuite.eval.report.document import build_report, table_markdown, write_report
from memsuite.eval.run.folder import load_runs


def _dm_row(checkpoint: str, key: str, task: str, change: str, fields: list[float]) -> Row:
    return Row(
        "rag",
        "dynamicmem",
        "u1",
        f"{checkpoint}-{key}-{task}",
        "q",
        "gold",
        "ctx",
        answer="a",
        verdicts={"rule": {"score": sum(fields) / len(fields), "fields": [{"score": f} for f in fields]}},
        metadata={
            "checkpoint": checkpoint,
            "task": task,
            "change": change,
            "category": "habits",
            "prediction": "x",
        },
    )


DM_ROWS = [
    _dm_row("C1", "a", "state_completion", "new", [1.0, 0.5]),
    _dm_row("C1", "a", "personalized_service", "new", [0.9]),
    _dm_row("C2", "a", "state_completion", "updated", [0.8]),
    _dm_row("C2", "b", "state_completion", "retained", [0.4]),
]


def test_dynamicmem_checkpoint_curves_and_retention(tmp_path):
    # The protocol's layout: the rule judge's summary is the scores themselves.
    scores = dynamicmem_summarize(DM_ROWS)
    path = write_run(tmp_path / "dm", benchmark="dynamicmem", rows=DM_ROWS, scores=scores)
    report = build_report(load_runs([path]))
    table = table_of(report, "dynamicmem_checkpoints")
    assert table.columns == ("system", "metric", "C1", "C2", "mean")
    by_metric = {r[1]: r for r in table.rows}
    # C1: fields 1.0 and 0.5 -> 0.75; C2: 0.8 and 0.4 -> 0.6; mean over checkpoints 0.675.
    assert by_metric["State Completion"][2:] == pytest.approx((0.75, 0.6, 0.675))
    assert by_metric["Personalized Service"][2:4] == (0.9, None)
    retention = {(r[1], r[2]): r[3:] for r in table_of(report, "dynamicmem_retention").rows}
    assert retention[("retained", "State Completion")] == (None, 0.4)
    assert retention[("updated", "State Completion")] == (None, 0.8)
    assert retention[("new", "State Completion")] == (0.75, None)
    write_report(report, tmp_path / "out")
    assert (tmp_path / "out" / "dynamicmem_checkpoints.png").stat().st_size > 1000


def test_dynamicmem_protocol_layout_prefers_the_llm_judge(tmp_path):
    # The protocol's summary: the rule judge's at the top level, the LLM judge's under "llm_judge".
    rows = [
        Row(**{**r.to_dict(), "verdicts": {**r.verdicts, "llm": {"score": 1.0, "fields": [{"score": 1.0}]}}})
        for r in DM_ROWS
    ]
    scores = {**dynamicmem_summarize(rows, "rule"), "llm_judge": dynamicmem_summarize(rows, "llm")}
    path = write_run(tmp_path / "dm", benchmark="dynamicmem", rows=rows, scores=scores)
    table = table_of(build_report(load_runs([path])), "dynamicmem_checkpoints")
    assert table.title.endswith("judge: llm")
    assert {r[1]: r[2:4] for r in table.rows}["State Completion"] == (1.0, 1.0)


def test_dynamicmem_failure_stage_table_and_figure(tmp_path):
    # Three habits keys at C1: the evidence retrieved and the answer right, retrieved but answered wrong,
    # and the evidence stored but not retrieved; the probe (raw-event memory) holds log_1 and log_2.
    def row(key: str, retrieved: list[str], correct: bool) -> Row:
        return Row(
            "rag",
            "dynamicmem",
            "u1",
            f"C1/{key}",
            "q",
            {"location": "Weir meadow"},
            "ctx",
            answer="a",
            verdicts={"rule": {"correct": correct, "score": float(correct), "fields": []}},
            metadata={
                "checkpoint": "C1",
                "task": "state_completion",
                "category": "habits",
                "change": "new",
                "prediction": "x",
                "value_evidence_ids": ["log_1"] if key != "habits_state:c" else ["log_2"],
                "retrieved_app_log_ids": retrieved,
            },
        )

    rows = [
        row("habits_state:a", ["log_1"], True),
        row("habits_state:b", ["log_1", "log_9"], False),
        row("habits_state:c", ["log_9"], False),
    ]
    path = write_run(tmp_path / "dm", benchmark="dynamicmem", rows=rows, scores=dynamicmem_summarize(rows))
    work = path / "work" / "rag" / "u1"
    work.mkdir(parents=True)
    snapshot = '{"app_log_id": "log_1"}\n\n{"app_log_id": "log_2"}'
    with gzip.open(work / SNAPSHOT_FILE, "wt", encoding="utf-8") as fh:
        fh.write(json.dumps(probe_record(0, "C1", snapshot)) + "\n")
    report = build_report(load_runs([path]))
    table = table_of(report, "dynamicmem_failure_stages")
    assert table.columns == ("system", "category", "n", *STAGE_OUTCOMES, "answer_judge")
    (record,) = [dict(zip(table.columns, r, strict=True)) for r in table.rows]
    assert record["n"] == 3 and record["answer_judge"] == "rule"
    assert record["encoded"] == record["maintained"] == 0.0
    assert record["retrieved"] == record["answered"] == record["none"] == pytest.approx(1 / 3)
    # Each share carries its interval; n counts state keys, all of one user (the resampled unit).
    for outcome in STAGE_OUTCOMES:
        interval = table.intervals[(0, outcome)]
        assert (interval.n, interval.units) == (3, 1) and interval.too_small
        assert interval.lo <= record[outcome] <= interval.hi
    assert any("resampling users whole" in note and "n = state keys" in note for note in table.notes)
    files = {f.name for f in write_report(report, tmp_path / "out")}
    assert {"dynamicmem_failure_stages.csv", "dynamicmem_failure_stages.png"} <= files


def test_dynamicmem_rows_left_out_by_failed_calls_are_counted_per_checkpoint(tmp_path):
    failed = Row(
        **{
            **_dm_row("C2", "c", "state_completion", "new", [0.0]).__dict__,
            "answer": None,
            "verdicts": {"rule": {"correct": None, "failure": "timeout", "failed_call": "answer"}},
            "metadata": {"checkpoint": "C2", "task": "state_completion", "change": "new",
                         "category": "habits", "prediction": None, "answer_failure": {"kind": "timeout"}},
        }
    )  # fmt: skip
    rows = [*DM_ROWS, failed]
    path = write_run(tmp_path / "dm", benchmark="dynamicmem", rows=rows, scores=dynamicmem_summarize(rows))
    table = table_of(build_report(load_runs([path])), "dynamicmem_checkpoints")
    assert table.columns == ("system", "metric", "C1", "C2", "mean", "total")
    by_metric = {r[1]: r for r in table.rows}
    # The failed key is out of C2's State Completion (still 0.8 and 0.4 -> 0.6) and counted.
    assert by_metric["State Completion"][2:4] == pytest.approx((0.75, 0.6))
    assert by_metric["left out (failed calls)"][2:] == (0, 1, None, 1)
    markdown = without_intervals(table_markdown(table))
    assert "| rag | State Completion | 0.75 | 0.60 (1 left out) |" in markdown
    assert "left out: rows whose answer or judge call failed" in markdown
    # Each curve value carries its interval resampling users: the bootstrap's statistic on the data is
    # the value itself (a mean of per-user means), and n counts users.
    for index, row in enumerate(table.rows):
        for column in ("C1", "C2"):
            interval = table.intervals.get((index, column))
            value = row[table.columns.index(column)]
            if row[1] in ("State Completion", "Personalized Service") and isinstance(value, float):
                assert interval is not None
            if interval is not None:
                assert interval.value == pytest.approx(row[table.columns.index(column)])
                assert interval.n == interval.units and interval.lo <= interval.value <= interval.hi
    assert "resampling users whole" in markdown and "n = users behind the rate" in markdown
    # Evidence F1 of the retrieved events needs no LLM call: no mark.
    assert "Evidence F1 (retrieved) | – | – (1 left out)" not in markdown


def test_dynamicmem_keys_are_compared_and_headlined_per_user(tmp_path):
    from memsuite.eval.analysis.compare import compare, headline, outcome_spec, sides
    from memsuite.eval.registry import definition

    scores = dynamicmem_summarize(DM_ROWS)
    path = write_run(tmp_path / "dm", benchmark="dynamicmem", rows=DM_ROWS, scores=scores)
    (run,) = load_runs([path])
    spec = definition("dynamicmem").outcomes
    found = headline(run, "rag", spec=spec)
    keys = [r for r in DM_ROWS if r.metadata.get("task") == "state_completion"]
    assert found.judge == "rule" and found.interval.n == len(keys)
    # A run against itself: every difference is 0 and nothing is read as a difference.
    rows = compare(outcome_spec(definition("dynamicmem")), *sides(run, "rag", run, "rag"), "rule")
    assert {r.difference.value for r in rows} == {0.0}
    # Retrieval-only runs have no verdicts: the retrieved Evidence F1 is always there to compare.
    assert headline(run, "rag", "evidence_f1", spec=spec).interval.n == len(keys)


def test_retention_split_and_mean_column_carry_user_intervals(tmp_path):
    # Twelve users. C1: key a is new, right for the first six users; C2: key a updated, right for
    # users 0, 2, 4, ...; key b retained, always right.
    rows = []
    for i in range(12):
        user = f"u{i}"
        for checkpoint, key, change, score in (
            ("C1", "a", "new", float(i < 6)),
            ("C2", "a", "updated", float(i % 2 == 0)),
            ("C2", "b", "retained", 1.0),
        ):
            row = _dm_row(checkpoint, key, "state_completion", change, [score])
            rows.append(Row(**{**row.to_dict(), "unit_id": user}))
    path = write_run(tmp_path / "dm", benchmark="dynamicmem", rows=rows, scores=dynamicmem_summarize(rows))
    report = build_report(load_runs([path]))

    table = table_of(report, "dynamicmem_checkpoints")
    index = next(i for i, r in enumerate(table.rows) if r[1] == "State Completion")
    record = dict(zip(table.columns, table.rows[index], strict=True))
    # C1 0.5, C2 (0.5 + 1) / 2 averaged over users 0.75: the mean over checkpoints 0.625.
    mean = table.intervals[(index, "mean")]
    assert record["mean"] == pytest.approx(0.625) and mean.value == pytest.approx(0.625)
    assert (mean.n, mean.units) == (12, 12) and mean.lo < 0.625 < mean.hi and not mean.too_small

    split = table_of(report, "dynamicmem_retention")
    cells = 0
    for index, row in enumerate(split.rows):
        record = dict(zip(split.columns, row, strict=True))
        for checkpoint in ("C1", "C2"):
            if record[checkpoint] is None:
                assert (index, checkpoint) not in split.intervals
                continue
            interval = split.intervals[(index, checkpoint)]
            assert interval.n == 12 and interval.value == pytest.approx(record[checkpoint])
            assert interval.lo <= record[checkpoint] <= interval.hi
            cells += 1
        if record["keys"] == "retained" and record["metric"] == "State Completion":
            retained = split.intervals[(index, "C2")]
            assert (retained.lo, retained.hi) == (1.0, 1.0)
        if record["keys"] == "updated" and record["metric"] == "State Completion":
            updated = split.intervals[(index, "C2")]
            assert updated.lo < 0.5 < updated.hi
    assert cells >= 3  # new at C1, updated and retained at C2
    assert any("resampling users whole" in note for note in split.notes)
