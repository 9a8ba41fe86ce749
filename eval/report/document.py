"""A report as a document: the runs table, one section per benchmark (its registered renderer, else
:func:`render_generic`), and the writers -- Markdown, one CSV per table, one PNG per figure."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from memsuite.eval.analysis.stats import Interval
from memsuite.eval.report.agreement import render_agreement
from memsuite.eval.report.layout import run_cell, run_column, slug
from memsuite.eval.report.model import (
    Cell,
    Report,
    ReportOptions,
    Section,
    Sweep,
    Table,
    beside_for,
    renderer_for,
)
from memsuite.eval.report.runs import RunInfo, data_source, internal_llm_label, judges_used, llm_label
from memsuite.eval.report.usage import latency_figure, usage_table
from memsuite.memory_systems.errors import ConfigError
from memsuite.memory_systems.llm import PriceTable


def _numeric_leaves(value: Any, prefix: str = "", depth: int = 3) -> dict[str, float]:
    if isinstance(value, bool):
        return {}
    if isinstance(value, int | float):
        return {prefix or "value": value}
    if isinstance(value, Mapping) and depth > 0:
        out: dict[str, float] = {}
        for key, item in value.items():
            out.update(_numeric_leaves(item, f"{prefix}.{key}" if prefix else str(key), depth - 1))
        return out
    return {}


def render_generic(runs: list[RunInfo], options: ReportOptions) -> Section:
    """A benchmark without a renderer: the numbers of its summary scores, flattened, one row per system.

    A benchmark's definition names its renderer (``BenchmarkDefinition.report``) for its own table layout
    and plots.
    """
    benchmark = runs[0].benchmark if runs else "?"
    prefix = run_column(runs, options)
    records = [
        {**run_cell(run, prefix), "system": s, **_numeric_leaves(run.scores(s))}
        for run in runs
        for s in run.systems
    ]
    columns = list(dict.fromkeys(c for r in records for c in r if c not in (*prefix, "system")))
    note = f"no report renderer is registered for {benchmark!r}: every number of its summary is shown."
    section = Section(benchmark)
    section.tables.append(
        Table.from_records(
            f"{slug(benchmark)}_scores",
            f"{benchmark} scores",
            (*prefix, "system", *columns),
            records,
            (note,),
        )
    )
    section.tables.append(
        usage_table(f"{slug(benchmark)}_usage", f"{benchmark} usage and cost", runs, options)
    )
    return section


# -- building ------------------------------------------------------------------------------------------


def runs_table(runs: Sequence[RunInfo]) -> Table:
    """Who produced what: one row per run with its LLMs, judges, data source and code revision."""
    records = [
        {
            "run": run.label,
            "benchmark": run.benchmark,
            "status": run.header.get("status"),
            "data": data_source(run),
            "answer_llm": llm_label(run.header.get("answer_llm")),
            "internal_llm": internal_llm_label(run),
            "judges": ", ".join(judges_used(run)),
            "k": run.config.get("k"),
            "embedder": (run.header.get("embedder") or {}).get("model"),
            "systems": ", ".join(run.systems),
            "units": (run.header.get("units") or {}).get("total"),
            "git_revision": run.header.get("git_revision"),
            "started_at": run.header.get("started_at"),
        }
        for run in runs
    ]
    return Table.from_records("runs", "Runs", tuple(records[0]) if records else ("run",), records)


def build_report(
    runs: Sequence[RunInfo],
    *,
    prices: PriceTable | None = None,
    sweep: Sweep | None = None,
    title: str | None = None,
    command: str | None = None,
) -> Report:
    """Tables and figures of a set of runs: one section per benchmark, in the order runs name them.

    Args:
        runs: Loaded runs (:func:`load_runs`).
        prices: Price table for costs; default the built-in one.
        sweep: The ablation these runs are the variants of (their order must match its values).
        title: Report title; default names the runs.
        command: The command that regenerates the report, printed in it.

    Returns:
        The report (nothing is written; see :func:`write_report`).

    Raises:
        ConfigError: No runs, or a sweep whose length differs from the runs'.
    """
    runs = list(runs)
    if not runs:
        raise ConfigError("a report needs at least one run folder")
    if sweep is not None and len(sweep.values) != len(runs):
        raise ConfigError(f"sweep over {sweep.key} has {len(sweep.values)} values for {len(runs)} runs")
    options = ReportOptions(prices=prices or PriceTable(), sweep=sweep)
    if sweep is not None:
        # The run column of an ablation shows the swept value itself (k = 3, filler = 32k) when it
        # is a plain value; a mapping (an LLM endpoint) shows the variant label instead.
        shown = [
            str(v) if isinstance(v, str | int | float) else label
            for v, label in zip(sweep.values, sweep.labels, strict=True)
        ]
        if len(set(shown)) == len(shown):
            runs = [replace(run, display=name) for run, name in zip(runs, shown, strict=True)]
    by_benchmark: dict[str, list[RunInfo]] = {}
    for run in runs:
        by_benchmark.setdefault(run.benchmark, []).append(run)
    sections = []
    for benchmark, group in by_benchmark.items():
        # A sweep belongs to one benchmark; with several, curves would pair unrelated runs.
        group_options = options if len(by_benchmark) == 1 else ReportOptions(prices=options.prices)
        section = (renderer_for(benchmark) or render_generic)(group, group_options)
        # A table with no rows says nothing; what it would have said belongs in its renderer's notes.
        section.tables = [table for table in section.tables if table.rows]
        if not any(figure.name.endswith("_latency") for figure in section.figures):
            latency = latency_figure(f"{slug(benchmark)}_latency", section.title, group)
            section.figures += [latency] if latency is not None else []
        sections.append(section)
    if len(by_benchmark) > 1:
        for benchmark in by_benchmark:
            beside = beside_for(benchmark)
            found = beside(runs) if beside is not None else None
            sections += [found] if found is not None else []
    judges = render_agreement(runs)
    if judges is not None:
        sections.append(judges)
    if len(by_benchmark) > 1:
        from memsuite.eval.analysis.leaderboard import leaderboard  # it reads the benchmarks' outcomes

        sections.insert(0, leaderboard(runs))
    title = title or "memsuite report: " + ", ".join(run.label for run in runs)
    return Report(title, runs, sections, command)


# -- rendering -----------------------------------------------------------------------------------------


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


def report_warnings(report: Report) -> list[str]:
    """What a reader must know before any rate (Markdown): wiring-only runs, unfinished runs, failed
    LLM calls."""
    warnings = []
    if any(run.header.get("wiring_only") for run in report.runs):
        warnings.append(
            "Runs marked *wiring only* used the embedded 135M model: they prove the pipeline end to "
            "end, not answer quality; quality numbers need a capable endpoint."
        )
    unfinished = [run.label for run in report.runs if run.header.get("status") != "complete"]
    if unfinished:
        warnings.append(
            f"Not complete (failed units or calls, stopped or interrupted): {', '.join(unfinished)}."
        )
    for run in report.runs:
        calls = run.header.get("failed_calls") or {}
        if any(calls.values()) or run.header.get("stop_reason"):
            warnings.append(
                f"**{run.label} had failed LLM calls**: {calls.get('answer', 0)} answer, "
                f"{calls.get('judge', 0)} judge. Their rows are left out of every rate (`n_failed` in "
                "summary.json counts them), so rates cover fewer questions than the run asked."
                + (f" Stopped early: {run.header['stop_reason']}" if run.header.get("stop_reason") else "")
            )
    return warnings


def report_markdown(report: Report, figures: Mapping[str, str] | None = None) -> str:
    """The report as one Markdown document.

    Args:
        report: The report.
        figures: Figure name -> PNG file name (relative to the document) of the figures drawn;
            figures not listed are left out.
    """
    figures = figures or {}
    parts = [f"# {report.title}"]
    if report.command:
        parts.append(f"Regenerate with `{report.command}`.")
    runs = runs_table(report.runs)
    parts.append(f"## {runs.title}\n\n{table_markdown(runs)}")
    warnings = report_warnings(report)
    if warnings:
        # First thing after the title: a reader must not take rates of a failing run at face value.
        parts.insert(1, "\n".join(f"> {w}" for w in warnings))
    for section in report.sections:
        parts.append(f"## {section.title}")
        parts += [note for note in section.notes]
        for table in section.tables:
            listing = f"{len(table.rows)} rows in `{table.name}.csv`."
            body = listing if table.csv_only else table_markdown(table)
            parts.append(f"### {table.title}\n\n{body}")
        for figure in section.figures:
            if figure.name in figures:
                parts.append(f"![{figure.title}]({figures[figure.name]})")
    return "\n\n".join(parts) + "\n"


def write_report(report: Report, out_dir: Path | str, *, plots: bool = True, page: bool = True) -> list[Path]:
    """Write ``report.md``, one CSV per table, (unless ``plots`` is False) one PNG per figure and
    (unless ``page`` is False) the web page ``index.html`` with its folders (:mod:`.html`).

    Args:
        report: The report.
        out_dir: Folder to write into (created).
        plots: Draw the figures.
        page: Write the web page.

    Returns:
        The files written, ``report.md`` first (then ``index.html`` when written).
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    tables = [runs_table(report.runs)] + [t for s in report.sections for t in s.tables]
    for table in tables:
        path = out_dir / f"{table.name}.csv"
        path.write_text(table_csv(table), encoding="utf-8")
        written.append(path)
    drawn: dict[str, str] = {}
    if plots:
        for section in report.sections:
            for figure in section.figures:
                path = figure.draw(out_dir / f"{figure.name}.png")
                drawn[figure.name] = path.name
                written.append(path)
    markdown = out_dir / "report.md"
    markdown.write_text(report_markdown(report, drawn), encoding="utf-8")
    if not page:
        return [markdown, *written]
    from memsuite.eval.report.html import write_page  # it builds on this module

    return [markdown, write_page(report, out_dir, drawn), *written]
