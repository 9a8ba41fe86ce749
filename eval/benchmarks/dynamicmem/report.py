"""DynamicMem's report: per-checkpoint curves (C1..Cn) of State Completion, Personalized Service and
Evidence F1, retention vs update, failure stages, usage, and plots.

Named as the report renderer by the benchmark's spec; reads only run folders.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import partial
from typing import Any

from memsuite.eval.analysis import plots as plotting
from memsuite.eval.analysis.compare import Outcome, OutcomeSpec
from memsuite.eval.analysis.diagnostics import StageCell
from memsuite.eval.analysis.stats import Interval
from memsuite.eval.benchmarks.dynamicmem import diagnostics as dynamicmem_diagnostics
from memsuite.eval.benchmarks.dynamicmem.schema import CATEGORIES as DYNAMICMEM_CATEGORIES
from memsuite.eval.benchmarks.dynamicmem.scoring import EVIDENCE_F1, keeps_events, key_outcome, user_values
from memsuite.eval.protocol import Row
from memsuite.eval.report.caveats import (
    ORACLE_NOTE,
    left_out_mark,
    left_out_note,
    oracle_roles,
    oracle_system,
)
from memsuite.eval.report.intervals import cell_intervals, interval_note
from memsuite.eval.report.kit import Records, judge_order
from memsuite.eval.report.layout import (
    has_number,
    ordered_systems,
    run_cell,
    run_column,
    series_name,
    slug,
    stage_figures,
    stage_table,
)
from memsuite.eval.report.model import Cell, Figure, ReportOptions, Section, Table
from memsuite.eval.report.runs import RunInfo
from memsuite.eval.report.usage import usage_table

#: Headline DynamicMem metrics (keys of the summary's ``curves``) and their names in tables.
DYNAMICMEM_METRICS = {
    "state_completion": "State Completion",
    "personalized_service": "Personalized Service",
    "evidence_f1": "Evidence F1 (retrieved)",
}
#: Metrics made from answers and verdicts: a failed LLM call leaves its row out of them.
DYNAMICMEM_ANSWER_METRICS = ("state_completion", "personalized_service")
#: The metric cell of the per-checkpoint row counting rows left out by failed calls.
DYNAMICMEM_LEFT_OUT = "left out (failed calls)"
LEFT_OUT_ROW_NOTE = (
    f"'{DYNAMICMEM_LEFT_OUT}': rows (state keys and service items) per checkpoint whose answer or judge "
    "call failed; they are out of State Completion and Personalized Service (Evidence F1 of the retrieved "
    "events keeps them); total = the summary's counts.n_failed."
)
DYNAMICMEM_SPLITS = ("retained", "updated", "new")
DYNAMICMEM_NOTES = (
    "a score is 0.8 core + 0.2 detail/2 per field; State Completion = mean over fields, Personalized "
    "Service = mean over items (an identity-gate failure zeroes its item); Evidence F1 = retrieved "
    "events vs gold evidence ids; per checkpoint, averaged within a user, then over users. A dash: "
    "nothing scored (State Completion and Personalized Service need an answer LLM; Evidence F1 needs a "
    "memory whose hits carry event ids, which a memory of extracted facts does not keep).",
    "published numbers: memsuite carries none for DynamicMem (arXiv 2606.22877), so no reference row.",
)


def dynamicmem_by_judge(scores: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """Judge -> DynamicMem summary (``checkpoints``, ``curves``, splits) from a system's scores.

    Reads the protocol's layout -- the rule judge's summary at the top level and the LLM judge's
    under ``llm_judge`` -- and also summaries nested under ``by_judge`` / ``judges``.
    """
    found: dict[str, Mapping[str, Any]] = {}
    if "curves" in scores:
        found[str(scores.get("judge") or "rule")] = scores
    for key, value in scores.items():
        if isinstance(value, Mapping) and "curves" in value:
            found[str(value.get("judge") or key)] = value
    for key in ("by_judge", "judges"):
        nested = scores.get(key)
        if isinstance(nested, Mapping):
            found.update({j: s for j, s in nested.items() if isinstance(s, Mapping) and "curves" in s})
    return found


def _left_out(summary: Mapping[str, Any]) -> dict[str, int]:
    """Checkpoint -> rows the summary left out because an LLM call failed (``n_failed``)."""
    return dict(zip(summary.get("checkpoints") or [], summary.get("n_failed") or [], strict=False))


def _checkpoint_key(label: str) -> tuple[int, str]:
    return (int(label[1:]), "") if label[1:].isdigit() else (10**9, label)


def _dm_curve(summary: Mapping[str, Any], checkpoints: Sequence[str], metric: str, split: str | None = None):
    """One metric per checkpoint of ``checkpoints`` (None where the summary has no value)."""
    source = summary.get(split) if split else summary.get("curves")
    values = dict(zip(summary.get("checkpoints") or [], (source or {}).get(metric) or [], strict=False))
    return [values.get(c) for c in checkpoints]


#: The per-checkpoint table's column of each metric's mean over checkpoints (the summary's ``overall``).
DYNAMICMEM_MEAN = "mean"


def dynamicmem_intervals(
    run: RunInfo, system: str, judge: str, split: str | None = None
) -> dict[tuple[str, str], Interval]:
    """(metric, checkpoint) -> interval of the curve's value, and (metric, ``mean``) -> interval of its
    mean over checkpoints, resampling users; ``split``: only the keys of that change (``retained``, ...).

    A curve averages within a user, then over users, so the bootstrap resamples the per-user means:
    n of these intervals counts users, not questions. The mean over checkpoints is the mean of the
    per-checkpoint curve values, so its resamples recompute that mean, each user's checkpoints drawn
    together; its n counts users as well.
    """
    every = run.rows(system)
    rows = [r for r in every if split is None or r.metadata.get("change") == split]
    means = [
        (metric, checkpoint, user, sum(values) / len(values))
        for (checkpoint, user), metrics in user_values(rows, judge, keeps_events(every)).items()
        for metric, values in metrics.items()
        if metric in DYNAMICMEM_METRICS and values
    ]
    curves = cell_intervals(means, lambda m: m[3], lambda m: ((m[0], m[1]),), unit=lambda m: m[2])
    overall = cell_intervals(
        means, lambda m: m[3], lambda m: ((m[0], DYNAMICMEM_MEAN),), unit=lambda m: m[2], group=lambda m: m[1]
    )
    return {**curves, **{cell: replace(i, n=i.units) for cell, i in overall.items()}}


def dynamicmem_outcomes(rows: Sequence[Row], judge: str) -> list[Outcome]:
    """Each State Completion key's value per checkpoint, resampled by user, for paired comparisons."""
    out = []
    for row in rows:
        value = key_outcome(row, judge)
        if value is not None:
            checkpoint = str(row.metadata.get("checkpoint", "?"))
            out.append(Outcome(row.unit_id, row.question_id, checkpoint, float(value)))
    return out


#: How ``memsuite compare`` counts this benchmark's questions (named by its spec).
OUTCOMES = OutcomeSpec(
    dynamicmem_outcomes,
    ("llm", "rule", EVIDENCE_F1),
    "user",
    headline="State Completion keys, pooled over checkpoints (evidence_f1: retrieved Evidence F1)",
    derived=(EVIDENCE_F1,),
)


def render_dynamicmem(runs: list[RunInfo], options: ReportOptions) -> Section:
    """DynamicMem: C1..Cn curves of State Completion and Personalized Service, retention vs update."""
    section = Section("DynamicMem")
    prefix = run_column(runs, options)
    summaries = {
        (run.label, system, judge): summary
        for run in runs
        for system in run.systems
        for judge, summary in run.system_summary(system).judges(dynamicmem_by_judge).items()
    }
    judge = next(iter(judge_order((key[2] for key in summaries), ("llm", "rule"))), None)
    usage = usage_table("dynamicmem_usage", "DynamicMem usage and cost", runs, options)
    if judge is None:
        section.notes.append("No DynamicMem curves in these runs' summaries.")
        section.tables.append(usage)
        return section
    picked = {(label, system): s for (label, system, j), s in summaries.items() if j == judge}
    checkpoints = sorted(
        {c for s in picked.values() for c in s.get("checkpoints") or []}, key=_checkpoint_key
    )
    records, split_records = Records(), Records()
    for system in ordered_systems(runs):
        for run in runs:
            summary = picked.get((run.label, system))
            if summary is None:
                continue
            head = {**run_cell(run, prefix), "system": oracle_system(run, system)}
            left_out = _left_out(summary)
            found = dynamicmem_intervals(run, system, judge)
            for metric, name in DYNAMICMEM_METRICS.items():
                curve = dict(zip(checkpoints, _dm_curve(summary, checkpoints, metric), strict=True))
                mean = (summary.get("overall") or {}).get(metric)
                intervals = {
                    c: found[(metric, c)] for c in (*checkpoints, DYNAMICMEM_MEAN) if (metric, c) in found
                }
                marks = {}
                if metric in DYNAMICMEM_ANSWER_METRICS:  # retrieved-evidence F1 needs no LLM call
                    marks = {
                        c: left_out_mark(left_out.get(c))
                        for c in checkpoints
                        if isinstance(curve[c], int | float)
                    }
                records.add({**head, "metric": name, **curve, DYNAMICMEM_MEAN: mean}, intervals, marks)
            if any(left_out.values()):
                total = (summary.get("counts") or {}).get("n_failed", sum(left_out.values()))
                counts = {c: left_out.get(c, 0) for c in checkpoints}
                records.add({**head, "metric": DYNAMICMEM_LEFT_OUT, **counts, "total": total})
            for split in DYNAMICMEM_SPLITS:
                found = dynamicmem_intervals(run, system, judge, split)
                for metric in DYNAMICMEM_METRICS:
                    values = _dm_curve(summary, checkpoints, metric, split)
                    if any(v is not None for v in values):
                        split_records.add(
                            {
                                **head,
                                "keys": split,
                                "metric": DYNAMICMEM_METRICS[metric],
                                **dict(zip(checkpoints, values, strict=True)),
                            },
                            {c: found[(metric, c)] for c in checkpoints if (metric, c) in found},
                        )
    any_left_out = any(r["metric"] == DYNAMICMEM_LEFT_OUT for r in records.rows)
    oracle_note = _oracle_note(runs)
    section.tables.append(
        records.table(
            "dynamicmem_checkpoints",
            f"DynamicMem per checkpoint -- judge: {judge}",
            (
                *prefix,
                "system",
                "metric",
                *checkpoints,
                DYNAMICMEM_MEAN,
                *(("total",) if any_left_out else ()),
            ),
            (
                f"judge: {judge}.",
                *DYNAMICMEM_NOTES,
                interval_note("user", counted="users"),
                *((*left_out_note(True), LEFT_OUT_ROW_NOTE) if any_left_out else ()),
                *oracle_note,
            ),
        )
    )
    section.tables.append(
        split_records.table(
            "dynamicmem_retention",
            f"DynamicMem retention vs update -- judge: {judge}",
            (*prefix, "system", "keys", "metric", *checkpoints),
            (
                "keys: retained = gold value unchanged since the previous checkpoint, updated = changed, "
                "new = not asked before.",
                interval_note("user", counted="users"),
                *oracle_note,
            ),
        )
    )
    stages = _dynamicmem_stage_table(runs, prefix)
    if stages is not None:
        section.tables.append(stages)
    section.tables.append(usage)
    section.figures += _dynamicmem_figures(runs, picked, judge, checkpoints, options)
    if stages is not None and options.sweep is None:  # an ablation's variants would give one figure each
        section.figures += stage_figures(
            runs, stages, prefix, "DynamicMem", DYNAMICMEM_CATEGORIES, "category"
        )
    return section


def _oracle_note(runs: Sequence[RunInfo]) -> tuple[str, ...]:
    served = any(oracle_roles(run, system) for run in runs for system in run.systems)
    return (ORACLE_NOTE,) if served else ()


DYNAMICMEM_STAGE_NOTES = (
    "Failure-stage attribution (eval/benchmarks/dynamicmem/diagnostics.py), State Completion keys over "
    "all checkpoints: share of each system's (checkpoint, state key) rows per state category whose first "
    "failing stage is encoded (no memory probe up to the checkpoint held the current value), maintained "
    "(the probe at the checkpoint lacks it), retrieved (no gold evidence event of the current value among "
    "the retrieved events), or answered (a field's core verdict failed); none = no stage failed.",
    "Holding the value: a memory or context that carries event ids (raw events, e.g. bm25, dense) holds "
    "it when one of the current value's gold evidence events is there; one without ids (LLM memories) "
    "when the rule judge accepts every field of the gold value from its text.",
    "answer_judge: the verdict behind 'answered' (llm, else rule); 'none' = the run had no answer model, "
    "so 'answered' is undecided and 'none' means the key passed up to retrieval.",
)


def _dynamicmem_stage_cells(run: RunInfo) -> list[StageCell]:
    rows = [row for system in run.systems for row in run.rows(system)]
    cells = dynamicmem_diagnostics.stage_table(dynamicmem_diagnostics.attribute_rows(rows, run.path))
    return [replace(cell, system=oracle_system(run, cell.system)) for cell in cells]


def _dynamicmem_stage_table(runs, prefix) -> Table | None:
    oracle_note = _oracle_note(runs)
    return stage_table(
        "dynamicmem_failure_stages",
        "DynamicMem failure stages (State Completion keys)",
        runs,
        prefix,
        _dynamicmem_stage_cells,
        "category",
        (*DYNAMICMEM_STAGE_NOTES, *oracle_note),
        "user",
        "state keys",
    )


def _dynamicmem_figures(runs, picked, judge, checkpoints, options) -> list[Figure]:
    def series(metric: str, split: str | None = None) -> dict[str, list[Cell]]:
        out = {}
        for run in runs:
            for system in run.systems:
                if (run.label, system) in picked:
                    name = oracle_system(run, series_name(run, system, runs)) + (f" {split}" if split else "")
                    out[name] = _dm_curve(picked[(run.label, system)], checkpoints, metric, split)
        return out

    panels = {name: series(m) for m, name in DYNAMICMEM_METRICS.items() if has_number(series(m))}
    # Retention vs update on the first headline metric that has values (State Completion normally).
    for metric, name in DYNAMICMEM_METRICS.items():
        split_series = {**series(metric, "retained"), **series(metric, "updated")}
        if has_number(split_series):
            panels[f"retained vs updated: {name}"] = split_series
            break
    if not panels:
        return []
    title = f"DynamicMem C1..C{len(checkpoints)} -- judge {judge}"
    draw = partial(plotting.plot_checkpoint_curves, checkpoints, panels, title=title)
    figures = [Figure("dynamicmem_checkpoints", title, draw)]
    if options.sweep is not None:
        sweep, systems = options.sweep, ordered_systems(runs)
        sweep_panels = {
            name: {
                system: [
                    (picked[(run.label, system)].get("overall") or {}).get(metric)
                    if (run.label, system) in picked
                    else None
                    for run in runs
                ]
                for system in systems
            }
            for metric, name in DYNAMICMEM_METRICS.items()
        }
        sweep_title = f"DynamicMem (mean over checkpoints) vs {sweep.key}"
        draw = partial(
            plotting.plot_sweep_curves, sweep.axis, sweep_panels, title=sweep_title, xlabel=sweep.key
        )
        figures.append(Figure(f"dynamicmem_sweep_{slug(sweep.key.split('.')[-1])}", sweep_title, draw))
    return figures
