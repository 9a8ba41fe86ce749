"""The overview of a report as the page template reads it: the runs with what stands behind them, and
each section's tables (cells formatted as the Markdown report formats them, with their sort keys and
their intervals placed on a 0..1 track) and charts.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from memsuite.eval.report.html.charts import chart_spec
from memsuite.eval.report.model import Report, Table
from memsuite.eval.report.runs import report_warnings, runs_table
from memsuite.eval.report.tables import float_format, format_cell
from memsuite.eval.run.folder import RunFolder

#: Rows of a CSV-only listing (judge disagreements) the page shows; the CSV beside it has them all.
LISTING_ROWS = 500
#: Columns of a table that name a question, so a listing's rows link to their details.
_QUESTION_COLUMNS = ("unit_id", "question_id")


@dataclass
class Cell:
    """One table cell as the page shows it."""

    text: str
    """As in the Markdown report (without the interval, which ``interval`` draws)."""
    sort: str | float
    """What the column sorts by: the number itself, else the text."""
    numeric: bool = False
    interval: dict[str, Any] | None = None
    """``lo``, ``hi``, ``value``, ``n`` and their positions (``lo_pct``, ``hi_pct``, ``value_pct``) on
    the column's scale, and ``label`` for hovering; None when the cell has no interval."""
    mark: str = ""
    """A caveat appended to the cell ("(2 left out)", "†")."""


@dataclass
class TableView:
    """A table as the page renders it."""

    name: str
    title: str
    columns: list[str]
    rows: list[list[Cell]]
    notes: list[str]
    question_links: list[str | None] = field(default_factory=list)
    """Per row, ``unit/question`` when the table names a question (a listing of rows), else None."""
    shown_of: int | None = None
    """Set when only the first rows of a long listing are shown: how many it has."""


@dataclass
class SectionView:
    title: str
    notes: list[str]
    tables: list[TableView]
    charts: list[dict[str, Any]]
    """Chart specs (:mod:`.charts`), or ``{"kind": "image", "src": ...}`` for a figure without one."""
    judges: bool = False
    """The judge-agreement section: shown in the judge view."""
    warnings: list[str] = field(default_factory=list)
    """Shown above its tables as warnings (:attr:`~memsuite.eval.report.model.Section.warnings`)."""


def _scale(table: Table, column: str) -> float:
    """The top of a column's interval track: 1 for rates, 100 for percentages, else the largest upper end."""
    highs = [i.hi for (_, c), i in table.intervals.items() if c == column and math.isfinite(i.hi)]
    top = max(highs, default=1.0)
    return next((scale for scale in (1.0, 100.0) if top <= scale), top)


def _pct(value: float, scale: float) -> float:
    return round(100 * min(max(value / scale, 0.0), 1.0), 2)


def table_view(table: Table, limit: int | None = None) -> TableView:
    """A table's cells formatted, with sort keys and drawn intervals."""
    scales = {c: _scale(table, c) for _, c in table.intervals}
    rows, links = [], []
    shown = table.rows if limit is None else table.rows[:limit]
    for index, row in enumerate(shown):
        cells = []
        for column, value in zip(table.columns, row, strict=True):
            spec = float_format(column, table)
            numeric = isinstance(value, int | float) and not isinstance(value, bool)
            found = table.intervals.get((index, column))
            interval = None
            if found is not None:
                scale = scales[column]
                label = f"{format(found.value, spec)} [{format(found.lo, spec)}, {format(found.hi, spec)}]"
                label += f" n={found.n}" + (" (too small to read)" if found.too_small else "")
                interval = {
                    "lo_pct": _pct(found.lo, scale),
                    "hi_pct": _pct(found.hi, scale),
                    "value_pct": _pct(value if numeric else found.value, scale),
                    "label": label,
                    "n": found.n,
                    "too_small": found.too_small,
                }
            sort = float(value) if numeric and math.isfinite(value) else format_cell(value, spec)
            cells.append(
                Cell(
                    format_cell(value, spec),
                    sort,
                    numeric,
                    interval,
                    str(table.marks.get((index, column), "")),
                )
            )
        rows.append(cells)
        record = dict(zip(table.columns, row, strict=True))
        named = all(record.get(c) is not None for c in _QUESTION_COLUMNS)
        links.append(f"{record['unit_id']}/{record['question_id']}" if named else None)
    return TableView(
        table.name,
        table.title,
        list(table.columns),
        rows,
        list(table.notes),
        links,
        len(table.rows) if limit is not None and len(table.rows) > limit else None,
    )


def section_views(report: Report, drawn: Mapping[str, str]) -> list[SectionView]:
    """Each section of the report with its tables and charts (``drawn``: figure name -> PNG file)."""
    views = []
    for section in report.sections:
        tables = [table_view(t, LISTING_ROWS if t.csv_only else None) for t in section.tables]
        charts = []
        for figure in section.figures:
            spec = chart_spec(figure)
            if spec is not None:
                charts.append(spec)
            elif figure.name in drawn:
                charts.append({"kind": "image", "title": figure.title, "src": drawn[figure.name]})
        judges = section.title == "Judge agreement"
        views.append(
            SectionView(section.title, list(section.notes), tables, charts, judges, list(section.warnings))
        )
    return views


def runs_view(runs: Sequence[RunFolder]) -> TableView:
    """The runs table: data, LLMs, judges, k, embedder, revision of each run."""
    return table_view(runs_table(runs))


def warnings(report: Report) -> list[str]:
    """The report's warnings (:func:`report_warnings`) as plain text."""
    return [w.replace("**", "").replace("`", "").replace("*", "") for w in report_warnings(report)]
