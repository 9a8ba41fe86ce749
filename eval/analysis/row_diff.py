"""Do two runs hold the same rows? Rows of two run folders matched by (system, unit, question) and compared
without their timing fields, so a refactor, an upgrade or another machine can be shown to change no
result (``perf/compare_rows.py`` is the command line).

Timing fields differ on every run and are left out: every ``usage`` key ending in ``_ms`` or ``_s``
(retrieve_ms, latency_ms, wall_s ...) plus any dotted path the caller names.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

#: ``usage`` keys with these endings are timings: never equal across runs.
TIMING_SUFFIXES = ("_ms", "_s")

Key = tuple[str, str, str]


def read_rows(run_dir: Path) -> list[dict[str, Any]]:
    """The rows of a run folder as JSON objects (raises FileNotFoundError naming the folder)."""
    path = Path(run_dir) / "rows.jsonl"
    if not path.exists():
        raise FileNotFoundError(f"{run_dir}: no rows.jsonl (not a run folder, or no unit finished)")
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def comparable(row: Mapping[str, Any], ignore: Iterable[str] = ()) -> dict[str, Any]:
    """A row without its timing fields and the ``ignore`` dotted paths."""
    out = json.loads(json.dumps(row))  # a deep copy
    usage = out.get("usage")
    if isinstance(usage, dict):
        for key in [k for k in usage if k.endswith(TIMING_SUFFIXES)]:
            del usage[key]
    for path in ignore:
        *parents, last = path.split(".")
        node: Any = out
        for part in parents:
            node = node.get(part) if isinstance(node, dict) else None
        if isinstance(node, dict):
            node.pop(last, None)
    return out


def _key(row: Mapping[str, Any]) -> Key:
    return str(row.get("system")), str(row.get("unit_id")), str(row.get("question_id"))


def _differing_fields(a: Any, b: Any, prefix: str = "") -> list[str]:
    """Dotted paths where two JSON values differ (down to the first level that is not an object)."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for key in list(dict.fromkeys([*a, *b])):
            out += _differing_fields(a.get(key), b.get(key), f"{prefix}.{key}" if prefix else key)
        return out
    return [] if a == b else [prefix or "(row)"]


def diff_rows(
    before: Sequence[Mapping[str, Any]], after: Sequence[Mapping[str, Any]], ignore: Iterable[str] = ()
) -> dict[str, Any]:
    """Match rows by (system, unit, question) and compare them without timings.

    Returns:
        ``{"rows": (n_before, n_after), "only_before": [...], "only_after": [...],
        "different": {key: [fields]}, "duplicates": [...]}`` -- identical when all lists are empty.
    """
    ignore = list(ignore)
    a = {}
    b = {}
    duplicates = []
    for rows, side in ((before, a), (after, b)):
        for row in rows:
            key = _key(row)
            if key in side:
                duplicates.append(key)
            side[key] = comparable(row, ignore)
    different = {k: _differing_fields(a[k], b[k]) for k in a.keys() & b.keys() if a[k] != b[k]}
    return {
        "rows": (len(before), len(after)),
        "only_before": sorted(a.keys() - b.keys()),
        "only_after": sorted(b.keys() - a.keys()),
        "different": dict(sorted(different.items())),
        "duplicates": sorted(set(duplicates)),
    }


def identical(result: Mapping[str, Any]) -> bool:
    """Whether :func:`diff_rows` found no difference."""
    return not any(result[k] for k in ("only_before", "only_after", "different", "duplicates"))
