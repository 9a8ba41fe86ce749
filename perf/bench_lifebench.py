"""LifeBench figures: bm25 over the seven dev users, retrieval only, end to end, beside bm25s called
directly on the same documents and queries.

- ``bm25``: the protocol (:class:`~memsuite.eval.benchmarks.lifebench.protocol.LifebenchBenchmark`, no
  LLM): the folders read and checked, each user's records ingested a day at a time, every question's
  ranking of the records held at its time, its retrieval verdicts and its context at k = 10.
- ``raw_bm25``: ``bm25s`` (``tokenize``, ``BM25(method="lucene")``, ``get_scores``, a stable sort) over
  the same documents, indexed once per question time with the records held then, as the protocol
  does, and every question scored against them.

Each is repeated ``--repeats`` times (default 3), in turn, and the median is the figure; the ratio
bm25 / raw_bm25 is printed with the 1-minute load average (the machine may be shared).

    python perf/bench_lifebench.py
    python perf/bench_lifebench.py --repeats 5
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from itertools import groupby
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's memsuite, whichever is installed
SHARED = Path(os.environ.get("MEMSUITE_SHARED_DATA", ROOT.parent / "shared/data")) / "lifebench"
K = 10


def run_bm25(data: Path) -> float:
    from memsuite.eval.benchmarks.lifebench.protocol import LifebenchBenchmark
    from memsuite.eval.registry import definition
    from memsuite.memory_systems.registry import get_system

    started = time.perf_counter()
    benchmark = LifebenchBenchmark(str(data))
    ctx = definition("lifebench").context(k=K, judges=())
    for unit in benchmark.units():
        list(benchmark.run_unit(get_system("bm25"), unit, ctx))
    return time.perf_counter() - started


def run_raw_bm25(data: Path) -> float:
    import bm25s
    import numpy as np

    from memsuite.eval.benchmarks.lifebench.documents import record_text
    from memsuite.eval.benchmarks.lifebench.loader import load_users

    started = time.perf_counter()
    for user in load_users(data):
        records = [*user.contacts, *user.records]
        texts = [record_text(r) for r in records]
        days = ["" if r.day is None else r.day for r in records]
        questions = sorted(user.questions, key=lambda q: (q.asked, q.index))
        for asked, group in groupby(questions, key=lambda q: q.asked):
            held = sum(1 for d in days if d <= asked)
            retriever = bm25s.BM25(method="lucene")
            retriever.index(bm25s.tokenize(texts[:held], show_progress=False), show_progress=False)
            for question in group:
                words = bm25s.tokenize([question.question], return_ids=False, show_progress=False)[0]
                np.argsort(-retriever.get_scores(words), kind="stable")
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=SHARED)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    if not args.data.is_dir():
        print(f"no LifeBench data at {args.data}: set MEMSUITE_SHARED_DATA", file=sys.stderr)
        return 2
    figures: dict[str, list[float]] = {"bm25": [], "raw_bm25": []}
    for _ in range(args.repeats):
        figures["bm25"].append(run_bm25(args.data))
        figures["raw_bm25"].append(run_raw_bm25(args.data))
    medians = {name: statistics.median(values) for name, values in figures.items()}
    print(f"load average (1 min): {os.getloadavg()[0]:.2f}")
    for name, values in figures.items():
        print(f"{name}: median {medians[name]:.2f} s  (runs: {', '.join(f'{v:.2f}' for v in values)})")
    print(
        f"bm25 / raw_bm25: {medians['bm25'] / medians['raw_bm25']:.2f}x  (goals: bm25 <= 15 s, ratio <= 1.5x)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
