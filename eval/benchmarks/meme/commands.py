"""``memsuite generate meme``: synthetic MEME episodes in the released JSON schema."""

from __future__ import annotations

import argparse
import time
from pathlib import Path


def add_generate_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``memsuite generate meme``."""
    p.add_argument("--episodes", type=int, default=10, help="number of episodes (default 10)")
    p.add_argument(
        "--filler", choices=("none", "32k", "128k"), default="none", help="filler per episode (default none)"
    )
    p.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    # generator.dialogue.PHRASINGS, spelt out so that parsing the command line imports no generator.
    p.add_argument(
        "--phrasing",
        choices=("dev", "dev2", "dev3", "dev4", "heldout"),
        default="dev",
        help="dialogue phrasing family: dev (default) to dev4 are the families the LLM-free verdict rules"
        " were written against; heldout was written blind to those rules and measures them",
    )
    p.add_argument(
        "--domains", help="comma-separated domains to alternate over (default personal_life,software_project)"
    )
    p.add_argument(
        "--out", type=Path, required=True, help="a .json file (one array) or a folder (one file per episode)"
    )


def generate(args: argparse.Namespace) -> int:
    """Write the episodes and print what was written."""
    from memsuite.eval.benchmarks.meme.generator import generate_episodes
    from memsuite.eval.benchmarks.meme.loader import save_episodes

    start = time.perf_counter()
    domains = {"domains": args.domains.split(",")} if args.domains else {}
    episodes = generate_episodes(
        args.episodes, seed=args.seed, filler=args.filler, phrasing=args.phrasing, **domains
    )
    save_episodes(episodes, args.out)
    tokens = sum(e.extra["total_tokens"] for e in episodes)
    print(
        f"wrote {len(episodes)} MEME episodes (filler {args.filler}, seed {args.seed},"
        f" {args.phrasing} phrasing, {tokens:,} cl100k tokens) to {args.out}"
        f" in {time.perf_counter() - start:.1f} s"
    )
    return 0
