"""What a report is made of: :class:`Table`, :class:`Figure`, :class:`Section`, :class:`Report` and the
options every renderer receives.

A benchmark's definition names its renderer (``BenchmarkDefinition.report``) and any section it adds
beside another benchmark's runs (``beside``); the report's entry point
(:func:`memsuite.eval.report.document.build_report`) finds the definitions of its runs' benchmarks and
keeps them in the :class:`Report`, so nothing here names a benchmark.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memsuite.eval.analysis.stats import Interval
from memsuite.eval.definition import BenchmarkDefinition
from memsuite.eval.run.folder import RunFolder
from memsuite.memory_systems.llm import PriceTable

#: A table cell: text, a count, a measurement, or None (printed as a dash: not measured).
Cell = str | int | float | None
#: Printed where a number is undefined by construction (e.g. no evidence rule for a task), as
#: opposed to None, which means nothing was measured.
NA = "n/a"


@dataclass(frozen=True)
class Table:
    """A table as plain data; :func:`table_markdown` and :func:`table_csv` render it."""

    name: str
    """File stem of its CSV (unique within a report), e.g. ``meme_main_rule``."""
    title: str
    """Heading above it in the Markdown report."""
    columns: tuple[str, ...]
    """Column names (also the CSV header)."""
    rows: tuple[tuple[Cell, ...], ...]
    """One tuple of cells per row, aligned with ``columns``."""
    notes: tuple[str, ...] = ()
    """Lines printed under it: judge, setup of the published numbers, caveats."""
    formats: Mapping[str, str] = field(default_factory=dict)
    """Column -> format spec of its floats in Markdown (default by column name, else ``.2f``)."""
    marks: Mapping[tuple[int, str], str] = field(default_factory=dict)
    """(row index, column) -> text appended to that cell in Markdown only (e.g. " (2 left out)", "†"):
    caveats on one cell, which the CSV keeps in a column of its own so its numbers stay numbers."""
    csv_only: bool = False
    """Written as its CSV only; the Markdown report names the file (a long listing)."""
    intervals: Mapping[tuple[int, str], Interval] = field(default_factory=dict)
    """(row index, column) -> the 95 % interval and n of that cell's rate, in the cell's own units:
    Markdown prints ``value [lo, hi] n=N`` (and marks a cell too small to read), CSV adds the columns
    ``<column> lo``, ``<column> hi`` and ``<column> n`` after the column."""

    @classmethod
    def from_records(
        cls,
        name: str,
        title: str,
        columns: Sequence[str],
        records: Iterable[Mapping[str, Any]],
        notes: Iterable[str] = (),
        formats: Mapping[str, str] | None = None,
        marks: Mapping[tuple[int, str], str] | None = None,
        intervals: Mapping[tuple[int, str], Interval] | None = None,
    ) -> Table:
        """A table from one mapping per row, keyed by column (a column a mapping lacks is None)."""
        rows = tuple(tuple(record.get(column) for column in columns) for record in records)
        return cls(
            name,
            title,
            tuple(columns),
            rows,
            tuple(notes),
            dict(formats or {}),
            dict(marks or {}),
            intervals=dict(intervals or {}),
        )

    def column(self, name: str) -> list[Cell]:
        """The cells of one column, top to bottom."""
        index = self.columns.index(name)
        return [row[index] for row in self.rows]


@dataclass(frozen=True)
class Figure:
    """A plot to draw: ``draw(path)`` writes the PNG (a call into :mod:`memsuite.eval.analysis.plots`)."""

    name: str
    """File stem of the PNG."""
    title: str
    """Caption in the Markdown report."""
    draw: Callable[[Path], Path]
    """Writes the figure to the given path and returns it."""


@dataclass
class Section:
    """What one benchmark contributes to a report."""

    title: str
    tables: list[Table] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    """What a reader must know before reading its tables (e.g. systems handed very different amounts of
    context): printed above them, marked so they cannot be missed."""


@dataclass(frozen=True)
class Sweep:
    """The swept key of an ablation: one value and one label per run, in run order."""

    key: str
    """Dotted config key, e.g. ``k`` or ``benchmark_options.filler``."""
    values: tuple[Any, ...]
    """The value of each run."""
    labels: tuple[str, ...]
    """The variant label of each run (its folder name)."""

    @property
    def axis(self) -> tuple[Any, ...]:
        """X positions for curves: the values when all are numbers, else the labels."""
        numeric = all(isinstance(v, int | float) and not isinstance(v, bool) for v in self.values)
        return self.values if numeric else self.labels


@dataclass(frozen=True)
class ReportOptions:
    """Settings every renderer receives."""

    prices: PriceTable = field(default_factory=PriceTable)
    """Prices of LLM tokens, USD per 1M, by model name."""
    sweep: Sweep | None = None
    """Set when the runs are the variants of one ablation."""


@dataclass
class Report:
    """A whole report: the runs it reads and one section per benchmark."""

    title: str
    runs: list[RunFolder]
    sections: list[Section]
    command: str | None = None
    """The command that regenerates it, printed at the top when given."""
    definitions: Mapping[str, BenchmarkDefinition] = field(default_factory=dict)
    """The definition of each of its runs' benchmarks installed here, by name: the page reads their
    judges and outcomes."""
