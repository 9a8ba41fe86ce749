"""``memsuite run CONFIG --seeds S1 S2 ...``: the runs and the seeds table (:mod:`memsuite.eval.seeds`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from memsuite.eval.config import RunConfig


def run_and_report_seeds(config: RunConfig, args: argparse.Namespace, out: Path) -> int:
    from memsuite.eval.report.document import table_csv, table_markdown
    from memsuite.eval.report.runs import load_runs
    from memsuite.eval.seeds import run_seeds, seeds_table

    folders = run_seeds(
        config,
        args.seeds,
        out,
        cache_dir=None if args.no_cache else args.cache_dir,
        restart=args.restart,
        show_progress=not args.quiet,
        workers=args.workers,
        executor=args.executor,
        ray_address=args.ray_address,
        allow_config_change=args.allow_config_change,
    )
    runs = load_runs(folders)
    table = seeds_table(runs, args.seeds)
    (out / "seeds.md").write_text(f"### {table.title}\n\n{table_markdown(table)}\n", encoding="utf-8")
    (out / "seeds.csv").write_text(table_csv(table), encoding="utf-8")
    print(f"### {table.title}\n\n{table_markdown(table)}\n")
    print(f"runs: {', '.join(str(f) for f in folders)}; table: {out / 'seeds.md'}, {out / 'seeds.csv'}")
    incomplete = [run.label for run in runs if run.header.get("status") != "complete"]
    return 1 if incomplete else 0
