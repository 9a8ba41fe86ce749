"""Writing the page: ``index.html`` rendered from its Jinja2 template, the static assets and libraries
copied beside it, and the question data as script files.

Everything the page needs lies in ``index_files/`` next to ``index.html``: a browser opening it from
``file://`` may not ``fetch`` local JSON, so data arrive as scripts that hand their payload to
``MEMSUITE.chunk(name, payload)``. The question index, the details and the retrieved contexts are
gzip-compressed JSON in base64 (the browser inflates them with ``DecompressionStream``), in chunks:
the index in :data:`INDEX_CHUNK` rows, loaded when the question browser first opens; the details in
:data:`DETAILS_CHUNK` rows, loaded when one of their questions is opened; the contexts in chunks of
about :data:`CONTEXT_CHUNK_CHARS` characters, loaded with an opened question's details and read one
chunk at a time by the free-text filter (which keeps none of them). The overview needs none of them,
so it opens at once however many rows the runs have. Compression is deterministic (no time stamp),
so a page rewritten from the same runs is byte-identical.
"""

from __future__ import annotations

import base64
import gzip
import json
import shutil
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2

from memsuite.eval.report.html.overview import runs_view, section_views, warnings
from memsuite.eval.report.html.paired import mcnemar_table, series
from memsuite.eval.report.html.questions import INDEX_FIELDS, QuestionData, question_data
from memsuite.eval.report.model import Report

#: The folder beside ``index.html`` that holds its assets and data (rewritten whole on every write).
FILES = "index_files"
#: Rows per index chunk.
INDEX_CHUNK = 10_000
#: Rows per details chunk: one opened question loads its chunk only.
DETAILS_CHUNK = 250
#: Characters of kept context per context chunk (a chunk closes before the row that would pass this).
CONTEXT_CHUNK_CHARS = 1_000_000
#: The libraries the page loads, in order (files under ``static/vendor/``; each has its LICENSE there).
LIBRARIES = (
    "chart-4.6.1.umd.min.js",
    "chartjs-chart-error-bars-4.4.5.umd.min.js",
    "sortable-tablesort-4.1.7.min.js",
)
#: The page's own scripts, in load order.
SCRIPTS = ("data.js", "charts.js", "questions.js", "app.js")


def _package() -> Any:
    return resources.files("memsuite.eval.report.html")


def _environment() -> jinja2.Environment:
    loader = jinja2.PackageLoader("memsuite.eval.report.html", "templates")
    return jinja2.Environment(loader=loader, autoescape=True, undefined=jinja2.StrictUndefined)


def _packed(payload: Any) -> str:
    raw = json.dumps(payload, ensure_ascii=False, separators=(",", ":"), default=str).encode("utf-8")
    return base64.b64encode(gzip.compress(raw, compresslevel=6, mtime=0)).decode("ascii")


def _chunk_script(name: str, payload: Any) -> str:
    return f"MEMSUITE.chunk({json.dumps(name)},{json.dumps(_packed(payload))});\n"


def _write_chunks(folder: Path, prefix: str, items: Sequence[Any], size: int) -> list[str]:
    names = []
    for start in range(0, len(items), size):
        name = f"{prefix}-{start // size:04d}"
        (folder / f"{name}.js").write_text(_chunk_script(name, items[start : start + size]), encoding="utf-8")
        names.append(name)
    return names


def _write_context_chunks(folder: Path, contexts: Sequence[list[Any]]) -> list[list[Any]]:
    """Context chunks of about :data:`CONTEXT_CHUNK_CHARS` characters; ``[name, first row]`` of each."""
    starts, size = [0], 0
    for row, (context, _) in enumerate(contexts):
        if size and size + len(context) > CONTEXT_CHUNK_CHARS:
            starts.append(row)
            size = 0
        size += len(context)
    chunks = []
    for n, (start, end) in enumerate(zip(starts, [*starts[1:], len(contexts)], strict=True)):
        if start == end:
            continue
        name = f"context-{n:04d}"
        (folder / f"{name}.js").write_text(_chunk_script(name, contexts[start:end]), encoding="utf-8")
        chunks.append([name, start])
    return chunks


def _copy_static(target: Path) -> None:
    static = _package() / "static"
    for entry in static.iterdir():
        if entry.is_dir():
            (target / entry.name).mkdir()
            for item in entry.iterdir():
                (target / entry.name / item.name).write_bytes(item.read_bytes())
        else:
            (target / entry.name).write_bytes(entry.read_bytes())


def page_meta(
    report: Report,
    data: QuestionData,
    index_chunks: list[str],
    details_chunks: list[str],
    context_chunks: list[list[Any]],
) -> dict:
    """What the scripts need before any chunk: names, chunk lists, each run's systems, the series the
    paired view offers and their McNemar tests."""
    paired = series(data, {run.label: run.systems for run in report.runs})
    return {
        "title": report.title,
        "fields": list(INDEX_FIELDS),
        "runs": data.runs,
        "systems": data.systems,
        "judges": data.judges,
        "cells": data.cells,
        "stages": data.stages,
        "rows": len(data.index),
        "index_chunks": index_chunks,
        "index_chunk": INDEX_CHUNK,
        "details_chunks": details_chunks,
        "details_chunk": DETAILS_CHUNK,
        "context_chunks": context_chunks,
        "context_cut": data.cut,
        "series": paired,
        "mcnemar": mcnemar_table(data, paired),
        "run_benchmarks": {run.label: run.benchmark for run in report.runs},
        "files": FILES,
    }


def write_page(report: Report, out_dir: Path | str, drawn: Mapping[str, str] | None = None) -> Path:
    """Write ``index.html`` and ``index_files/`` into ``out_dir``.

    Args:
        report: The report (its runs are read for every row).
        out_dir: The report folder (exists).
        drawn: Figure name -> PNG file name in ``out_dir``, for figures the page cannot draw itself.

    Returns:
        The path of ``index.html``.
    """
    out_dir = Path(out_dir)
    files = out_dir / FILES
    if files.exists():
        shutil.rmtree(files)
    (files / "data").mkdir(parents=True)
    _copy_static(files)
    data = question_data(report.runs, report.definitions)
    index_chunks = _write_chunks(files / "data", "index", data.index, INDEX_CHUNK)
    details_chunks = _write_chunks(files / "data", "details", data.details, DETAILS_CHUNK)
    context_chunks = _write_context_chunks(files / "data", data.contexts)
    sections = section_views(report, drawn or {})
    charts = {}
    for i, section in enumerate(sections):
        for j, chart in enumerate(section.charts):
            chart["id"] = f"{i}-{j}"
            charts[chart["id"]] = chart
    html = (
        _environment()
        .get_template("index.html.j2")
        .render(
            title=report.title,
            command=report.command,
            warnings=warnings(report),
            runs=runs_view(report.runs),
            sections=sections,
            meta=page_meta(report, data, index_chunks, details_chunks, context_chunks),
            charts=charts,
            files=FILES,
            libraries=LIBRARIES,
            scripts=SCRIPTS,
        )
    )
    page = out_dir / "index.html"
    page.write_text(html, encoding="utf-8")
    return page
