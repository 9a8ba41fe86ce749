"""Cost of the run's context budget: a LoCoMo quick run (bm25, retrieval only, the shared dev file)
with ``context_tokens`` set vs the same run without it.

Both runs go through the runner end to end into fresh folders in the same process, alternating, after
one untimed warm-up of each; the medians of ``--repeats`` timed runs give the ratio (with / without),
printed with both medians and the rows cut as JSON. The budget keeps ``k`` as configured (25), so both
runs ask for the same hits and the difference is the cut alone.

    MEMSUITE_SHARED_DATA=../shared/data .venv/bin/python perf/bench_budget.py --repeats 3
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memsuite.eval.run.config import load_config
from memsuite.eval.run.runner import run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--budget", type=int, default=512, help="context_tokens of the budgeted run")
    parser.add_argument("--systems", default="bm25")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="bench-budget-"))
    overrides = [f"systems={args.systems}"]
    plain = load_config("locomo_quick", overrides=overrides)
    budgeted = load_config("locomo_quick", overrides=[*overrides, f"context_tokens={args.budget}"])
    cut: dict[str, int] = {}

    def timed(config, label: str) -> float:
        out = scratch / label
        shutil.rmtree(out, ignore_errors=True)
        started = time.perf_counter()
        folder = run(config, out_dir=out, show_progress=False, cache_dir=None)
        elapsed = time.perf_counter() - started
        rows = folder.rows()
        cut[label] = sum(bool(r.metadata.get("context_cut")) for r in rows)
        return elapsed

    timed(plain, "plain")
    timed(budgeted, "budgeted")
    times: dict[str, list[float]] = {"plain": [], "budgeted": []}
    for _ in range(args.repeats):
        times["plain"].append(timed(plain, "plain"))
        times["budgeted"].append(timed(budgeted, "budgeted"))
    shutil.rmtree(scratch, ignore_errors=True)
    medians = {label: statistics.median(values) for label, values in times.items()}
    print(
        json.dumps(
            {
                "plain_s": round(medians["plain"], 3),
                "budgeted_s": round(medians["budgeted"], 3),
                "ratio": round(medians["budgeted"] / medians["plain"], 3),
                "budget": args.budget,
                "rows_cut": cut,
                "runs": {label: [round(v, 3) for v in values] for label, values in times.items()},
            }
        )
    )


if __name__ == "__main__":
    main()
