"""Agreement of MEME's evidence verdict and rule judge with gold, dev vs held-out phrasing.

Generates ``--episodes`` episodes (no filler) in each phrasing family from the same seed and prints,
per family, the share of questions where the evidence verdict agrees with gold both ways (True on the
gold evidence context, False on every control without a key session), each half apart, and the share
where the rule judge passes the gold answer and fails a stale one
(:mod:`memsuite.eval.benchmarks.meme.agreement`). The rules were written against ``dev`` and corrected on
``dev2`` to ``dev4`` (retired held-out families); ``heldout`` was written blind to them. ``--misses 0`` keeps
the held-out misses unread.

    python -m perf.bench_meme_phrasing [--episodes 50] [--seed 0] [--misses 10] [--phrasing ...]
"""

from __future__ import annotations

import argparse
import json

from memsuite.eval.benchmarks.meme.agreement import agreement
from memsuite.eval.benchmarks.meme.generator import generate_episodes
from memsuite.eval.benchmarks.meme.generator.dialogue import PHRASINGS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--misses", type=int, default=10, help="disagreements to print per family")
    parser.add_argument("--phrasing", nargs="+", default=list(PHRASINGS), help="families to measure")
    args = parser.parse_args()
    head = ("phrasing", "questions", "evidence vs gold", "yes on gold", "no on controls", "rule judge")
    print(f"{head[0]:<9} {head[1]:>9} {head[2]:>17} {head[3]:>17} {head[4]:>20} {head[5]:>18}")
    found = {}
    for phrasing in args.phrasing:
        result = agreement(generate_episodes(args.episodes, seed=args.seed, phrasing=phrasing))
        found[phrasing] = result
        print(
            f"{phrasing:<9} {result.questions:>9} {result.evidence_rate:>16.1%} {result.positive_rate:>17.1%}"
            f" {result.control_rate:>14.1%} of {result.controls:<4} {result.rule_rate:>18.1%}"
        )
    for phrasing, result in found.items():
        for miss in result.misses[: args.misses]:
            print(phrasing, json.dumps(miss, ensure_ascii=False))


if __name__ == "__main__":
    main()
