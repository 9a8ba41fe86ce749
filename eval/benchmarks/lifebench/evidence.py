"""LifeBench's evidence rule: which records a question cites, and which of them it may be scored on.

An evidence entry ``{type, id}`` cites every record of ``phone_data/<type>.json`` whose ``phone_id``
equals ``id``, both read as strings. An entry is *dangling* (counted per entry, never scored) when it
is not such a mapping, carries an ``error`` field, lacks ``type`` or ``id``, names a type whose file
is absent, or an id no record of that type has. Of the cited ids (``type:phone_id``, each once, in
citation order), an id is *relevant* when one of its records lies on or before the question's day
(a timeless record always does), and *future* when every one is later: the memory cannot hold it
yet, so it is listed and counted but not scored. A question with no relevant id is unscored.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from memsuite.eval.benchmarks.lifebench.clock import TIMELESS
from memsuite.eval.benchmarks.lifebench.schema import Dangling, Record


@dataclass(frozen=True)
class Resolved:
    """A question's evidence under the rule (module docstring)."""

    relevant: tuple[str, ...]
    future: tuple[str, ...]
    dangling: tuple[Dangling, ...]
    relevant_days: tuple[str, ...]


def index_records(records: Iterable[Record]) -> dict[tuple[str, str], list[Record]]:
    """``(type, phone_id)`` -> every record with it, in file order."""
    found: dict[tuple[str, str], list[Record]] = {}
    for record in records:
        found.setdefault((record.type, record.phone_id), []).append(record)
    return found


def _shown(entry: Any) -> str:
    return json.dumps(entry, ensure_ascii=False, default=str)[:80]


def resolve(
    evidence: Sequence[Any],
    held: Mapping[tuple[str, str], list[Record]],
    present: Iterable[str],
    asked: str,
) -> Resolved:
    """The question's evidence under the rule (module docstring).

    Args:
        evidence: The released ``evidence`` list.
        held: :func:`index_records` of the user's records.
        present: The record types whose file the user's folder holds.
        asked: The question's day, ``YYYY-MM-DD``.
    """
    present = set(present)
    cited: dict[str, list[Record]] = {}
    dangling = []
    for entry in evidence:
        if not isinstance(entry, dict):
            dangling.append(Dangling(_shown(entry), "not an object"))
            continue
        if "error" in entry:
            dangling.append(Dangling(_shown(entry), "error field"))
            continue
        if entry.get("type") is None or entry.get("id") is None:
            dangling.append(Dangling(_shown(entry), "no type or id"))
            continue
        kind, ident = str(entry["type"]), str(entry["id"])
        key = f"{kind}:{ident}"
        if kind not in present:
            dangling.append(Dangling(key, "file absent"))
            continue
        records = held.get((kind, ident))
        if not records:
            dangling.append(Dangling(key, "no such id"))
            continue
        cited.setdefault(key, records)
    relevant, future, days = [], [], {}
    for key, records in cited.items():
        in_time = [r for r in records if r.day is None or r.day <= asked]
        if in_time:
            relevant.append(key)
            days.update(dict.fromkeys(r.day or TIMELESS for r in in_time))
        else:
            future.append(key)
    return Resolved(tuple(relevant), tuple(future), tuple(dangling), tuple(days))
