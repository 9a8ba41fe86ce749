"""Building blocks of benchmark renderers: the run column, system order, series names, file-name
slugs, and the failure-stage table and figures that every benchmark with stage attribution shares."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

from memsuite.eval.analysis import plots as plotting
from memsuite.eval.analysis.diagnostics import OUTCOMES as STAGE_OUTCOMES
from memsuite.eval.analysis.diagnostics import StageCell
from memsuite.eval.analysis.stats import Interval
from memsuite.eval.report.intervals import interval_note
from memsuite.eval.report.model import Cell, Figure, ReportOptions, Table
from memsuite.eval.report.runs import RunInfo


def run_column(runs: Sequence[RunInfo], options: ReportOptions) -> tuple[str, ...]:
    """The leading column naming the run: the swept key for an ablation, "run" for several runs."""
    if options.sweep is not None:
        return (options.sweep.key.split(".")[-1],)
    return ("run",) if len(runs) > 1 else ()


def run_cell(run: RunInfo, prefix: tuple[str, ...]) -> dict[str, Cell]:
    """The run column's cell of a record (nothing when the table has no run column)."""
    return {prefix[0]: run.name} if prefix else {}


def ordered_systems(runs: Sequence[RunInfo]) -> list[str]:
    """System labels of all runs, in first-seen order."""
    systems: list[str] = []
    for run in runs:
        systems += [s for s in run.systems if s not in systems]
    return systems


def series_name(run: RunInfo, system: str, runs: Sequence[RunInfo]) -> str:
    """A curve's or box's name: the system, prefixed by the run when a report has several."""
    return system if len(runs) == 1 else f"{run.label} / {system}"


def has_number(series: Mapping[str, Sequence[Cell]]) -> bool:
    """Whether any series holds a number (a panel of dashes only is left out)."""
    return any(isinstance(v, int | float) for values in series.values() for v in values)


def slug(text: str) -> str:
    """A file-name-safe form of a label."""
    return "".join(c if c.isalnum() or c in "-._" else "_" for c in str(text)).strip("_") or "x"


def stage_table(
    name: str,
    title: str,
    runs: Sequence[RunInfo],
    prefix: tuple[str, ...],
    cells_of: Callable[[RunInfo], Sequence[StageCell]],
    column: str,
    notes: Sequence[str],
    unit: str,
    counted: str,
) -> Table | None:
    """A failure-stage table: one row per (run, system, ``column``) cell, shares per outcome with
    their intervals.

    Args:
        name: CSV stem.
        title: Heading.
        runs: The runs.
        prefix: The run column (:func:`run_column`).
        cells_of: A run's stage cells (the benchmark's attribution, aggregated).
        column: Name of the cells' task column (``task``, ``category``).
        notes: Lines under the table.
        unit: What the cells' intervals resample (``episode``, ``user``), for their note.
        counted: What a cell's n counts (``questions``, ``state keys``), for their note.

    Returns:
        The table, or None when no run has a cell.
    """
    records: list[dict[str, Any]] = []
    intervals: dict[tuple[int, str], Interval] = {}
    for run in runs:
        for cell in cells_of(run):
            intervals.update({(len(records), o): i for o, i in cell.intervals.items()})
            records.append(
                {
                    **run_cell(run, prefix),
                    "system": cell.system,
                    column: cell.task,
                    "n": cell.n,
                    **cell.shares,
                    "answer_judge": cell.answer_judge or "none",
                }
            )
    if not records:
        return None
    columns = (*prefix, "system", column, "n", *STAGE_OUTCOMES, "answer_judge")
    notes = (*notes, interval_note(unit, counted))
    return Table.from_records(name, title, columns, records, notes, intervals=intervals)


def stage_figures(
    runs: Sequence[RunInfo],
    table: Table,
    prefix: tuple[str, ...],
    benchmark: str,
    tasks: Sequence[str],
    column: str,
) -> list[Figure]:
    """One stacked-bar figure per run, from a stage table's rows (``column``: its task or category)."""
    figures = []
    stem_base = f"{slug(benchmark.lower())}_failure_stages"
    for run in runs:
        shares: dict[str, dict[str, dict[str, float]]] = defaultdict(dict)
        judges = set()
        for row in table.rows:
            record = dict(zip(table.columns, row, strict=True))
            if prefix and record.get(prefix[0]) != run.name:
                continue
            shares[str(record["system"])][str(record[column])] = {o: record[o] for o in STAGE_OUTCOMES}
            judges.add(record["answer_judge"])
        if not shares:
            continue
        stem = stem_base if len(runs) == 1 else f"{stem_base}_{slug(run.label)}"
        answered = "/".join(sorted(judges)) if judges != {"none"} else "no answer LLM (up to retrieval)"
        title = f"{benchmark} failure stages -- {run.label}, answered by: {answered}"
        draw = partial(plotting.plot_failure_stages, dict(shares), tasks, STAGE_OUTCOMES, title=title)
        figures.append(Figure(stem, title, draw))
    return figures
