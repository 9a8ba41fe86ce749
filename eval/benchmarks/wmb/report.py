"""WMB-100K's report: the README's results layout per judge, accuracy per question type, the
reference result file's fields, usage, the search-latency plot and sweep curves.

Named as the report renderer by the benchmark's spec; reads only run folders.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

from memsuite.eval.analysis import plots as plotting
from memsuite.eval.analysis.compare import Outcome, OutcomeSpec
from memsuite.eval.analysis.metrics import percentile
from memsuite.eval.analysis.stats import Interval
from memsuite.eval.benchmarks.wmb.schema import QTYPES as WMB_QTYPES
from memsuite.eval.benchmarks.wmb.scoring import gold_turn_outcome, row_outcome, row_part
from memsuite.eval.protocol import Row
from memsuite.eval.report.caveats import (
    count_text,
    left_out_mark,
    left_out_note,
    whole_memory_counts,
    whole_memory_mark,
    whole_memory_note,
    whole_memory_text,
)
from memsuite.eval.report.intervals import interval_note
from memsuite.eval.report.kit import Records, judges_in, rate_intervals, under
from memsuite.eval.report.layout import ordered_systems, run_cell, run_column, series_name, slug
from memsuite.eval.report.model import Cell, Figure, ReportOptions, Section, Table
from memsuite.eval.report.runs import RunInfo, llm_label
from memsuite.eval.report.usage import USAGE_COLUMNS, usage_record, usage_summary, usage_table

WMB_NOTES = (
    "published numbers: none -- the WMB-100K v2.1 README (wontopos/WMB-100K @ 436cba8) lists "
    "'No results yet', so there is no reference row.",
    "Part B / Score are the README's S1 headline (1,000 S1 questions x 0.1); the reference result file "
    "(scripts/score.py) counts S1-S7 -- see the result-fields table. Scores are not clamped.",
)
WMB_JUDGE_NOTES = {
    "rule": "judge: rule -- memsuite's deterministic coverage judge (a lexical lower-bound proxy, not an "
    "official WMB-100K mode).",
    "llm": "judge: llm -- the reference judge prompt asked through the run's answer LLM (README: quick mode "
    "GPT-4o-mini, official mode a 3-LLM majority).",
}
#: The README's results table, then S1 counts and the S1-S7 variant (Part B in points of 100).
WMB_RESULT_COLUMNS = (
    "Part B (/100)",
    "FM Penalty",
    "Speed Penalty",
    "Score (/100)",
    "Grade",
    "p50 ms",
    "p95 ms",
    "Judge",
    "S1 correct",
    "S1 total",
    "Part B S1-S7",
    "Score S1-S7",
    "S1 left out",
    "S1-S7 left out",
)
#: Columns of the accuracy table after the question types.
#: The accuracy table's column of the judge-free retrieval check (a rate over questions with gold turns).
_GOLD_TURN = "gold turn retrieved %"
WMB_ACCURACY_EXTRA = (_GOLD_TURN, "questions with gold turns", "left out", "whole memory")
#: The reference result file's fields (scripts/score.py ``result``), flattened.
WMB_RESULT_FIELDS = (
    "part_b.correct",
    "part_b.total",
    "part_b.score",
    "fm.probes",
    "fm.false_positives",
    "fm.penalty",
    "speed.p50_ms",
    "speed.p95_ms",
    "speed.penalty",
    "total",
)


def _wmb_result_record(s: Mapping[str, Any], judge_name: str) -> dict[str, Cell]:
    """One row of the README's results table (S1 headline), with the S1 counts and the S1-S7 variant."""
    return {
        "Part B (/100)": s["part_b"]["score"],
        "FM Penalty": s["fm"]["penalty"],
        "Speed Penalty": s["speed"]["penalty"],
        "Score (/100)": s["total"],
        "Grade": s["grade"],
        "p50 ms": s["speed"]["p50_ms"],
        "p95 ms": s["speed"]["p95_ms"],
        "Judge": judge_name,
        "S1 correct": s["part_b"]["correct"],
        "S1 total": s["part_b"]["total"],
        "Part B S1-S7": s["part_b_s1_s7"]["score"],
        "Score S1-S7": s["total_s1_s7"],
        "S1 left out": s["part_b"].get("n_failed", 0),
        "S1-S7 left out": s["part_b_s1_s7"].get("n_failed", 0),
    }


#: Where WMB-100K's summarize keeps each judge's scores.
JUDGES = under("judges")


def _wmb_scores(run: RunInfo, system: str, judge: str) -> Mapping[str, Any] | None:
    return run.system_summary(system).judge(judge, JUDGES)


#: The result-table columns that are rates over questions, by the score block behind each.
_PART_B_COLUMNS = {"part_b": "Part B (/100)", "part_b_s1_s7": "Part B S1-S7"}
WMB_INTERVAL_NOTE = (
    interval_note("question")
    + " WMB's units are categories, too few to resample, so the interval treats a category's questions "
    "as independent (it is narrower than a resampling of categories would give)."
)


def wmb_intervals(run: RunInfo, system: str, judge: str) -> dict[str, Interval]:
    """Intervals (points of 100) of the Part B columns, of each question type's accuracy and of the
    gold-turn retrieval rate."""
    rows = run.rows(system)
    parts = rate_intervals(rows, lambda row: row_outcome(row, judge), row_part)
    qtypes = rate_intervals(
        rows, lambda row: row_outcome(row, judge), lambda row: (row.metadata.get("qtype"),)
    )
    gold = rate_intervals(rows, lambda row: gold_turn_outcome(row, judge), lambda row: (_GOLD_TURN,))
    return {
        **{_PART_B_COLUMNS[str(part)]: interval for part, interval in parts.items()},
        **{str(cell): interval for cell, interval in (*qtypes.items(), *gold.items())},
    }


def wmb_outcomes(rows: Sequence[Row], judge: str) -> list[Outcome]:
    """Each question's outcome in its question type, for paired comparisons; the overall row is
    the README's headline, Part B (S1 questions). Each question is its own unit, as in the report's
    intervals: a run's categories are too few to resample (see :data:`WMB_INTERVAL_NOTE`)."""
    out = []
    for row in rows:
        value = row_outcome(row, judge)
        if value is not None:
            qtype = str(row.metadata.get("qtype"))
            headline = "part_b" in row_part(row)
            unit = f"{row.unit_id}/{row.question_id}"
            out.append(Outcome(unit, row.question_id, qtype, value, in_overall=headline))
    return out


#: How ``memsuite compare`` counts this benchmark's questions (named by its spec).
OUTCOMES = OutcomeSpec(
    wmb_outcomes, ("llm", "rule"), "question", cells=tuple(WMB_QTYPES), headline="Part B (S1)"
)


def render_wmb(runs: list[RunInfo], options: ReportOptions) -> Section:
    """WMB-100K: the README's results layout per judge, per-qtype accuracy, the result-file fields."""
    section = Section("WMB-100K")
    prefix = run_column(runs, options)
    systems = ordered_systems(runs)
    judges = judges_in(runs, JUDGES, ("llm", "rule"))
    for judge in judges:
        results, accuracy = Records(), Records()
        flagged = recorded = 0
        for system in systems:
            for run in runs:
                s = _wmb_scores(run, system, judge)
                if s is None:
                    continue
                head = {**run_cell(run, prefix), "system": system}
                judge_name = judge if judge == "rule" else f"llm ({llm_label(run.header.get('answer_llm'))})"
                usage = usage_record(usage_summary(run, system, options.prices))
                record = _wmb_result_record(s, judge_name)
                found = wmb_intervals(run, system, judge)
                marks = {
                    column: left_out_mark(record[left])
                    for column, left in (("Part B (/100)", "S1 left out"), ("Part B S1-S7", "S1-S7 left out"))
                }
                results.add({**head, **record, **usage}, found, marks)
                qtypes, retrieval = s.get("qtype_accuracy") or {}, s.get("retrieval") or {}
                left_out = {q: (qtypes.get(q) or {}).get("n_failed", 0) for q in WMB_QTYPES}
                whole = whole_memory_counts(run.rows(system), lambda row: row.metadata.get("qtype", ""))
                flagged += sum(f for f, _ in whole.values())
                recorded += sum(n for _, n in whole.values())
                marks = {q: left_out_mark(left_out[q]) + whole_memory_mark(whole, q) for q in WMB_QTYPES}
                accuracy_record = {
                    **head,
                    **{q: (qtypes.get(q) or {}).get("accuracy_pct") for q in WMB_QTYPES},
                    _GOLD_TURN: retrieval.get("rate_pct"),
                    "questions with gold turns": retrieval.get("questions_with_gold"),
                    "left out": count_text(left_out) or None,
                    "whole memory": whole_memory_text(whole, WMB_QTYPES) or None,
                }
                accuracy.add(accuracy_record, found, marks)
        any_left_out = any(r["S1-S7 left out"] for r in results.rows)
        section.tables.append(
            results.table(
                f"wmb_results_{judge}",
                f"WMB-100K results -- judge: {judge}",
                (*prefix, "system", *WMB_RESULT_COLUMNS, *USAGE_COLUMNS),
                (
                    WMB_JUDGE_NOTES.get(judge, f"judge: {judge}"),
                    *WMB_NOTES,
                    WMB_INTERVAL_NOTE,
                    *left_out_note(any_left_out),
                ),
                {c: ".1f" for c in ("Part B (/100)", "Score (/100)", "Part B S1-S7", "Score S1-S7")},
            )
        )
        section.tables.append(
            accuracy.table(
                f"wmb_qtypes_{judge}",
                f"WMB-100K accuracy by question type (%) -- judge: {judge}",
                (*prefix, "system", *WMB_QTYPES, *WMB_ACCURACY_EXTRA),
                (
                    "FalseMemory: share of probes that returned nothing. 'gold turn retrieved': a returned "
                    "memory sits on a line carrying a gold turn id (memsuite's judge-free check).",
                    WMB_INTERVAL_NOTE,
                    *left_out_note(any_left_out),
                    *((whole_memory_note(flagged, recorded),) if flagged else ()),
                ),
                {q: ".1f" for q in (*WMB_QTYPES, _GOLD_TURN)},
            )
        )
    section.tables.append(_wmb_result_fields(runs, systems, prefix))
    section.tables.append(usage_table("wmb_usage", "WMB-100K usage and cost", runs, options))
    section.figures += _wmb_figures(runs, systems, judges, options)
    return section


def _dotted(mapping: Mapping[str, Any], path: str) -> Any:
    """``mapping["part_b"]["score"]`` for ``"part_b.score"`` (None where a key is missing)."""
    value: Any = mapping
    for key in path.split("."):
        value = value.get(key) if isinstance(value, Mapping) else None
    return value


def _wmb_result_fields(runs, systems, prefix) -> Table:
    records = []
    for system in systems:
        for run in runs:
            result = run.system_summary(system).part("result_json")
            if result:
                fields = {f: _dotted(result, f) for f in ("system_name", "scoring_mode", *WMB_RESULT_FIELDS)}
                records.append({**run_cell(run, prefix), **fields})
    return Table.from_records(
        "wmb_result_fields",
        "WMB-100K reference result file fields (scripts/score.py; Part B over S1-S7)",
        (*prefix, "system_name", "scoring_mode", *WMB_RESULT_FIELDS),
        records,
        ("Values as the reference result JSON rounds them (one decimal).",),
        formats={c: ".1f" for c in ("part_b.score", "fm.penalty", "speed.penalty", "total")},
    )


def _wmb_figures(runs, systems, judges, options: ReportOptions) -> list[Figure]:
    latencies = {
        (run.label, system): [float(r.usage.get("latency_ms") or 0.0) for r in run.rows(system)]
        for run in runs
        for system in run.systems
    }
    figures = []
    if any(latencies.values()):
        title = "WMB-100K search latency per question (penalty bands dashed)"
        named = {series_name(run, s, runs): latencies[(run.label, s)] for run in runs for s in run.systems}
        draw = partial(plotting.plot_latency_distribution, named, title=title)
        figures.append(Figure("wmb_latency", title, draw))
    if options.sweep is not None and judges:
        judge, sweep = judges[0], options.sweep

        def points(run: RunInfo, system: str) -> dict[str, Cell]:
            s = _wmb_scores(run, system, judge)
            if s is None:
                return {}
            # Unrounded median: the result file's whole-ms p50 is 0 for any in-memory index.
            return {
                "Score (/100), S1": s["total"],
                "Part B S1-S7 (/100)": s["part_b_s1_s7"]["score"],
                "median search latency, ms": percentile(latencies[(run.label, system)], 0.5),
            }

        values = {(run.label, system): points(run, system) for run in runs for system in systems}
        names = ("Score (/100), S1", "Part B S1-S7 (/100)", "median search latency, ms")
        panels = {
            name: {system: [values[(run.label, system)].get(name) for run in runs] for system in systems}
            for name in names
        }
        title = f"WMB-100K vs {sweep.key} -- judge {judge}"
        draw = partial(
            plotting.plot_sweep_curves,
            sweep.axis,
            panels,
            title=title,
            xlabel=sweep.key,
            ylabel="value",
            unit_range=False,
        )
        figures.append(Figure(f"wmb_sweep_{slug(sweep.key.split('.')[-1])}", title, draw))
    return figures
