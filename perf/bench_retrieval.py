"""Retrieval figures on generated short turns (default 105,000), single process.

Each section runs in its own subprocess so peak memory is measured per system. Latencies are medians
over repeated runs; the speed-up is against rank_bm25 measured in the same run.

    .venv/bin/python perf/bench_retrieval.py            # all figures, 105K turns
    .venv/bin/python perf/bench_retrieval.py --turns 20000 --section bm25
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_NAMES = ["Ilvana", "Torbek", "Quessa", "Marnel", "Odrin", "Saphie", "Brannoc", "Yselde", "Kettrin", "Dovan"]
_PLACES = [
    "Quellport",
    "Varnhollow",
    "Destrel",
    "Obrenmark",
    "Kaskadia",
    "Morrowfen",
    "Tiberlane",
    "Ashkettle",
]
_THINGS = [
    "bicycle",
    "kettle",
    "violin",
    "laptop",
    "garden",
    "passport",
    "ferry ticket",
    "sourdough starter",
    "climbing shoes",
    "tax form",
    "router",
    "umbrella",
    "camera",
    "notebook",
    "espresso machine",
    "tent",
]
_VERBS = ["fixed", "lost", "bought", "sold", "borrowed", "painted", "cleaned", "repaired", "found", "ordered"]
_TEMPLATES = [
    "I {verb} my {thing} in {place} last {day}.",
    "{name} said the {thing} costs {num} euros now.",
    "Remind me that {name} is visiting {place} on {day}.",
    "We talked about the {thing} for {num} minutes with {name}.",
    "My favourite cafe in {place} closes at {hour} on {day}s.",
    "The {thing} from {name} arrived broken, order number {num}.",
    "Did you know {name} moved to {place} after {num} years?",
    "Honestly the {thing} was the best thing I {verb} this year.",
]
_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def generate_turns(n: int, seed: int = 0) -> list[str]:
    """``n`` short turns shaped like WMB-100K's ("{speaker}: {text}"), deterministic by seed."""
    rng = random.Random(seed)
    turns = []
    for i in range(n):
        text = rng.choice(_TEMPLATES).format(
            verb=rng.choice(_VERBS),
            thing=rng.choice(_THINGS),
            place=rng.choice(_PLACES),
            name=rng.choice(_NAMES),
            day=rng.choice(_DAYS),
            num=rng.randint(2, 9999),
            hour=rng.randint(5, 11),
        )
        turns.append(f"{'user' if i % 2 == 0 else 'assistant'}: {text} (note {rng.randint(0, 10**6)})")
    return turns


def generate_queries(n: int, seed: int = 1) -> list[str]:
    rng = random.Random(seed)
    template = "what happened with the {} {} mentioned in {}?"
    return [template.format(rng.choice(_THINGS), rng.choice(_NAMES), rng.choice(_PLACES)) for _ in range(n)]


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _peak_rss_gib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # Linux reports KiB


def section_bm25(turns: int, repeats: int) -> dict:
    from rank_bm25 import BM25Okapi

    from memsuite.baselines.bm25 import BM25Memory

    texts, queries = generate_turns(turns), generate_queries(200)
    builds = []
    for _ in range(repeats):
        memory = BM25Memory()
        started = time.perf_counter()
        memory.store(texts)
        memory.search("warm up the lazy index build", k=5)
        builds.append(time.perf_counter() - started)
    latencies = []
    for query in queries:
        started = time.perf_counter()
        memory.search(query, k=5)
        latencies.append((time.perf_counter() - started) * 1000)

    # Speed-up per query against rank_bm25 on a 10,000-turn subset, same queries, same process.
    subset = texts[:10_000]
    small = BM25Memory()
    small.store(subset)
    small.search("warm up", k=5)
    oracle = BM25Okapi([t.lower().split() for t in subset])
    few = queries[:30]
    ours, theirs = [], []
    for _ in range(repeats):
        started = time.perf_counter()
        for query in few:
            small.search(query, k=5)
        ours.append((time.perf_counter() - started) / len(few))
        started = time.perf_counter()
        for query in few:
            scores = oracle.get_scores(query.lower().split())
            sorted(range(len(scores)), key=scores.__getitem__, reverse=True)[:5]
        theirs.append((time.perf_counter() - started) / len(few))
    return {
        "turns": turns,
        "bm25_build_s": statistics.median(builds),
        "bm25_search_p50_ms": _percentile(latencies, 0.5),
        "bm25_search_p95_ms": _percentile(latencies, 0.95),
        "bm25_speedup_vs_rank_bm25_10k": statistics.median(theirs) / statistics.median(ours),
        "bm25_peak_rss_gib": _peak_rss_gib(),
    }


def section_dense(turns: int, repeats: int) -> dict:
    from memsuite.baselines.dense import DenseMemory
    from memsuite.memory_systems.embedder import Embedder

    texts, queries = generate_turns(turns), generate_queries(200)
    embedder = Embedder()
    model, batch_size = embedder.model, embedder.batch_size_used  # dense's model and batch size
    model.encode(texts[:batch_size], batch_size=batch_size)  # warm up

    # Ingest throughput vs raw SentenceTransformer.encode on the same texts (no cache on either side).
    sample = texts[:4000]
    raw, ours = [], []

    def time_raw(batch: list[str]) -> None:
        started = time.perf_counter()
        model.encode(batch, batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True)
        raw.append(len(batch) / (time.perf_counter() - started))

    def time_ours(batch: list[str]) -> None:
        # Ingest as a run does it: store, then the first search, which embeds what was stored.
        memory = DenseMemory(embedder=Embedder())
        started = time.perf_counter()
        memory.store(batch)
        memory.search(queries[0], k=5)
        ours.append(len(batch) / (time.perf_counter() - started))

    for rep in range(repeats):
        # Fresh texts each repeat (no cache can help); alternate the order so drift hits both sides.
        first, second = (time_raw, time_ours) if rep % 2 == 0 else (time_ours, time_raw)
        first([f"{t} a{rep}" for t in sample])
        second([f"{t} b{rep}" for t in sample])

    with tempfile.TemporaryDirectory() as cache_dir:
        started = time.perf_counter()
        memory = DenseMemory(embedder=Embedder(cache_dir=cache_dir))
        memory.store(texts)
        memory.finalize()  # embedding is deferred to the first search: count it in the ingest
        first_ingest_s = time.perf_counter() - started
        latencies = []
        for query in queries:
            started = time.perf_counter()
            memory.search(query, k=5)
            latencies.append((time.perf_counter() - started) * 1000)
        peak = _peak_rss_gib()
        rates = []
        for _ in range(repeats):
            fresh = DenseMemory(embedder=Embedder(cache_dir=cache_dir))  # cache read from disk
            started = time.perf_counter()
            fresh.store(texts)
            fresh.finalize()
            rates.append(len(texts) / (time.perf_counter() - started))
            assert fresh.embedder.usage.embedded_texts == 0, "re-ingest must come from the cache"
            del fresh
    return {
        "turns": turns,
        "dense_first_ingest_s": first_ingest_s,
        "dense_raw_encode_texts_per_s": statistics.median(raw),
        "dense_ingest_texts_per_s": statistics.median(ours),
        "dense_ingest_vs_raw": statistics.median(ours) / statistics.median(raw),
        "dense_search_p50_ms": _percentile(latencies, 0.5),
        "dense_search_p95_ms": _percentile(latencies, 0.95),
        "dense_cached_reingest_turns_per_s": statistics.median(rates),
        "dense_peak_rss_gib_at_full_store": peak,
    }


GOALS = {
    "bm25_build_s": ("<=", 10),
    "bm25_search_p50_ms": ("<=", 5),
    "bm25_search_p95_ms": ("<=", 20),
    "bm25_speedup_vs_rank_bm25_10k": (">=", 30),
    "dense_search_p95_ms": ("<=", 30),
    "dense_ingest_vs_raw": (">=", 0.9),
    "dense_cached_reingest_turns_per_s": (">=", 20_000),
    "dense_peak_rss_gib_at_full_store": ("<=", 1.5),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=105_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--section", choices=["bm25", "dense", "all"], default="all")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--_child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args._child:
        section = {"bm25": section_bm25, "dense": section_dense}[args.section]
        print(json.dumps(section(args.turns, args.repeats)))
        return
    figures: dict = {}
    for name in ["bm25", "dense"] if args.section == "all" else [args.section]:
        cmd = [
            sys.executable,
            __file__,
            "--_child",
            "--section",
            name,
            "--turns",
            str(args.turns),
            "--repeats",
            str(args.repeats),
        ]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        figures.update(json.loads(out.strip().splitlines()[-1]))
    print(f"{'figure':40s} {'value':>12s}  goal")
    for key, value in figures.items():
        goal = GOALS.get(key)
        verdict = ""
        if goal:
            ok = value <= goal[1] if goal[0] == "<=" else value >= goal[1]
            verdict = f"{goal[0]} {goal[1]}  {'OK' if ok else 'MISSED'}"
        print(f"{key:40s} {value:12.3f}  {verdict}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
