"""One table across benchmarks: systems as rows, each run's headline metric (named, with its judge,
95 % interval and n) as a column -- the first section of a report over runs of several benchmarks."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from memsuite.eval.analysis.compare import headline
from memsuite.eval.analysis.stats import Interval
from memsuite.eval.hooks import OutcomeSpec
from memsuite.eval.report.intervals import interval_note
from memsuite.eval.report.layout import ordered_systems
from memsuite.eval.report.model import Section, Table
from memsuite.eval.run.folder import RunFolder


def leaderboard(runs: Sequence[RunFolder], specs: Mapping[str, OutcomeSpec | None]) -> Section:
    """The leaderboard section: one column per run (named by benchmark, and run when a benchmark has
    several), one row per system; a system a run lacks is a dash. ``specs``: each benchmark's
    outcomes (its definition's), by name; a benchmark absent or None has no headline."""
    per_benchmark = {run.benchmark: sum(r.benchmark == run.benchmark for r in runs) for run in runs}
    columns: list[str] = []
    cells: dict[tuple[str, str], Interval] = {}
    notes = []
    for run in runs:
        spec = specs.get(run.benchmark)
        found = {s: headline(run, s, spec=spec) for s in run.systems}
        named = next((h for h in found.values() if h is not None), None)
        if named is None:
            notes.append(f"{run.label} ({run.benchmark}): no headline metric (no per-question outcomes).")
            continue
        column = f"{run.benchmark}: {named.name} [{named.judge}]"
        if per_benchmark[run.benchmark] > 1:
            column += f" ({run.label})"
        columns.append(column)
        cells.update({(s, column): h.interval for s, h in found.items() if h is not None})
        assert spec is not None  # a headline was found
        notes.append(f"{column}: {interval_note(spec.unit).split(' -- ')[0].rstrip('.')}.")
    systems = ordered_systems(runs)
    records = [{"system": s, **{c: cells[(s, c)].value for c in columns if (s, c) in cells}} for s in systems]
    intervals = {(i, c): cells[(s, c)] for i, s in enumerate(systems) for c in columns if (s, c) in cells}
    notes.append(
        "Each column is its benchmark's headline rate (0..1) under the judge in brackets, the same "
        "judge for every system of that run; rates of different benchmarks measure different things "
        "and are not comparable across columns."
    )
    section = Section("Leaderboard")
    section.tables.append(
        Table.from_records(
            "leaderboard",
            "Leaderboard: headline metric per benchmark",
            ("system", *columns),
            records,
            notes,
            intervals=intervals,
        )
    )
    return section
