"""Do two runs hold the same rows? Compare the ``rows.jsonl`` of two run folders, ignoring order and timing.

Use it to check that a refactor, an upgrade or another machine changes no result: run the same seeded
config twice (before / after) and compare. Rows are matched by (system, unit, question); timing fields
differ on every run and are left out: every ``usage`` key ending in ``_ms`` or ``_s`` (retrieve_ms,
latency_ms, wall_s ...) plus any ``--ignore`` dotted path. Rows that differ are listed with the first
fields that differ.

    .venv/bin/python perf/compare_rows.py runs/before/meme_quick runs/after/meme_quick
    .venv/bin/python perf/compare_rows.py A B --ignore metadata.hits --show 5

Exit status: 0 identical, 1 different, 2 not a run folder.
"""

from __future__ import annotations

import argparse
import json
import sys
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


def compare(
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
    """Whether :func:`compare` found no difference."""
    return not any(result[k] for k in ("only_before", "only_after", "different", "duplicates"))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path, help="run folder (holding rows.jsonl)")
    parser.add_argument("after", type=Path, help="run folder to compare with")
    parser.add_argument("--ignore", action="append", default=[], metavar="PATH", help="dotted field to skip")
    parser.add_argument("--show", type=int, default=10, help="differing rows to list (default 10)")
    args = parser.parse_args(argv)
    try:
        result = compare(read_rows(args.before), read_rows(args.after), args.ignore)
    except FileNotFoundError as exc:
        print(f"compare_rows: error: {exc}", file=sys.stderr)
        return 2
    n_before, n_after = result["rows"]
    if identical(result):
        print(f"identical: {n_before} rows (timing fields ignored)")
        return 0
    print(f"different: {n_before} rows before, {n_after} after")
    for label in ("only_before", "only_after", "duplicates"):
        if result[label]:
            print(f"  {label}: {len(result[label])}, e.g. {result[label][: args.show]}")
    if result["different"]:
        print(f"  rows that differ: {len(result['different'])}")
        for key, fields in list(result["different"].items())[: args.show]:
            print(f"    {'/'.join(key)}: {', '.join(fields[:5])}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
