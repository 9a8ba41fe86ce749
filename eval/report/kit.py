"""The report kit: what a benchmark's renderer needs besides its own tables -- a run's summary as typed
data (:mod:`.summary` and its :class:`~memsuite.eval.protocol.Scores`, re-exported here), percentages,
judge order, rates with their intervals, the metrics of a ranking of the whole corpus, and
:class:`Records`, a table's rows as they are built.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from memsuite.eval.analysis.stats import Interval
from memsuite.eval.protocol import JudgeScores, Scores
from memsuite.eval.report.intervals import cell_intervals, placed
from memsuite.eval.report.model import Cell, Table
from memsuite.eval.summary import Summary, SystemSummary

if TYPE_CHECKING:
    from memsuite.eval.run.folder import RunFolder

__all__ = [
    "JudgeScores",
    "Records",
    "Scores",
    "Summary",
    "SystemSummary",
    "judge_order",
    "judges_in",
    "percent",
    "percent_intervals",
    "ranking_intervals",
    "rate_intervals",
]

Key = TypeVar("Key", bound=Hashable)
Item = TypeVar("Item")


# -- helpers every renderer shares ---------------------------------------------------------------------


def percent(value: float | None) -> float | None:
    """A rate in 0..1 as a percentage (None stays None: not measured)."""
    return None if value is None else 100.0 * float(value)


def percent_intervals(found: Mapping[Key, Interval]) -> dict[Key, Interval]:
    """Intervals of rates in 0..1 as percentages."""
    return {cell: interval.scaled(100.0) for cell, interval in found.items()}


def rate_intervals(
    rows: Iterable[Item],
    value: Callable[[Item], float | None],
    cells: Callable[[Item], Iterable[Hashable]],
    **by: Callable[[Item], Hashable] | None,
) -> dict[Hashable, Interval]:
    """Each cell's rate with its interval, in percent: :func:`~.intervals.cell_intervals` (``by``: its
    ``unit`` and ``group``) x 100."""
    return percent_intervals(cell_intervals(rows, value, cells, **by))


def ranking_intervals(
    rows: Iterable[Item],
    metric: Callable[[Item, str], float | None],
    names: Sequence[str],
    unit: Callable[[Item], Hashable] | None = None,
) -> dict[str, Interval]:
    """Metric name -> interval in percent of its mean over the rows, for the metrics of a ranking of the
    whole corpus (``recall_all@10``, ``ndcg_any@5``); ``metric(row, name)`` is None where a row has none."""
    rows = list(rows)
    out: dict[str, Interval] = {}
    for name in names:
        found = rate_intervals(rows, lambda r, n=name: metric(r, n), lambda r, n=name: (n,), unit=unit)
        out.update({str(cell): interval for cell, interval in found.items()})
    return out


@dataclass
class Records:
    """A table's rows as they are built: one record per row, with the intervals and marks of its cells."""

    rows: list[dict[str, Cell]] = field(default_factory=list)
    intervals: dict[tuple[int, str], Interval] = field(default_factory=dict)
    marks: dict[tuple[int, str], str] = field(default_factory=dict)

    def add(
        self,
        record: Mapping[str, Cell],
        intervals: Mapping[str, Interval] | None = None,
        marks: Mapping[str, str] | None = None,
    ) -> None:
        """Append a row; ``intervals`` (column -> interval) are kept only on cells holding a number."""
        index = len(self.rows)
        self.intervals.update(placed(intervals or {}, index, record))
        self.marks.update({(index, column): mark for column, mark in (marks or {}).items()})
        self.rows.append(dict(record))

    def table(
        self,
        name: str,
        title: str,
        columns: Sequence[str],
        notes: Iterable[str] = (),
        formats: Mapping[str, str] | None = None,
    ) -> Table:
        """The table of these rows (:meth:`Table.from_records`)."""
        return Table.from_records(
            name, title, columns, self.rows, notes, formats, self.marks, intervals=self.intervals
        )


def judge_order(present: Iterable[str], preferred: Sequence[str]) -> list[str]:
    """The judges present, the preferred ones first in their order (most paper-like first), then the
    rest by name."""
    present = set(present)
    return [j for j in preferred if j in present] + sorted(present - set(preferred))


def judges_in(runs: Sequence[RunFolder], preferred: Sequence[str]) -> list[str]:
    """Every judge any system of the runs has scores under, in :func:`judge_order`."""
    present = {j for run in runs for s in run.systems for j in run.scores(s).judges}
    return judge_order(present, preferred)
