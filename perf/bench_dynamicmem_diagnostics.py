"""Failure-stage figure for DynamicMem: where State Completion keys fail, for bm25 and dense on
generated users (configs/dynamicmem_quick.yaml), per state category over all checkpoints.

No LLM runs: the quick config is retrieval-only, so ``answered`` is undecided and "none" in the table
means the key passed every stage up to and including retrieval (eval/benchmarks/dynamicmem/diagnostics.py).

    .venv/bin/python perf/bench_dynamicmem_diagnostics.py               # 2 users, as configured
    .venv/bin/python perf/bench_dynamicmem_diagnostics.py --users 1 --out runs/dm_diag
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from memsuite.eval.analysis.diagnostics import format_stage_table
from memsuite.eval.benchmarks.dynamicmem.diagnostics import attribute_rows, stage_table
from memsuite.eval.run.config import load_config
from memsuite.eval.run.runner import run

CONFIG = Path(__file__).resolve().parents[1] / "configs" / "dynamicmem_quick.yaml"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, help="run folder to keep (default: a temporary one)")
    args = parser.parse_args()
    overrides = [
        "answer_llm=null",
        f"benchmark_options.users={args.users}",
        f"benchmark_options.seed={args.seed}",
    ]
    config = load_config(CONFIG, overrides)
    with tempfile.TemporaryDirectory() as scratch:
        out = args.out or Path(scratch) / "run"
        started = time.perf_counter()
        folder = run(config, out_dir=out, show_progress=False, restart=True)
        wall = time.perf_counter() - started
        attributions = attribute_rows(folder.rows(), folder.path)
    print(
        f"DynamicMem failure stages: {args.users} generated users (seed {args.seed}, {CONFIG.name}), "
        f"State Completion keys at every checkpoint, no LLM anywhere; run took {wall:.0f} s"
    )
    print("Share of (checkpoint, state key) rows whose FIRST failing stage is each column; 'none' = passed")
    print("up to retrieval (no answer model, so 'answered' is undecided).\n")
    print(format_stage_table(stage_table(attributions), task_label="category"))


if __name__ == "__main__":
    main()
