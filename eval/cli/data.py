"""``memsuite data list | fetch NAME... | verify [NAME...] | path NAME | remove NAME...``: the
catalogue's real data (:mod:`memsuite.eval.data.catalogue`) fetched, verified and cached by name
(:mod:`memsuite.eval.data.cache`).

Exit codes: 0 done; 1 a file failed its hash (deleted) or a download failed; 2 an unknown name, or a
file that cannot be reached (the message names the URL, the expected hash and where to place a copy
fetched elsewhere).
"""

from __future__ import annotations

import argparse
import sys

from memsuite.eval.data import cache as data_cache
from memsuite.eval.data.catalogue import Dataset, catalogue, get_dataset
from memsuite.memory_systems.errors import ConfigError


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``memsuite data`` and its verbs."""
    data = sub.add_parser(
        "data",
        help="the benchmarks' real data: list, fetch (verified by sha256), verify, path, remove",
        description=f"Data cache: ${data_cache.DATA_ENV}, else the platform's user cache folder.",
    )
    verbs = data.add_subparsers(dest="data_command", required=True)
    p = verbs.add_parser("list", help="every catalogue entry: licence, size, whether cached and verified")
    p.set_defaults(func=_cmd_list)
    p = verbs.add_parser(
        "fetch", help="download entries into the cache, each file checked against its sha256"
    )
    p.add_argument("names", nargs="+", metavar="NAME")
    p.add_argument(
        "--retries", type=int, default=2, help="retries per file after a failed download (default 2)"
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd_fetch)
    p = verbs.add_parser("verify", help="hash cached files again; a file that fails is deleted")
    p.add_argument("names", nargs="*", metavar="NAME", help="default: every entry with a cached file")
    p.set_defaults(func=_cmd_verify)
    p = verbs.add_parser("path", help="where an entry (or NAME/file) lies in the cache")
    p.add_argument("name", metavar="NAME")
    p.set_defaults(func=_cmd_path)
    p = verbs.add_parser("remove", help="delete an entry's cached files and recorded hashes")
    p.add_argument("names", nargs="+", metavar="NAME")
    p.set_defaults(func=_cmd_remove)


def _human(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1000 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    return f"{size} B"


def size_text(entry: Dataset) -> str:
    """The entry's size: exact when every file's size is known, else the catalogue's approximation."""
    if entry.size is not None:
        return _human(entry.size)
    return f"~{entry.approx_size}" if entry.approx_size else "unknown"


def _entries(names: list[str]) -> list[Dataset]:
    return [get_dataset(name) for name in names]


def _cmd_list(args: argparse.Namespace) -> int:
    rows = [("name", "licence", "size", "files", "cache", "what")]
    for entry in catalogue().values():
        files = str(len(entry.files))
        rows.append(
            (entry.name, entry.licence, size_text(entry), files, data_cache.status(entry), entry.description)
        )
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=False)) + "  " + row[5])
    print(f"\ncache: {data_cache.data_home()}  (set ${data_cache.DATA_ENV} to move it)")
    return 0


def _cmd_fetch(args: argparse.Namespace) -> int:
    try:
        entries = _entries(args.names)
    except ConfigError as exc:
        print(f"memsuite: error: {exc}", file=sys.stderr)
        return 2
    for entry in entries:
        try:
            states = data_cache.fetch(entry, retries=args.retries, progress=not args.quiet)
        except data_cache.DataUnavailable as exc:
            print(f"memsuite: error: {entry.name}: {exc}", file=sys.stderr)
            return 2
        except (data_cache.DataMismatch, data_cache.DataFetchError) as exc:
            print(f"memsuite: error: {entry.name}: {exc}", file=sys.stderr)
            return 1
        counts = {
            s: sum(1 for state in states if state.status == s) for s in ("fetched", "recorded", "verified")
        }
        said = ", ".join(
            f"{n} {label}"
            for n, label in (
                (counts["fetched"], "fetched and verified"),
                (counts["recorded"], "fetched, hash recorded in the lock file"),
                (counts["verified"], "already cached and verified"),
            )
            if n
        )
        print(f"{entry.name}: {said} -> {data_cache.entry_path(entry)}")
    return 0


def _cmd_verify(args: argparse.Namespace) -> int:
    try:
        entries = (
            _entries(args.names)
            if args.names
            else [e for e in catalogue().values() if data_cache.status(e) != "not fetched"]
        )
    except ConfigError as exc:
        print(f"memsuite: error: {exc}", file=sys.stderr)
        return 2
    failed = False
    for entry in entries:
        states = data_cache.verify(entry)
        for state in states:
            if state.status == "mismatch":
                failed = True
                print(
                    f"{entry.name}: {state.path}: sha256 mismatch, deleted\n"
                    f"  expected sha256: {state.expected}\n  actual sha256:   {state.actual}",
                    file=sys.stderr,
                )
            elif state.status == "recorded":
                print(f"{entry.name}: {state.path}: no hash was known; recorded {state.actual}")
        missing = [s for s in states if s.status == "missing"]
        if missing:
            failed = failed or bool(args.names)
            print(
                f"{entry.name}: {len(missing)} of {len(states)} file(s) not fetched "
                f"(e.g. {missing[0].path}); memsuite data fetch {entry.name}",
                file=sys.stderr,
            )
        good = sum(1 for s in states if s.status in ("verified", "recorded"))
        print(f"{entry.name}: {good} of {len(states)} file(s) verified")
    if not entries:
        print("nothing cached yet: memsuite data list")
    return 1 if failed else 0


def _cmd_path(args: argparse.Namespace) -> int:
    from memsuite.eval.data.catalogue import split_name

    found = split_name(args.name)
    if found is None:
        print(f"memsuite: error: {get_dataset(args.name.partition('/')[0])}", file=sys.stderr)  # raises
        return 2
    entry, path = found
    print(data_cache.entry_path(entry, path))
    wanted = [entry.file(path)] if path is not None else list(entry.files)
    if any(not data_cache.file_path(entry, f).is_file() for f in wanted):
        print(f"memsuite: {args.name} is not fetched: memsuite data fetch {entry.name}", file=sys.stderr)
        return 1
    return 0


def _cmd_remove(args: argparse.Namespace) -> int:
    for entry in _entries(args.names):
        removed = data_cache.remove(entry)
        print(f"{entry.name}: {removed} file(s) deleted")
    return 0
