"""Speed-up of the runner's worker pool: MEME on generated episodes, answers from a local
endpoint that adds a fixed latency to every call (a stand-in for a remote LLM), 1 vs N workers.

    .venv/bin/python perf/bench_workers.py                     # 20 episodes, 200 ms, 4 workers
    .venv/bin/python perf/bench_workers.py --episodes 8 --repeats 1
    .venv/bin/python perf/bench_workers.py --executor ray      # the same units as Ray tasks
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from memsuite.eval.run.config import config_from_dict
from memsuite.eval.run.runner import run

# The latency endpoint is the test suite's double of a remote LLM; no user of the package needs it.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from fake_endpoint import FakeEndpoint


def timed_run(
    endpoint: FakeEndpoint, episodes: int, workers: int, systems: list[str], executor: str = "threads"
) -> tuple[float, int]:
    config = config_from_dict(
        {
            "benchmark": "meme",
            "name": "bench_workers",
            "systems": systems,
            "k": 3,
            # No response cache (cache_dir None below): every answer is a real call to the endpoint.
            "answer_llm": {"model": "fake", "base_url": endpoint.base_url, "api_key_env": None},
            "benchmark_options": {"episodes": episodes, "filler": "none", "seed": 0, "snapshots": False},
        }
    )
    with tempfile.TemporaryDirectory() as out:
        started = time.perf_counter()
        folder = run(
            config, out_dir=Path(out) / "run", show_progress=False, workers=workers, executor=executor
        )
        wall = time.perf_counter() - started
        return wall, len(folder.rows())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=20)
    parser.add_argument("--latency-ms", type=float, default=200)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--systems", default="bm25")
    parser.add_argument(
        "--executor", choices=["threads", "ray"], default="threads", help="for the N-worker runs"
    )
    args = parser.parse_args()
    endpoint = FakeEndpoint()
    endpoint.latency_s = args.latency_ms / 1000
    systems = args.systems.split(",")
    try:
        if args.executor == "ray":
            import ray

            # One Ray instance for the whole benchmark, as on a standing cluster: start-up and worker
            # imports are paid once here, not inside each timed run.
            ray.init(num_cpus=args.workers, include_dashboard=False, log_to_driver=False)
            timed_run(endpoint, args.workers * 2, args.workers, systems, "ray")
        timed_run(endpoint, 2, 1, systems)  # warm up: model loads, imports
        one, many = [], []
        for _ in range(args.repeats):
            wall, rows_one = timed_run(endpoint, args.episodes, 1, systems)
            one.append(wall)
            wall, rows_many = timed_run(endpoint, args.episodes, args.workers, systems, args.executor)
            many.append(wall)
            assert rows_one == rows_many, (rows_one, rows_many)
    finally:
        endpoint.close()
    print(f"{args.episodes} episodes x {systems}, {rows_one} rows, {args.latency_ms:.0f} ms per LLM call")
    for label, walls in (("1 worker", one), (f"{args.workers} {args.executor}", many)):
        print(f"{label:10s} median {statistics.median(walls):7.2f} s  runs {[round(x, 2) for x in walls]}")
    print(f"speed-up: {statistics.median(one) / statistics.median(many):.2f}x (goal >= 3.5x)")


if __name__ == "__main__":
    main()
