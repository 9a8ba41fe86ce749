"""Intervals on a report's rates: per-cell bootstrap intervals from rows, and the note that says how
they were made (which unit was resampled, the seed, the too-small threshold).

A renderer passes the value of each row (1.0 / 0.0 for a verdict, a score, None when the row is left
out of the rate, exactly as the benchmark's scores leave it out) and the cell each row belongs to;
:func:`cell_intervals` returns one :class:`~memsuite.eval.analysis.stats.Interval` per cell, to put in
:attr:`~memsuite.eval.report.model.Table.intervals`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import Any, TypeVar

from memsuite.eval.analysis.stats import (
    LEVEL,
    MIN_N,
    MIN_UNITS,
    RESAMPLES,
    SEED,
    Interval,
    bootstrap_interval,
)

#: What a cell's values come from: a row, or a benchmark's per-question outcome.
Item = TypeVar("Item")


def cell_intervals(
    rows: Iterable[Item],
    value: Callable[[Item], float | None],
    cells: Callable[[Item], Iterable[Hashable]],
    unit: Callable[[Item], Hashable] | None = None,
    group: Callable[[Item], Hashable] | None = None,
) -> dict[Hashable, Interval]:
    """The interval of each cell's mean value.

    Args:
        rows: Rows of one system in one run (or per-question outcomes derived from them).
        value: A row's value, None to leave it out of every cell.
        cells: The cells a row counts in (its category, and "overall" when it counts there too).
        unit: A row's resampling unit; default each row its own (a bootstrap over questions).
        group: A row's group, when a cell's rate is the mean of per-group means (MEME's Overall).
    """
    found: dict[Hashable, list[tuple[float, Hashable, Hashable]]] = defaultdict(list)
    for index, row in enumerate(rows):
        x = value(row)
        if x is None:
            continue
        u = unit(row) if unit is not None else index
        g = group(row) if group is not None else 0
        for cell in cells(row):
            found[cell].append((float(x), u, g))
    out = {}
    for cell, triples in found.items():
        values, units, groups = zip(*triples, strict=True)
        interval = bootstrap_interval(values, units, groups if group is not None else None)
        if interval is not None:
            out[cell] = interval
    return out


def placed(
    found: Mapping[str, Interval], index: int, record: Mapping[str, Any]
) -> dict[tuple[int, str], Interval]:
    """``found`` keyed by (row ``index``, column) for a table's
    :attr:`~memsuite.eval.report.model.Table.intervals`: only the columns of ``record`` holding a number
    (a dash or n/a cell carries no interval)."""
    return {(index, c): i for c, i in found.items() if isinstance(record.get(c), int | float)}


def interval_note(unit: str, counted: str = "questions") -> str:
    """How a table's intervals were made; ``unit`` names what was resampled ("episode", "question"),
    ``counted`` what n counts."""
    return (
        f"[lo, hi]: {LEVEL:.0%} percentile bootstrap interval ({RESAMPLES} resamples, seed {SEED}) "
        f"resampling {unit}s whole -- questions of one {unit} share a memory, so they are not "
        f"independent; n = {counted} behind the rate. A cell with n < {MIN_N} or fewer than {MIN_UNITS} "
        f"{unit}s is marked 'too small to read'. The CSV has each interval in '<column> lo' / 'hi' / 'n'."
        if unit != "question"
        else f"[lo, hi]: {LEVEL:.0%} percentile bootstrap interval ({RESAMPLES} resamples, seed {SEED}) "
        f"over questions; n = questions behind the rate. A cell with n < {MIN_N} is marked 'too small to "
        "read'. The CSV has each interval in '<column> lo' / 'hi' / 'n'."
    )
