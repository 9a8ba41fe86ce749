"""Ingest time and search latency of bm25, dense and the LangChain FAISS adapter on generated turns.

LangChain FAISS against our dense baseline at 10K and 105K turns, and ingest and search p50/p95
for bm25, dense and langchain_faiss on a generated 105K-turn corpus.
Each system ingests the same turns through ``store`` with an empty embedding cache (no system is
helped by another's embeddings), then answers the same queries one at a time; a search is timed
alone, query embedding included. Latencies pool every repeat; ingest is the median over repeats.

    .venv/bin/python perf/bench_search.py                          # 10K and 105K, 3 repeats
    .venv/bin/python perf/bench_search.py --turns 10000 --repeats 1
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from bench_retrieval import _percentile, generate_queries, generate_turns

from memsuite.memory_systems.embedder import Embedder
from memsuite.memory_systems.registry import get_system

SYSTEMS = ("bm25", "dense", "langchain_faiss")


def measure(name: str, turns: list[str], queries: list[str], repeats: int) -> dict:
    ingest, latencies = [], []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as cache:
            system = get_system(name, resources={"embedder": Embedder(cache_dir=cache)})
            started = time.perf_counter()
            system.store(turns)
            ingest.append(time.perf_counter() - started)
            system.search("warm up", k=5)  # the lazy bm25 build and first-call costs stay out of latency
            for query in queries:
                started = time.perf_counter()
                system.search(query, k=5)
                latencies.append((time.perf_counter() - started) * 1000)
    return {
        "ingest_s": statistics.median(ingest),
        "search_p50_ms": _percentile(latencies, 0.5),
        "search_p95_ms": _percentile(latencies, 0.95),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, nargs="+", default=[10_000, 105_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--systems", default=",".join(SYSTEMS))
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()

    Embedder().model.encode(["warm up"])  # model load stays out of every timing
    queries = generate_queries(args.queries)
    figures: dict[str, dict] = {}
    for n in args.turns:
        turns = generate_turns(n)
        for name in args.systems.split(","):
            result = measure(name, turns, queries, args.repeats)
            figures[f"{name}@{n}"] = result
            print(
                f"{name:16s} {n:>7,} turns: ingest {result['ingest_s']:7.1f} s  search p50 "
                f"{result['search_p50_ms']:6.2f} ms  p95 {result['search_p95_ms']:6.2f} ms",
                flush=True,
            )
        if "dense" in args.systems and "langchain_faiss" in args.systems:
            dense, lc = figures[f"dense@{n}"], figures[f"langchain_faiss@{n}"]
            ratios = {k: lc[k] / dense[k] for k in ("search_p50_ms", "search_p95_ms", "ingest_s")}
            figures[f"langchain_faiss/dense@{n}"] = ratios
            shown = ", ".join(f"{k} x{v:.2f}" for k, v in ratios.items())
            print(f"  langchain_faiss / dense at {n:,}: {shown}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
