"""Agreement of the LLM-free ``rule`` judges with the published official verdicts, beside a naive judge.

For every published answer set under ``<shared data>/published`` (LongMemEval: 7 sets judged by
LongMemEval's ``evaluate_qa.py`` with gpt-4o-mini; LoCoMo: Zep's answers graded by gpt-4o-mini with
mem0's J prompt), rejudges the answers with ``memsuite rejudge`` (judge ``rule``) into a scratch
folder and prints per set: answers, the rule judge's decided and undecided counts, its agreement and
Cohen's kappa with the published verdicts on the answers it decided, the agreement when every
undecided answer is counted as a disagreement (the floor), and the naive judge's agreement and kappa
on all answers. Then the pooled LongMemEval figure and LoCoMo per conversation and pooled.

The naive judge is the baseline the rule judges must beat: correct when every lower-cased
alphanumeric token of the gold occurs in the response; for an abstention question, when the response
holds a refusal word ("not", "no", "cannot", "unknown", "unanswerable", "insufficient").

    python -m perf.bench_judge_agreement [--data ../shared/data]
"""

from __future__ import annotations

import argparse
import re
import tempfile
from pathlib import Path

from memsuite.eval.metrics import agreement
from memsuite.eval.protocol import Row
from memsuite.eval.rejudge.command import rejudge
from memsuite.eval.report.agreement import PUBLISHED, value
from memsuite.eval.shared_data import CHECKOUT

_TOKEN = re.compile(r"[a-z0-9]+")
_REFUSAL_WORDS = {"not", "no", "cannot", "unknown", "unanswerable", "insufficient"}


def naive(row: Row) -> bool:
    response = set(_TOKEN.findall((row.answer or "").lower()))
    if row.metadata.get("abstention"):
        return bool(response & _REFUSAL_WORDS)
    return set(_TOKEN.findall(str(row.gold).lower())) <= response


def measure(rows: list[Row]) -> dict[str, float | int | None]:
    decided = [(value(r, "rule"), value(r, PUBLISHED)) for r in rows if value(r, "rule") is not None]
    rule = agreement(decided)
    floor = sum(x == y for x, y in decided) / len(rows)
    base = agreement([(naive(r), bool(value(r, PUBLISHED))) for r in rows])
    return {
        "answers": len(rows),
        "decided": rule["n"],
        "undecided": len(rows) - rule["n"],
        "agreement": rule["agreement"],
        "kappa": rule["kappa"],
        "floor": floor,
        "naive": base["agreement"],
        "naive_kappa": base["kappa"],
    }


def _line(name: str, m: dict) -> str:
    return (
        f"{name[:58]:<58} {m['answers']:>5} {m['decided']:>5} {m['undecided']:>5} {m['agreement']:>6.3f}"
        f" {m['kappa']:>6.3f} {m['floor']:>6.3f} {m['naive']:>6.3f} {m['naive_kappa']:>6.3f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = CHECKOUT.parent / "shared" / "data"
    parser.add_argument("--data", type=Path, default=default, help="the shared data folder")
    args = parser.parse_args()
    published = args.data / "published"
    head = ("set", "n", "dec", "und", "agree", "kappa", "floor", "naive", "kappa")
    print(f"{head[0]:<58} {head[1]:>5} {head[2]:>5} {head[3]:>5} {head[4]:>6} {head[5]:>6} {head[6]:>6}"
          f" {head[7]:>6} {head[8]:>6}")  # fmt: skip
    with tempfile.TemporaryDirectory() as scratch:
        pooled: list[Row] = []
        for index, path in enumerate(sorted((published / "longmemeval").glob("*.jsonl"))):
            data = args.data / "longmemeval" / "longmemeval_oracle.dev.json"
            folder = rejudge(path, benchmark="longmemeval", data=data, out_dir=Path(scratch) / f"lme{index}",
                             show_progress=False)  # fmt: skip
            rows = folder.rows()
            pooled += rows
            print(_line("__".join(path.stem.split("__")[2:]) or path.stem, measure(rows)))
        print(_line("LongMemEval pooled", measure(pooled)))
        zep = published / "locomo" / "zep_locomo_grades.dev.json"
        folder = rejudge(zep, benchmark="locomo", data=args.data / "locomo" / "locomo.dev.json",
                         out_dir=Path(scratch) / "zep", show_progress=False)  # fmt: skip
        rows = folder.rows()
        for unit in dict.fromkeys(r.unit_id for r in rows):
            print(_line(f"LoCoMo Zep {unit}", measure([r for r in rows if r.unit_id == unit])))
        print(_line("LoCoMo Zep pooled", measure(rows)))


if __name__ == "__main__":
    main()
