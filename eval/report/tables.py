"""A table as text: Markdown (numbers right-aligned, intervals and marks in the cell) and CSV (full
precision, an interval as three columns of its own). The report's Markdown and its page share them."""

from __future__ import annotations

import csv
import io
import math

from memsuite.eval.analysis.stats import Interval
from memsuite.eval.report.model import Cell, Table


def float_format(column: str, table: Table) -> str:
    """The format spec of a float in ``column``: the table's own, else by the column's name."""
    if column in table.formats:
        return table.formats[column]
    if "usd" in column:
        return ".4f"
    if column.endswith("_ms") or column.endswith(" ms"):
        return ".0f"
    return ".2f"


def format_cell(value: Cell, spec: str = ".2f") -> str:
    """A cell as Markdown text: None -> "–", floats with ``spec``, ints with thousands separators."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return format(value, spec)
    return str(value).replace("|", "\\|").replace("\n", " ")


def interval_text(interval: Interval | None, spec: str = ".2f") -> str:
    """The Markdown tail of a cell with an interval: " [lo, hi] n=N", plus a too-small mark."""
    if interval is None:
        return ""
    text = f" [{format(interval.lo, spec)}, {format(interval.hi, spec)}] n={interval.n}"
    return text + (" (too small to read)" if interval.too_small else "")


def table_markdown(table: Table) -> str:
    """A GitHub-flavoured Markdown table, numbers right-aligned, followed by its notes."""
    numeric = [
        any(isinstance(row[i], int | float) and not isinstance(row[i], bool) for row in table.rows)
        for i in range(len(table.columns))
    ]
    lines = [
        "| " + " | ".join(format_cell(c) for c in table.columns) + " |",
        "|" + "|".join("---:" if is_num else "---" for is_num in numeric) + "|",
    ]
    for index, row in enumerate(table.rows):
        cells = [
            format_cell(v, float_format(c, table))
            + interval_text(table.intervals.get((index, c)), float_format(c, table))
            + format_cell(table.marks.get((index, c), ""))
            for c, v in zip(table.columns, row, strict=True)
        ]
        lines.append("| " + " | ".join(cells) + " |")
    if not table.rows:
        lines.append("| " + " | ".join("" for _ in table.columns) + " |")
    text = "\n".join(lines)
    if table.notes:
        text += "\n\n" + "\n".join(f"- {note}" for note in table.notes)
    return text


def table_csv(table: Table) -> str:
    """The table as CSV: full-precision numbers (6 significant digits), empty cells for None."""
    with_interval = {column for _, column in table.intervals}
    header: list[str] = []
    for column in table.columns:
        extra = (f"{column} lo", f"{column} hi", f"{column} n") if column in with_interval else ()
        header += [column, *extra]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    for index, row in enumerate(table.rows):
        cells: list[Cell] = []
        for column, value in zip(table.columns, row, strict=True):
            cells.append(value)
            if column in with_interval:
                interval = table.intervals.get((index, column))
                cells += [interval.lo, interval.hi, interval.n] if interval else [None, None, None]
        writer.writerow(["" if v is None else format(v, ".6g") if isinstance(v, float) else v for v in cells])
    return out.getvalue()
