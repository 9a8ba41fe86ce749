"""A report as a document: the runs table, one section per benchmark (its registered renderer, else
:func:`render_generic`), and the writers -- Markdown, one CSV per table, one PNG per figure (a table
as Markdown or CSV: :mod:`.tables`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from memsuite.eval.analysis.leaderboard import leaderboard
from memsuite.eval.definition import BenchmarkDefinition
from memsuite.eval.registry import definition
from memsuite.eval.report.agreement import render_agreement
from memsuite.eval.report.context import context_figure, like_for_like_warnings
from memsuite.eval.report.html import write_page
from memsuite.eval.report.layout import run_cell, run_column, slug
from memsuite.eval.report.model import (
    Report,
    ReportOptions,
    Section,
    Sweep,
    Table,
)
from memsuite.eval.report.runs import report_warnings, runs_table
from memsuite.eval.report.tables import table_csv, table_markdown
from memsuite.eval.report.usage import latency_figure, usage_table
from memsuite.eval.run.folder import RunFolder
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


def render_generic(runs: list[RunFolder], options: ReportOptions) -> Section:
    """A benchmark without a renderer: the numbers of its summary scores, flattened, one row per system.

    A benchmark's definition names its renderer (``BenchmarkDefinition.report``) for its own table layout
    and plots.
    """
    benchmark = runs[0].benchmark if runs else "?"
    prefix = run_column(runs, options)
    records = [
        {**run_cell(run, prefix), "system": s, **_numeric_leaves(run.scores(s).to_json())}
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


def definitions_of(runs: Sequence[RunFolder]) -> dict[str, BenchmarkDefinition]:
    """The definition of each run's benchmark, by name; a benchmark not installed here is left out (its
    runs get :func:`render_generic` and no outcomes)."""
    found: dict[str, BenchmarkDefinition] = {}
    for name in dict.fromkeys(run.benchmark for run in runs):
        try:
            found[name] = definition(name)
        except ConfigError:
            continue
    return found


def build_report(
    runs: Sequence[RunFolder],
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
    definitions = definitions_of(runs)
    # Each run reads its summary.json with its benchmark's layout.
    runs = [
        replace(run, layout=definitions[run.benchmark].scores_layout) if run.benchmark in definitions else run
        for run in runs
    ]
    by_benchmark: dict[str, list[RunFolder]] = {}
    for run in runs:
        by_benchmark.setdefault(run.benchmark, []).append(run)
    sections = []
    for benchmark, group in by_benchmark.items():
        # A sweep belongs to one benchmark; with several, curves would pair unrelated runs.
        group_options = options if len(by_benchmark) == 1 else ReportOptions(prices=options.prices)
        own = definitions.get(benchmark)
        section = (own.report if own is not None and own.report else render_generic)(group, group_options)
        # A table with no rows says nothing; what it would have said belongs in its renderer's notes.
        section.tables = [table for table in section.tables if table.rows]
        if not any(figure.name.endswith("_latency") for figure in section.figures):
            latency = latency_figure(f"{slug(benchmark)}_latency", section.title, group)
            section.figures += [latency] if latency is not None else []
        section.warnings += like_for_like_warnings(group)
        if group_options.sweep is not None:
            spec = own.outcomes if own is not None else None
            stem = f"{slug(benchmark)}_rate_against_context"
            found = context_figure(stem, section.title, group, spec, group_options.sweep)
            section.figures += [found] if found is not None else []
        sections.append(section)
    if len(by_benchmark) > 1:
        for benchmark in by_benchmark:
            own = definitions.get(benchmark)
            found = own.beside(runs) if own is not None and own.beside is not None else None
            sections += [found] if found is not None else []
    judges = render_agreement(runs, {name: d.judges for name, d in definitions.items()})
    if judges is not None:
        sections.append(judges)
    if len(by_benchmark) > 1:
        sections.insert(0, leaderboard(runs, {name: d.outcomes for name, d in definitions.items()}))
    title = title or "memsuite report: " + ", ".join(run.label for run in runs)
    return Report(title, runs, sections, command, definitions)


# -- rendering -----------------------------------------------------------------------------------------


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
        parts += [f"> **Warning:** {warning}" for warning in section.warnings]
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

    return [markdown, write_page(report, out_dir, drawn), *written]
