"""``memsuite run CONFIG --seeds S1 S2 ...``: the runs and the seeds table
(:mod:`memsuite.eval.study.seeds`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memsuite.eval.run.config import RunConfig


def run_and_report_seeds(config: RunConfig, seeds: Sequence[int], out: Path, options: dict[str, Any]) -> int:
    """Run ``config`` per seed with ``memsuite run``'s ``options``, then print and write the table."""
    from memsuite.eval.report.document import table_csv, table_markdown
    from memsuite.eval.run.folder import load_runs
    from memsuite.eval.study.seeds import run_seeds, seeds_table

    folders = run_seeds(config, seeds, out, **options)
    runs = load_runs(folders)
    table = seeds_table(runs, seeds)
    (out / "seeds.md").write_text(f"### {table.title}\n\n{table_markdown(table)}\n", encoding="utf-8")
    (out / "seeds.csv").write_text(table_csv(table), encoding="utf-8")
    print(f"### {table.title}\n\n{table_markdown(table)}\n")
    print(f"runs: {', '.join(str(f) for f in folders)}; table: {out / 'seeds.md'}, {out / 'seeds.csv'}")
    incomplete = [run.label for run in runs if run.header.get("status") != "complete"]
    return 1 if incomplete else 0
