"""Do two runs hold the same rows? Compare the ``rows.jsonl`` of two run folders, ignoring order and timing.

Use it to check that a refactor, an upgrade or another machine changes no result: run the same seeded
config twice (before / after) and compare. Rows are matched by (system, unit, question); timing fields
differ on every run and are left out: every ``usage`` key ending in ``_ms`` or ``_s`` (retrieve_ms,
latency_ms, wall_s ...) plus any ``--ignore`` dotted path. Rows that differ are listed with the first
fields that differ (the comparison itself: :mod:`memsuite.eval.analysis.row_diff`).

    .venv/bin/python perf/compare_rows.py runs/before/meme_quick runs/after/meme_quick
    .venv/bin/python perf/compare_rows.py A B --ignore metadata.hits --show 5

Exit status: 0 identical, 1 different, 2 not a run folder.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from memsuite.eval.analysis.row_diff import diff_rows, identical, read_rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path, help="run folder (holding rows.jsonl)")
    parser.add_argument("after", type=Path, help="run folder to compare with")
    parser.add_argument("--ignore", action="append", default=[], metavar="PATH", help="dotted field to skip")
    parser.add_argument("--show", type=int, default=10, help="differing rows to list (default 10)")
    args = parser.parse_args(argv)
    try:
        result = diff_rows(read_rows(args.before), read_rows(args.after), args.ignore)
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
