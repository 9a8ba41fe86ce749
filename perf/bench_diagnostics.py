"""Failure-stage figure: where MEME questions fail, for bm25, dense and each LLM paradigm in
extraction-oracle mode (gold facts in place of the LLM's extraction), on generated episodes.

No LLM runs at all: the oracle variants do not call one at ingestion, and there is no answer LLM, so
the rows carry no answer verdict. The ``answered`` stage is therefore undecided, and "none" in the
table means the question passed every stage up to and including retrieval (the rows' LLM-free
``evidence`` verdict for ER/Agg/Tr/Cas and before-questions; eval/benchmarks/meme/diagnostics.py's rules
for Abs/Del).

    .venv/bin/python perf/bench_diagnostics.py                 # 20 episodes, no filler, k=5
    .venv/bin/python perf/bench_diagnostics.py --episodes 4 --k 1 --out runs/diag
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from memsuite.eval.analysis.diagnostics import format_stage_table
from memsuite.eval.benchmarks.meme.diagnostics import attribute_rows, stage_table
from memsuite.eval.run.config import load_config, with_systems
from memsuite.eval.run.runner import run

CONFIG = Path(__file__).resolve().parents[1] / "configs" / "meme_oracle.yaml"
SYSTEMS = [
    "bm25",
    "dense",
    "llm_extraction_oracle",
    "temporal_kg_oracle",
    "md_flat_oracle",
    "karpathy_wiki_oracle",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=20)
    parser.add_argument("--filler", default="none")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--out", type=Path, help="run folder to keep (default: a temporary one)")
    args = parser.parse_args()
    overrides = [
        "answer_llm=null",
        "internal_llm=null",
        f"k={args.k}",
        f"benchmark_options.episodes={args.episodes}",
        f"benchmark_options.filler={args.filler}",
        f"benchmark_options.seed={args.seed}",
    ]
    config = with_systems(load_config(CONFIG, overrides), SYSTEMS)
    with tempfile.TemporaryDirectory() as scratch:
        out = args.out or Path(scratch) / "run"
        started = time.perf_counter()
        folder = run(config, out_dir=out, show_progress=False, restart=True)
        wall = time.perf_counter() - started
        attributions = attribute_rows(folder.rows(), folder.path)
    print(
        f"MEME failure stages: {args.episodes} generated episodes (seed {args.seed}, filler {args.filler}), "
        f"k={args.k}, no LLM anywhere; run took {wall:.0f} s"
    )
    print("Share of questions whose FIRST failing stage is each column; 'none' = passed up to retrieval")
    print("(no answer LLM, so 'answered' is undecided: the rows carry only the LLM-free evidence verdict).\n")
    for phase in ("after", "before"):
        print(f"## {phase}-questions\n")
        print(format_stage_table(stage_table(attributions, phase=phase)))
        print()


if __name__ == "__main__":
    main()
