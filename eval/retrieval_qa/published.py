"""A benchmark's published answer scores as a report table: its rows as the paper prints them, with
the note saying how their protocol differs from a run's."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from memsuite.eval.report.model import Section, Table


def add_published(
    section: Section,
    name: str,
    title: str,
    columns: Sequence[str],
    records: Iterable[Mapping[str, Any]],
    notes: Sequence[str],
    percent: Sequence[str],
    *,
    none: str,
) -> None:
    """Append the published table to ``section`` (``percent`` columns to one decimal); without
    published rows, the note ``none`` instead (a report drops a table without rows, notes and all)."""
    table = Table.from_records(
        name, title, tuple(columns), list(records), tuple(notes), {c: ".1f" for c in percent}
    )
    section.tables.append(table)
    if not table.rows:
        section.notes.append(none)
