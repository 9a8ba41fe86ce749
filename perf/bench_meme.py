"""MEME figures: generation time, end-to-end run time and the driver's share of it.

- Generation: 100 episodes at 32k filler (``generate_episodes``), median of ``--repeats`` runs.
- End to end: ``configs/meme_main.yaml`` restricted to bm25 and dense, retrieval-only (no answer LLM:
  rows carry the LLM-free evidence verdict and the rule judge), 20 generated episodes at 32k filler.
- Driver overhead: run wall time minus the time spent inside the memory systems' own methods
  (ingest_session, finalize, retrieve, snapshot), as a share of the run wall time. The methods are
  wrapped with a timer here only, for the measurement; the outermost call counts once.

    .venv/bin/python perf/bench_meme.py                 # 100 / 20 episodes, 3 repeats
    .venv/bin/python perf/bench_meme.py --episodes 5 --repeats 1
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
import tempfile
import threading
import time
from pathlib import Path

from memsuite.eval.benchmarks.meme.generator import generate_episodes
from memsuite.eval.run.config import load_config, with_systems
from memsuite.eval.run.runner import run
from memsuite.memory_systems.base import MemorySystem

CONFIG = Path(__file__).resolve().parents[1] / "configs" / "meme_main.yaml"
TIMED_METHODS = ("ingest_session", "finalize", "retrieve", "snapshot")


class SystemClock:
    """Wall time spent inside MemorySystem methods (outermost call only, per thread)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self._depth = threading.local()

    def wrap(self, method):
        @functools.wraps(method)
        def timed(*args, **kwargs):
            depth = getattr(self._depth, "n", 0)
            self._depth.n = depth + 1
            started = time.perf_counter()
            try:
                return method(*args, **kwargs)
            finally:
                self._depth.n = depth
                if depth == 0:
                    self.seconds += time.perf_counter() - started

        return timed


def instrument(classes: list[type[MemorySystem]], clock: SystemClock) -> None:
    for cls in classes:
        for name in TIMED_METHODS:
            # Wrap the method the class resolves (its own or MemorySystem's default) on the class itself.
            setattr(cls, name, clock.wrap(getattr(cls, name)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--generate", type=int, default=100, help="episodes generated for the timing")
    parser.add_argument("--episodes", type=int, default=20, help="episodes in the end-to-end run")
    parser.add_argument("--filler", default="32k")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    gen = []
    for _ in range(args.repeats):
        started = time.perf_counter()
        generate_episodes(args.generate, seed=0, filler=args.filler)
        gen.append(time.perf_counter() - started)

    from memsuite.baselines.bm25 import BM25Memory
    from memsuite.baselines.dense import DenseMemory

    clock = SystemClock()
    instrument([BM25Memory, DenseMemory], clock)
    config = load_config(
        CONFIG,
        [
            "answer_llm=null",
            "judges=[rule]",
            f"benchmark_options.episodes={args.episodes}",
            f"benchmark_options.filler={args.filler}",
        ],
    )
    config = with_systems(config, ["bm25", "dense"])
    walls, shares, evidence = [], [], {}
    for _ in range(args.repeats):
        clock.seconds = 0.0
        with tempfile.TemporaryDirectory() as tmp:
            # No embedding cache: every repeat embeds for real (a cache would make repeats 2.. free).
            started = time.perf_counter()
            folder = run(config, out_dir=Path(tmp) / "run", cache_dir=None, show_progress=False)
            wall = time.perf_counter() - started
            summary = folder.summary()
        walls.append(wall)
        shares.append((wall - clock.seconds) / wall)
        evidence = {
            system: entry["scores"]["by_judge"]["evidence"]["tasks"]
            | {"Overall": entry["scores"]["by_judge"]["evidence"]["Overall"]}
            for system, entry in summary.items()
        }
    figures = {
        "generate_episodes": args.generate,
        "filler": args.filler,
        "generate_s_median": statistics.median(gen),
        "run_episodes": args.episodes,
        "run_wall_s_median": statistics.median(walls),
        "driver_overhead_share_median": statistics.median(shares),
        "evidence_rates": evidence,
    }
    gen_s = figures["generate_s_median"]
    print(f"generation: {args.generate} episodes at {args.filler} filler: {gen_s:.1f} s")
    print(
        f"meme_main bm25+dense, {args.episodes} episodes, retrieval-only: "
        f"{figures['run_wall_s_median']:.1f} s end to end; driver overhead "
        f"{100 * figures['driver_overhead_share_median']:.1f} % (goal <= 5 %)"
    )
    for system, rates in evidence.items():
        cells = " ".join(f"{t}={v:.2f}" for t, v in rates.items() if v is not None)
        print(f"  evidence {system:6s} {cells}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
