"""``memsuite calibrate RUN_DIR``: WMB-100K abstention cutoffs chosen on a held-out split of a run."""

from __future__ import annotations

import argparse


def add_calibrate_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``memsuite calibrate`` on a WMB-100K run."""
    p.add_argument(
        "--tune-fraction", type=float, default=0.5, help="share of questions used to tune (default 0.5)"
    )
    p.add_argument(
        "--all-qtypes", action="store_true", help="tune Part B over S1-S7 instead of the S1 headline"
    )
    p.add_argument("--points", type=int, default=12, help="curve points to print (all are written)")


def calibrate(args: argparse.Namespace) -> int:
    """Print each system's calibration curve and write the curves beside the run."""
    from memsuite.eval.benchmarks.wmb.calibration import calibrate_run, format_calibration

    results, out = calibrate_run(
        args.run_dir, tune_fraction=args.tune_fraction, headline_only=not args.all_qtypes
    )
    for system, result in results.items():
        print("\n".join(format_calibration(system, result, args.points)))
    print(f"curves written to {out}; set benchmark_options.min_score to use a cutoff")
    return 0
