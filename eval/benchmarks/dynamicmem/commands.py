"""``memsuite generate dynamicmem``: synthetic DynamicMem users in the released layout."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from memsuite.memory_systems.errors import ConfigError


def add_generate_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``memsuite generate dynamicmem``."""
    p.add_argument("--users", type=int, default=10, help="number of users (default 10)")
    p.add_argument("--months", type=int, default=15, help="trajectory length in months (default 15: C1..C5)")
    p.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    p.add_argument(
        "--activity", type=float, default=1.0, help="event volume (default 1.0: ~1,500-2,000 events per user)"
    )
    p.add_argument("--out", type=Path, required=True, help="folder to write one folder per user into")


def generate(args: argparse.Namespace) -> int:
    """Write the users and print what was written.

    Raises:
        ConfigError: A count that is not positive.
    """
    from memsuite.eval.benchmarks.dynamicmem.generator import generate_users, write_users

    if args.users < 1 or args.months < 1 or not args.activity > 0:
        raise ConfigError("--users and --months must be positive integers and --activity a positive number")
    start = time.perf_counter()
    users = generate_users(args.users, seed=args.seed, months=args.months, activity=args.activity)
    write_users(users, args.out)
    events = sum(len(u.app_logs) for u in users)
    print(
        f"wrote {len(users)} DynamicMem users ({args.months} months, seed {args.seed}, {events:,} events) "
        f"to {args.out} in {time.perf_counter() - start:.1f} s"
    )
    return 0
