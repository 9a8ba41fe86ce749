"""Evidence recall@k per category, and the answer-in-context rate, from one LoCoMo run folder.

One run at the largest k gives every smaller k: each row keeps its retrieved turns in rank order
(``metadata.retrieved_dia_ids``), so recall@k is the share of the question's evidence ids among the
first k of them (LoCoMo ``task_eval/evaluation.py``; questions without a well-formed evidence id are
left out, as in the run's summary). Only systems whose memories are turns have a recall; the
answer-in-context rate (LoCoMo's ``has_answer`` of the gold answer in the context the run handed on,
categories 1-4) is printed for every system. A k above the run's own k is refused.

    .venv/bin/python -m memsuite run configs/locomo_quick.yaml --set k=25 --out /tmp/lq25
    .venv/bin/python perf/locomo_recall_table.py /tmp/lq25 --ks 5 10 25
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memsuite.eval.analysis.metrics import mean
from memsuite.eval.benchmarks.locomo.schema import ADVERSARIAL, CATEGORY_NAMES, CATEGORY_ORDER
from memsuite.eval.retrieval_qa.category_f1 import evidence_recall
from memsuite.eval.run.folder import load_runs


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="a LoCoMo run folder")
    parser.add_argument("--ks", type=int, nargs="+", default=[5, 10, 25])
    args = parser.parse_args()
    (run,) = load_runs([args.run])
    if run.benchmark != "locomo":
        sys.exit(f"{args.run} is a {run.benchmark} run, not locomo")
    run_k = int(run.config.get("k"))
    if max(args.ks) > run_k:
        sys.exit(f"{args.run} retrieved k={run_k}: recall@{max(args.ks)} cannot be computed from it")
    names = [CATEGORY_NAMES[c] for c in CATEGORY_ORDER]
    print(f"evidence recall@k (%) per category, {args.run} (run k={run_k})\n")
    print("| system | k | " + " | ".join(names) + " | overall 1-4 | questions |")
    print("|---" * (len(names) + 4) + "|")
    in_context_lines = []
    for system in run.systems:
        rows = run.rows(system)
        flags = [r.metadata["answer_in_context"] for r in rows if r.metadata.get("category") != ADVERSARIAL]
        flags = [bool(f) for f in flags if f is not None]
        in_context_lines.append(f"| {system} | {_pct(mean([float(f) for f in flags]))} | {len(flags)} |")
        if not any(r.metadata.get("memories_are_turns") for r in rows):
            continue
        if any(len(r.metadata["retrieved_dia_ids"]) > run_k for r in rows):
            # A reference row (full_context, gold_evidence) hands over turns that are not a top-k
            # ranking: cutting them at k would measure their order, not retrieval.
            print(f"| {system} | all | (context is not a top-k ranking: see the report's evidence verdict) |")
            continue
        for k in args.ks:
            by_category: dict[int, list[float]] = defaultdict(list)
            for row in rows:
                recall = evidence_recall(row.metadata["evidence"], row.metadata["retrieved_dia_ids"][:k])
                if recall is not None:
                    by_category[int(row.metadata["category"])].append(recall)
            main_values = [v for c, values in by_category.items() if c != ADVERSARIAL for v in values]
            cells = [_pct(mean(by_category[c])) for c in CATEGORY_ORDER]
            print(
                f"| {system} | {k} | " + " | ".join(cells) + f" | {_pct(mean(main_values))} | "
                f"{len(main_values)} |"
            )
    print("\ngold answer in the context (%), categories 1-4\n")
    print("| system | answer_in_context | questions |\n|---|---|---|")
    print("\n".join(in_context_lines))


if __name__ == "__main__":
    main()
