"""DynamicMem figures: generation time per user, end-to-end time of bm25 and dense over the
five checkpoints of one full-volume generated user, and their evidence recall@20 per checkpoint.

The run is retrieval-only (no answer model): one retrieval per state key and per service item at
k = 20 (the release's RAG default), evidence scored by app_log_id against the gold evidence ids.

    .venv/bin/python perf/bench_dynamicmem.py
    .venv/bin/python perf/bench_dynamicmem.py --users 3 --repeats 1
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from memsuite.eval.benchmarks.dynamicmem.generator import generate_users
from memsuite.eval.run.config import config_from_dict
from memsuite.eval.run.runner import run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=5, help="users generated for the per-user timing")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    per_user, events = [], []
    for _ in range(args.repeats):
        started = time.perf_counter()
        users = generate_users(args.users, seed=0, months=15)
        per_user.append((time.perf_counter() - started) / args.users)
        events = [len(u.app_logs) for u in users]
    print(
        f"generation: {statistics.median(per_user):.2f} s per user "
        f"({args.users} users, {min(events):,}-{max(events):,} events each)"
    )

    config = config_from_dict(
        {
            "benchmark": "dynamicmem",
            "name": "bench_dynamicmem",
            "systems": ["bm25", "dense"],
            "benchmark_options": {"users": 1, "months": 15, "seed": 0, "top_k": 20, "ingest": "store"},
        }
    )
    walls: dict[str, list[float]] = {"bm25": [], "dense": []}
    recall: dict[str, list[float]] = {}
    for _ in range(args.repeats):
        with tempfile.TemporaryDirectory() as tmp:
            folder = run(config, out_dir=Path(tmp) / "run", cache_dir=None, show_progress=False)
            for unit in folder.units():
                walls[unit.system].append(unit.wall_s)
            summary = folder.summary()
            recall = {s: e["scores"]["curves"]["evidence_recall"] for s, e in summary.items()}
            checkpoints = next(iter(summary.values()))["scores"]["checkpoints"]
    print(f"one user, {events[0]:,} events, checkpoints {', '.join(checkpoints)}:")
    for system, values in walls.items():
        curve = " ".join(f"{c}={r:.2f}" for c, r in zip(checkpoints, recall[system], strict=True))
        print(f"  {system:6s} end to end {statistics.median(values):6.1f} s   evidence recall@20 {curve}")
    if args.json:
        figures = {
            "generate_s_per_user": statistics.median(per_user),
            "events_first_user": events[0],
            "wall_s": {s: statistics.median(v) for s, v in walls.items()},
            "evidence_recall_at_20": recall,
        }
        args.json.write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
