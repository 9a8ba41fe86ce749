"""Finished run folders written directly (no runner, no model) for report tests, and table lookups."""

from __future__ import annotations

import csv
import io
import re

from memsuite.eval.protocol import Row
from memsuite.eval.report.model import Report, Table
from memsuite.eval.run.folder import RunFolder, UnitRecord


def write_run(path, *, benchmark: str, rows: list[Row], scores: dict, header: dict | None = None, usage=None):
    """A finished run folder written directly: header, rows, one done unit per (system, unit id), summary
    (every system of the rows, in first-seen order, with the same scores and usage)."""
    folder = RunFolder(path)
    systems = list(dict.fromkeys(r.system for r in rows))
    units = sorted({r.unit_id for r in rows})
    base = {
        "status": "complete",
        "config": {
            "benchmark": benchmark,
            "systems": [{"name": system, "label": "", "args": {}} for system in systems],
            "k": 5,
            "judges": ["rule"],
            "answer_llm": None,
            "internal_llm": None,
            "benchmark_options": {},
        },
        "answer_llm": None,
        "internal_llm": None,
        "embedder": {"model": "all-MiniLM-L6-v2"},
        "units": {"total": len(units)},
    }
    folder.write_header({**base, **(header or {})})
    for system in systems:
        for unit in units:
            done = [r for r in rows if r.unit_id == unit and r.system == system]
            folder.append_unit(UnitRecord(system, unit, "done"), done)
    usage = usage or {"llm_calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "wall_s": {}}
    summary = {
        system: {"scores": scores, "usage": usage, "units": {"done": len(units), "error": 0}, "wall_s": 9.0}
        for system in systems
    }
    folder.write_summary(summary)
    return path


def table_of(report: Report, name: str) -> Table:
    """The report's table named ``name`` (its CSV stem)."""
    return next(t for s in report.sections for t in s.tables if t.name == name)


def csv_rows(path) -> list[dict[str, str]]:
    """A written CSV as one dict per row."""
    return list(csv.DictReader(io.StringIO(path.read_text())))


def without_intervals(markdown: str) -> str:
    """Markdown with each cell's interval text (" [lo, hi] n=N", too-small mark) removed, for tests
    of the other marks on a cell."""
    return re.sub(r" \[[^\]]*\] n=\d+( \(too small to read\))?", "", markdown)
