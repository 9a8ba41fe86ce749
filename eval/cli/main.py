"""``memsuite`` command line: a thin layer over the public functions.

Each subcommand is one ``_cmd_*`` function plus its arguments in :func:`build_parser`. User mistakes
(:class:`~memsuite.memory_systems.errors.MemsuiteError`) are printed in one line with exit code 2; a config is
checked whole (schema, registries, LLM specs) before anything is loaded or started.

Exit codes: 0 clean; 1 the run finished with failed units or failed LLM calls (answer or judge), or
stopped early; 2 bad config or input; 130 / 143 interrupted by SIGINT / SIGTERM (resumable).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from memsuite.eval.cli import compare as compare_cli
from memsuite.eval.cli import show as show_cli
from memsuite.memory_systems.errors import MemsuiteError

EXIT_CODES = (
    "exit codes: 0 clean, 1 failed units or failed LLM calls (or stopped early), 2 bad config/input,"
    " 130/143 interrupted by SIGINT/SIGTERM (rerun to resume)"
)


def default_cache_dir() -> Path:
    """Cache root: ``$MEMSUITE_CACHE_DIR`` or ``~/.cache/memsuite`` (read here, at the CLI edge only)."""
    return Path(os.environ.get("MEMSUITE_CACHE_DIR") or Path.home() / ".cache" / "memsuite")


def _cmd_systems(args: argparse.Namespace) -> int:
    from memsuite.memory_systems.registry import system_names

    for name in system_names():
        print(name)
    return 0


def _cmd_benchmarks(args: argparse.Namespace) -> int:
    from memsuite.eval.registry import benchmark_names, definition
    from memsuite.memory_systems.errors import ConfigError

    for name in benchmark_names():
        try:
            found = definition(name)
        except ConfigError as exc:  # declared, but not importable in this install
            print(f"{name:12s} unavailable: {exc}")
            continue
        print(f"{name:12s} {found.description}")
        needs = [f"{j} ({', '.join(judge.needs) or 'nothing'})" for j, judge in sorted(found.judges.items())]
        print(f"{'':12s} judges (needs): {', '.join(needs) if needs else '(not declared)'}")
    return 0


def _version() -> str:
    """``memsuite-bench X from <folder of the memsuite package>``: which install answers, as
    ``pip --version`` does."""
    import memsuite

    return f"{memsuite.DISTRIBUTION} {memsuite.__version__} from {Path(memsuite.__file__).resolve().parent}"


class _VersionAction(argparse.Action):
    """``--version``, printed unwrapped (argparse's own action wraps a long install path)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the version and where it runs from")

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        print(_version())
        parser.exit()


def _cmd_demo(args: argparse.Namespace) -> int:
    from memsuite.eval.registry import definitions

    demos = [found.demo for found in definitions().values() if found.demo is not None]
    if len(demos) != 1:
        raise MemsuiteError(f"one benchmark must declare the demo; {len(demos)} do")
    return demos[0](args)


def _cmd_run(args: argparse.Namespace) -> int:
    from memsuite.eval.run.config import load_config, with_systems
    from memsuite.eval.run.runner import run

    config = load_config(args.config, args.set)
    if args.systems:
        config = with_systems(config, args.systems.split(","))
    out = args.out or Path("runs") / config.name
    options = dict(
        cache_dir=None if args.no_cache else args.cache_dir,
        restart=args.restart,
        show_progress=not args.quiet,
        workers=args.workers,
        executor=args.executor,
        ray_address=args.ray_address,
        allow_config_change=args.allow_config_change,
        allow_code_change=args.allow_code_change,
    )
    if args.seeds:
        from memsuite.eval.cli.seeds import run_and_report_seeds

        return run_and_report_seeds(config, args.seeds, out, options)
    folder = run(config, out_dir=out, **options)
    header = folder.header
    if header["status"] == "interrupted":
        from memsuite.eval.run.stopping import say_interrupted

        return say_interrupted(header, out, sys.argv[1:] if args.argv is None else args.argv)
    print(run_status_line(header, out))
    if header.get("stop_reason"):
        print(f"stopped: {header['stop_reason']}")
    if header.get("wiring_only"):
        print("note: made with the embedded 135M model -- proves the wiring, not answer quality")
    return 0 if header["status"] == "complete" else 1


def run_status_line(header: dict, out: Path) -> str:
    """The final line of ``memsuite run``: status, folder, failed units and failed LLM calls."""
    calls = header.get("failed_calls") or {}
    return (
        f"run {header['status']}: {out} ({header.get('errors', 0)} failed units, "
        f"{calls.get('answer', 0)} failed answer calls, {calls.get('judge', 0)} failed judge calls)"
    )


def _cmd_llm_serve(args: argparse.Namespace) -> int:
    import signal
    import time

    from memsuite.memory_systems.llm_server import serve_local

    def _stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt  # SIGTERM stops the server as cleanly as Ctrl-C does

    signal.signal(signal.SIGTERM, _stop)
    # Ctrl-C or SIGTERM anywhere in the block, the banner included, stops the server on serve_local's exit.
    try:
        with serve_local(port=args.port, n_ctx=args.n_ctx, n_threads=args.n_threads) as server:
            print(f"base_url: {server.base_url}", flush=True)
            print(f"model: {server.model}", flush=True)
            print(
                f"n_ctx {server.n_ctx}, ready in {server.startup_s:.1f} s; a 135M model proves the wiring,"
                " not answer quality. Ctrl-C stops it.",
                flush=True,
            )
            while True:
                time.sleep(3600)
    except KeyboardInterrupt:
        pass  # serve_local has stopped the server by now
    return 0


def _cmd_llm_oracle(args: argparse.Namespace) -> int:
    from memsuite.eval.oracle.serve import serve_config

    return serve_config(args.config, port=args.port, overrides=args.overrides)


def _cmd_benchmark_command(args: argparse.Namespace) -> int:
    """A benchmark's own command (its definition's ``commands``), with the options it declared."""
    return args.benchmark_command.run(args)


def _cmd_calibrate(args: argparse.Namespace) -> int:
    """``calibrate RUN_DIR [OPTIONS]``: the calibration of the benchmark the run folder records."""
    from memsuite.eval.registry import definition
    from memsuite.eval.run.folder import load_run

    benchmark = load_run(args.run_dir).benchmark
    command = definition(benchmark).commands.get("calibrate")
    if command is None:
        raise MemsuiteError(f"{args.run_dir}: benchmark {benchmark!r} has no calibration")
    parser = argparse.ArgumentParser(prog=f"memsuite calibrate RUN_DIR ({benchmark})")
    command.add_arguments(parser)
    options = parser.parse_args(args.options)
    options.run_dir = args.run_dir
    return command.run(options)


def _prices(path: Path | None):
    from memsuite.memory_systems.llm import PriceTable

    return PriceTable.load(path) if path is not None else PriceTable()


def _cmd_report(args: argparse.Namespace) -> int:
    from memsuite.eval.report.document import build_report, write_report
    from memsuite.eval.run.folder import load_runs

    if args.out is None and len(args.run_dirs) > 1:
        print("memsuite: error: a report over several runs needs --out DIR", file=sys.stderr)
        return 2
    out = args.out or args.run_dirs[0] / "report"
    labels = args.labels.split(",") if args.labels else None
    command = " ".join(
        ["memsuite report", *map(str, args.run_dirs), *(["--out", str(args.out)] if args.out else [])]
    )
    report = build_report(load_runs(args.run_dirs, labels), prices=_prices(args.prices), command=command)
    files = write_report(report, out, plots=not args.no_plots)
    print(f"report: {files[0]} ({len(files) - 2} tables and plots in {out})")
    print(f"page: {files[1]} (open it in a browser; no server needed)")
    return 0


def _cmd_ablate(args: argparse.Namespace) -> int:
    from memsuite.eval.run.config import find_config
    from memsuite.eval.study.ablation import load_ablation, run_ablation

    ablation = load_ablation(find_config(args.config, "ablations"))
    result = run_ablation(
        ablation,
        out_dir=args.out,
        report_dir=args.report_dir,
        overrides=args.set,
        cache_dir=None if args.no_cache else args.cache_dir,
        restart=args.restart,
        allow_config_change=args.allow_config_change,
        allow_code_change=args.allow_code_change,
        show_progress=not args.quiet,
        workers=args.workers,
        executor=args.executor,
        ray_address=args.ray_address,
        prices=_prices(args.prices),
        plots=not args.no_plots,
        report_only=args.report_only,
    )
    for value, label, folder in zip(ablation.values, ablation.labels, result.runs, strict=True):
        print(f"{label} ({ablation.key} = {value}): {folder}")
    print(f"report: {result.files[0]}")
    print(f"page: {result.files[1]}")
    if result.incomplete:
        print(f"variants with failed units: {', '.join(result.incomplete)} (run again to retry them)")
    return 1 if result.incomplete else 0


def _add_cache_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--cache-dir", type=Path, default=default_cache_dir(), help="embedding/LLM cache root")
    p.add_argument("--no-cache", action="store_true", help="do not use the on-disk caches")


def _add_run_options(p: argparse.ArgumentParser, *, set_help: str, restart_help: str) -> None:
    """The options ``run`` and ``ablate`` share: overrides, restart, resuming after a change of config or
    code, and how units execute (workers, executor, caches, progress)."""
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help=set_help)
    p.add_argument("--restart", action="store_true", help=restart_help)
    p.add_argument(
        "--allow-config-change",
        action="store_true",
        help="resume run folders made with a different config (run.json records the changed keys)",
    )
    p.add_argument(
        "--allow-code-change",
        action="store_true",
        help="resume run folders whose rows other code made (memsuite's, or a system's version or source)",
    )
    p.add_argument("--workers", type=int, default=1, help="units run concurrently (default 1)")
    p.add_argument(
        "--executor",
        choices=["threads", "ray"],
        default="threads",
        help="run units as threads here (default) or as Ray tasks (extra memsuite-bench[ray])",
    )
    p.add_argument(
        "--ray-address", help="an existing Ray cluster ('auto' = the local one started by ray start)"
    )
    _add_cache_options(p)
    p.add_argument("--quiet", action="store_true", help="no progress bars")


def _add_listing_commands(sub: argparse._SubParsersAction) -> None:
    """``systems`` and ``benchmarks``: what is registered."""
    p = sub.add_parser("systems", help="list registered memory systems")
    p.set_defaults(func=_cmd_systems)

    p = sub.add_parser("benchmarks", help="list registered benchmarks and their judges")
    p.set_defaults(func=_cmd_benchmarks)


def _add_run_commands(sub: argparse._SubParsersAction) -> None:
    """``demo``, ``run`` and ``ablate``: commands that run systems over a benchmark."""
    p = sub.add_parser("demo", help="the suite end to end on the embedded defaults (configs/demo.yaml)")
    p.add_argument("--out", type=Path, default=Path("runs") / "demo", help="run folder (default runs/demo)")
    _add_cache_options(p)
    p.set_defaults(func=_cmd_demo)

    p = sub.add_parser(
        "run",
        help="run a config (systems x benchmark); resumes an unfinished run folder",
        description="Run a config (systems x benchmark); resumes an unfinished run folder.",
        epilog=EXIT_CODES,
    )
    p.add_argument(
        "config", type=Path, help="YAML run config, or the name of a shipped one (demo, meme_quick, ...)"
    )
    p.add_argument("--out", type=Path, help="run folder (default runs/<config name>)")
    p.add_argument("--systems", help="comma-separated systems, replacing the config's list")
    p.add_argument(
        "--seeds",
        type=int,
        nargs="+",
        help="run once per seed (generated data) into OUT/seed-S, then "
        "tabulate each system's headline per seed with mean and spread (OUT/seeds.md, seeds.csv)",
    )
    _add_run_options(
        p,
        set_help="override a config value, e.g. --set k=10 --set benchmark_options.episodes=3"
        " (beats the file)",
        restart_help="discard finished units in the run folder",
    )
    p.set_defaults(func=_cmd_run)

    p = sub.add_parser("ablate", help="run every variant of an ablation config, then one combined report")
    p.add_argument(
        "config", type=Path, help="ablation YAML, or the name of a shipped one (configs/ablations/)"
    )
    p.add_argument("--out", type=Path, help="root of the variants' run folders (default runs/<name>)")
    p.add_argument("--report-dir", type=Path, help="report folder (default <out>/report)")
    p.add_argument("--report-only", action="store_true", help="run nothing; report on the existing runs")
    _add_run_options(
        p,
        set_help="override a value of every variant (the swept key keeps its values)",
        restart_help="discard finished units of every variant",
    )
    p.add_argument("--prices", type=Path, help="YAML/JSON price file laid over the built-in prices")
    p.add_argument("--no-plots", action="store_true", help="tables only")
    p.set_defaults(func=_cmd_ablate)


def _add_report_commands(sub: argparse._SubParsersAction) -> None:
    """``calibrate`` and ``report``: commands that read finished run folders."""
    compare_cli.add_parser(sub)
    show_cli.add_parser(sub)

    p = sub.add_parser(
        "calibrate",
        help="calibrate a finished run where its benchmark has a calibration (WMB-100K: abstention cutoffs);"
        " options after RUN_DIR are the benchmark's own (RUN_DIR -h... lists them)",
    )
    p.add_argument("run_dir", type=Path, help="a run folder")
    p.add_argument("options", nargs=argparse.REMAINDER, help="the benchmark's calibration options")
    p.set_defaults(func=_cmd_calibrate)

    p = sub.add_parser("report", help="Markdown/CSV tables in the papers' layouts and PNG plots of runs")
    p.add_argument("run_dirs", type=Path, nargs="+", metavar="RUN_DIR", help="run folders (runs/<name>)")
    p.add_argument("--out", type=Path, help="report folder (default RUN_DIR/report; required for several)")
    p.add_argument("--labels", help="comma-separated run names for the tables (default: folder names)")
    p.add_argument("--prices", type=Path, help="YAML/JSON price file laid over the built-in prices")
    p.add_argument("--no-plots", action="store_true", help="tables only")
    p.set_defaults(func=_cmd_report)


def _add_generate_commands(sub: argparse._SubParsersAction, *, per_benchmark: bool = True) -> None:
    """``generate NAME``: synthetic data of each benchmark whose definition declares a generator.

    Listing the generators builds every benchmark's definition (seconds of imports), so a command line
    that does not name ``generate`` gets the bare command (``per_benchmark=False``)."""
    from memsuite.eval.registry import definitions

    generate = sub.add_parser("generate", help="generate synthetic benchmark data, deterministic by seed")
    generate_sub = generate.add_subparsers(dest="generate_command", required=True)
    if not per_benchmark:
        return
    for name, found in definitions().items():
        command = found.commands.get("generate")
        if command is None:
            continue
        p = generate_sub.add_parser(name, help=command.help)
        command.add_arguments(p)
        p.set_defaults(func=_cmd_benchmark_command, benchmark_command=command)


def _add_llm_commands(sub: argparse._SubParsersAction) -> None:
    """``llm serve``: the embedded offline model; ``llm oracle``: the gold-backed endpoint."""
    llm = sub.add_parser("llm", help="the LLM layer (embedded offline model, gold-backed oracle)")
    llm_sub = llm.add_subparsers(dest="llm_command", required=True)
    p = llm_sub.add_parser("serve", help="serve the embedded SmolLM2-135M model until Ctrl-C")
    p.add_argument("--port", type=int, help="loopback port (default: a free one)")
    p.add_argument("--n-ctx", type=int, default=2048, help="context window in tokens, <= 8192 (default 2048)")
    p.add_argument(
        "--n-threads", type=int, default=None, help="CPU threads (default MEMSUITE_LLM_THREADS, else 2)"
    )
    p.set_defaults(func=_cmd_llm_serve)
    p = llm_sub.add_parser(
        "oracle", help="serve a config's benchmark gold as an OpenAI-compatible endpoint until Ctrl-C"
    )
    p.add_argument("config", help="a run config of a benchmark with gold per session (meme, dynamicmem)")
    p.add_argument("--port", type=int, default=0, help="loopback port (default: a free one)")
    p.add_argument("--set", dest="overrides", action="append", default=[], help="key.sub=value override")
    p.set_defaults(func=_cmd_llm_oracle)


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser of every subcommand; given the command line it will parse, the parser
    builds the per-benchmark subcommands only where that command line names them."""
    parser = argparse.ArgumentParser(prog="memsuite", description=__doc__.splitlines()[0], epilog=EXIT_CODES)
    parser.add_argument("-v", "--verbose", action="store_true", help="log at INFO level")
    parser.add_argument("--version", action=_VersionAction)
    sub = parser.add_subparsers(dest="command", required=True)
    for add in (_add_listing_commands, _add_run_commands, _add_report_commands):
        add(sub)
    _add_generate_commands(sub, per_benchmark=argv is None or "generate" in argv)
    _add_llm_commands(sub)
    from memsuite.eval.rejudge.cli import add_rejudge_command

    add_rejudge_command(sub, cache_dir=default_cache_dir())
    from memsuite.eval.cli import data as data_cli

    data_cli.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``memsuite`` console script."""
    args = build_parser(sys.argv[1:] if argv is None else argv).parse_args(argv)
    args.argv = argv
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s"
    )
    try:
        return args.func(args)
    except MemsuiteError as exc:
        print(f"memsuite: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:  # e.g. a run stopped before its header: one line, not a traceback
        from memsuite.eval.run.stopping import RunInterrupted

        name = exc.signal_name if isinstance(exc, RunInterrupted) else "SIGINT"
        print(f"memsuite: interrupted by {name}", file=sys.stderr)
        return exc.exit_code if isinstance(exc, RunInterrupted) else 130


if __name__ == "__main__":
    sys.exit(main())
