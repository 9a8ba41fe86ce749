"""The ``memsuite rejudge`` subcommand: its arguments and its one function (the logic is
:func:`memsuite.eval.rejudge.command.rejudge`)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import yaml

from memsuite.eval.run.stopping import say_interrupted
from memsuite.memory_systems.errors import ConfigError


def _llm_spec(text: str | None) -> Any:
    """``--judge-llm``: "local", a YAML/JSON file of an endpoint mapping, or the mapping inline."""
    if text is None:
        return None
    if text == "local":
        return text
    path = Path(text)
    raw = path.read_text(encoding="utf-8") if path.is_file() else text
    try:
        spec = yaml.safe_load(raw)
    except yaml.YAMLError as exc:
        raise ConfigError(f"--judge-llm {text!r}: not a YAML/JSON mapping ({exc})") from None
    if not isinstance(spec, dict):
        example = json.dumps({"model": "...", "base_url": "..."})
        raise ConfigError(f"--judge-llm {text!r}: expected 'local', a file or a mapping like {example}")
    return spec


def cmd_rejudge(args: argparse.Namespace) -> int:
    from memsuite.eval.rejudge.command import rejudge

    folder = rejudge(
        args.source,
        benchmark=args.benchmark,
        out_dir=args.out,
        data=args.data,
        judges=[j for j in args.judges.split(",") if j],
        judge_repeats=args.judge_repeats,
        judge_llm=_llm_spec(args.judge_llm),
        format_name=args.format,
        label=args.label,
        workers=args.workers,
        cache_dir=None if args.no_cache else args.cache_dir,
        restart=args.restart,
        show_progress=not args.quiet,
        known_wrong=args.known_wrong,
    )
    header = folder.header
    if header["status"] == "interrupted":
        return say_interrupted(
            header, args.out, sys.argv[1:] if args.argv is None else args.argv, command="rejudge"
        )
    block = header["rejudge"]
    rows = len(folder.rows())
    judges = ", ".join(block["judges"])
    print(f"rejudge {header['status']}: {args.out} ({rows} rows from {block['format']}; judges {judges})")
    return 0 if header["status"] == "complete" else 1


def add_rejudge_command(sub: argparse._SubParsersAction, *, cache_dir: Path) -> None:
    """Register ``rejudge`` on the CLI's subparsers."""
    p = sub.add_parser(
        "rejudge",
        help="judge stored answers again (a run folder or a published answer file), no system or answer LLM",
        description="Judge stored answers again into an ordinary run folder that memsuite report renders.",
    )
    p.add_argument(
        "source",
        help="a memsuite run folder or a published answer file: a path, or a fetched catalogue file"
        " by name (memsuite data list)",
    )
    p.add_argument("--benchmark", required=True, help="whose questions and judges (longmemeval, locomo)")
    p.add_argument(
        "--data", type=Path, help="the benchmark file (default: the source run's, else the shared dev file)"
    )
    p.add_argument("--out", type=Path, required=True, help="the run folder to write")
    p.add_argument("--judges", default="rule", help="comma-separated answer judges (default rule)")
    p.add_argument("--judge-repeats", type=int, default=1, help="calls per LLM judge and answer (default 1)")
    p.add_argument("--judge-llm", help="LLM for LLM judges: 'local', a YAML/JSON file, or an inline mapping")
    p.add_argument("--format", help="the source's format (default: detected)")
    p.add_argument("--label", help="system label of a published source's rows (default: the file name)")
    p.add_argument("--workers", type=int, default=1, help="units judged at once (LLM judges; default 1)")
    p.add_argument(
        "--known-wrong",
        action="store_true",
        help="every answer in SOURCE is wrong by construction: the report gives each judge's leniency",
    )
    p.add_argument("--restart", action="store_true", help="start the output folder over")
    p.add_argument("--cache-dir", type=Path, default=cache_dir, help="LLM cache root")
    p.add_argument("--no-cache", action="store_true", help="do not use the LLM response cache")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_rejudge)
