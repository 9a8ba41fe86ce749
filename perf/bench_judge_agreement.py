"""Agreement of the LLM-free ``rule`` judges with the published official verdicts, beside a naive judge,
and their leniency on answers written to be wrong.

For every published answer set under ``<shared data>/published``, rejudges the answers with
``memsuite rejudge`` into a scratch folder and prints one line per set:

- LongMemEval (7 sets judged by LongMemEval's ``evaluate_qa.py`` with gpt-4o-mini) and LoCoMo (Zep's
  answers graded by gpt-4o-mini with mem0's J prompt; the LoCoMo audit's four full-context ``fc_*``
  sets, each judged three times by gpt-4o-mini with the "be generous" J prompt, the majority being the
  published verdict): answers, the judge's undecided share, its agreement and Cohen's kappa with the
  published verdicts on the answers it decided, the strict agreement (every undecided answer counted
  as a disagreement), the naive judge's agreement and kappa, and, where the file keeps every published
  judgment, the published judge's self-agreement (mean agreement of every two of its calls: its own
  noise floor);
- the audit's two adversarial sets (every answer wrong by construction: ``adversarial_v1_specific``,
  ``adversarial_v2_vague``): the share each judge accepts (its leniency), its undecided share, and the
  published judge's acceptance (majority) beside it.

``--judges`` names the judges to measure (default ``rule``; LoCoMo's ``rule_official`` is the rule
judge with the official J prompt's generosity). ``--misses DIR`` writes each set's disagreements and
undecided answers as CSV there (for reading the rules' misses on the dev sets).

The naive judge is the baseline the rule judges must beat: correct when every lower-cased
alphanumeric token of the gold occurs in the response; for an abstention question, when the response
holds a refusal word ("not", "no", "cannot", "unknown", "unanswerable", "insufficient").

    python -m perf.bench_judge_agreement [--data ../shared/data] [--judges rule,rule_official]

(``--data`` defaults to ``$MEMSUITE_SHARED_DATA``, else ``../shared/data`` beside the checkout.)
"""

from __future__ import annotations

import argparse
import csv
import os
import re
import tempfile
from itertools import combinations
from pathlib import Path
from statistics import mean

from memsuite.eval.analysis.metrics import agreement
from memsuite.eval.protocol import Row
from memsuite.eval.rejudge.command import rejudge
from memsuite.eval.report.agreement import PUBLISHED, value

_TOKEN = re.compile(r"[a-z0-9]+")
_REFUSAL_WORDS = {"not", "no", "cannot", "unknown", "unanswerable", "insufficient"}
_LOCOMO_ONLY = {"rule_official"}


def naive(row: Row) -> bool:
    response = set(_TOKEN.findall((row.answer or "").lower()))
    if row.metadata.get("abstention"):
        return bool(response & _REFUSAL_WORDS)
    return set(_TOKEN.findall(str(row.gold).lower())) <= response


def self_agreement(rows: list[Row]) -> float | None:
    """Mean agreement of every two published judgments, where the file keeps them."""
    kept = [r.metadata.get("published_judgments") for r in rows]
    kept = [k for k in kept if isinstance(k, list) and len(k) > 1]
    if not kept:
        return None
    width = min(len(k) for k in kept)
    return mean(sum(k[i] == k[j] for k in kept) / len(kept) for i, j in combinations(range(width), 2))


def measure(rows: list[Row], judge: str) -> dict[str, float | int | None]:
    published = [r for r in rows if value(r, PUBLISHED) is not None]
    decided = [(value(r, judge), value(r, PUBLISHED)) for r in published if value(r, judge) is not None]
    rule = agreement(decided)
    base = agreement([(naive(r), bool(value(r, PUBLISHED))) for r in published])
    return {
        "answers": len(published),
        "undecided": len(published) - rule["n"],
        "agreement": rule["agreement"],
        "kappa": rule["kappa"],
        "strict": sum(x == y for x, y in decided) / len(published),
        "naive": base["agreement"],
        "naive_kappa": base["kappa"],
        "self": self_agreement(published),
    }


def acceptance(rows: list[Row], judge: str) -> dict[str, float | int]:
    """The share of (known-wrong) answers ``judge`` accepts, its undecided share, and the published's."""
    published = [value(r, PUBLISHED) for r in rows]
    return {
        "answers": len(rows),
        "accepted": sum(value(r, judge) is True for r in rows) / len(rows),
        "undecided": sum(value(r, judge) is None for r in rows) / len(rows),
        "published": sum(p is True for p in published) / len(rows),
        "self": self_agreement(rows),
    }


def _f(number: float | None, width: int = 6) -> str:
    return f"{'-':>{width}}" if number is None else f"{number:>{width}.3f}"


def _line(name: str, judge: str, m: dict) -> str:
    undecided = m["undecided"] / m["answers"]
    return (
        f"{name[:44]:<44} {judge:<13} {m['answers']:>5} {undecided:>6.1%} {_f(m['agreement'])} "
        f"{_f(m['kappa'])} {_f(m['strict'])} {_f(m['naive'])} {_f(m['naive_kappa'])} {_f(m['self'])}"
    )


def _write_misses(
    folder: Path | None, name: str, judge: str, rows: list[Row], *, wrong: bool = False
) -> None:
    """The set's rows where ``judge`` is undecided or disagrees with the published verdict (``wrong``:
    every answer is wrong, so the rows it does not reject)."""
    if folder is None:
        return
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / f"{name}.{judge}.csv").open("w", newline="", encoding="utf-8") as handle:
        out = csv.writer(handle)
        out.writerow(["unit", "question_id", "group", "question", "gold", "answer", "rule", "published",
                      "reason"])  # fmt: skip
        for r in rows:
            mine, theirs = value(r, judge), value(r, PUBLISHED)
            if (mine is not False) if wrong else (mine is None or (theirs is not None and mine != theirs)):
                group = r.metadata.get("question_type") or r.metadata.get("category")
                reason = (r.verdicts.get(judge) or {}).get("reason")
                out.writerow([r.unit_id, r.question_id, group, r.question, r.gold, r.answer, mine, theirs,
                              reason])  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    beside = Path(__file__).resolve().parents[2] / "shared" / "data"
    default = Path(os.environ.get("MEMSUITE_SHARED_DATA") or beside)
    parser.add_argument("--data", type=Path, default=default, help="the shared data folder")
    parser.add_argument("--judges", default="rule", help="comma-separated judges to measure (default rule)")
    parser.add_argument("--misses", type=Path, help="write each set's disagreements as CSV into this folder")
    args = parser.parse_args()
    judges = [j for j in args.judges.split(",") if j]
    published = args.data / "published"
    locomo = args.data / "locomo" / "locomo.dev.json"
    head = ("set", "judge", "n", "undec", "agree", "kappa", "strict", "naive", "kappa", "self")
    print(f"{head[0]:<44} {head[1]:<13} {head[2]:>5} {head[3]:>6} " + " ".join(f"{h:>6}" for h in head[4:]))
    with tempfile.TemporaryDirectory() as scratch:
        lme_judges = [j for j in judges if j not in _LOCOMO_ONLY]
        pooled: list[Row] = []
        for index, path in enumerate(sorted((published / "longmemeval").glob("*.jsonl"))):
            data = args.data / "longmemeval" / "longmemeval_oracle.dev.json"
            folder = rejudge(path, benchmark="longmemeval", data=data, out_dir=Path(scratch) / f"lme{index}",
                             judges=lme_judges, show_progress=False)  # fmt: skip
            rows = folder.rows()
            pooled += rows
            name = "__".join(path.stem.split("__")[2:]) or path.stem
            for judge in lme_judges:
                print(_line(name, judge, measure(rows, judge)))
                _write_misses(args.misses, f"lme{index}", judge, rows)
        for judge in lme_judges:
            print(_line("LongMemEval pooled", judge, measure(pooled, judge)))
        zep = published / "locomo" / "zep_locomo_grades.dev.json"
        folder = rejudge(zep, benchmark="locomo", data=locomo, out_dir=Path(scratch) / "zep",
                         judges=judges, show_progress=False)  # fmt: skip
        rows = folder.rows()
        for judge in judges:
            print(_line("LoCoMo Zep", judge, measure(rows, judge)))
            _write_misses(args.misses, "zep", judge, rows)
        audit = published / "locomo" / "audit"
        for path in sorted(audit.glob("fc_*.json")):
            folder = rejudge(path, benchmark="locomo", data=locomo, out_dir=Path(scratch) / path.stem,
                             judges=judges, show_progress=False)  # fmt: skip
            rows = folder.rows()
            for judge in judges:
                print(_line(f"LoCoMo audit {path.stem}", judge, measure(rows, judge)))
                _write_misses(args.misses, path.stem, judge, rows)
        print()
        print(f"{'wrong by construction':<44} {'judge':<13} {'n':>5} {'accept':>7} {'undec':>6} "
              f"{'published':>9} {'self':>6}")  # fmt: skip
        for path in sorted(audit.glob("adversarial_*.json")):
            folder = rejudge(path, benchmark="locomo", data=locomo, out_dir=Path(scratch) / path.stem,
                             judges=judges, show_progress=False)  # fmt: skip
            rows = folder.rows()
            for judge in judges:
                m = acceptance(rows, judge)
                print(f"{path.stem:<44} {judge:<13} {m['answers']:>5} {m['accepted']:>7.1%} "
                      f"{m['undecided']:>6.1%} {m['published']:>9.1%} {_f(m['self'])}")  # fmt: skip
                _write_misses(args.misses, path.stem, judge, rows, wrong=True)


if __name__ == "__main__":
    main()
