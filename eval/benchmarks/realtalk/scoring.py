"""REALTALK summaries of one system's rows: evidence retrieval and answer scores, overall and per
category.

Retrieval (rows whose ``retrieval`` verdict has metrics): every metric at each depth, averaged over the
scored questions; questions citing no id the chat holds are counted apart (``n_unscored``), and rows
without a ranking too (``n_undefined``).

Answers, per judge (``f1``: the release's lexical score; ``llm``: its 0-1 LLM score; ``rule``: LoCoMo's
rule judge, 1 or 0): the mean score and the share fully correct over the questions judged; a failed
answer or judge call is left out and counted (``n_failed``), an undecided or undefined verdict too
(``n_undefined``). ``rule`` adds its ``coverage``: decided verdicts over verdicts given.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

from memsuite.eval.analysis.metrics import mean
from memsuite.eval.benchmarks.beam.judges.retrieval import KS, METRICS
from memsuite.eval.benchmarks.realtalk.schema import CATEGORY_NAMES
from memsuite.eval.protocol import Row

ANSWER_JUDGES = ("f1", "llm", "rule")


def category_of(row: Row) -> str:
    category = row.metadata.get("category")
    return CATEGORY_NAMES.get(category, f"category-{category}")


def row_metrics(row: Row) -> dict[str, float] | None:
    """The row's retrieval metrics, or None (unscored, or no ranking)."""
    found = (row.verdicts.get("retrieval") or {}).get("metrics")
    return found if isinstance(found, dict) and found else None


def answer_value(row: Row, judge: str) -> float | None:
    """The question's score under ``judge`` (None: failed, undecided, undefined, absent)."""
    verdict = row.verdicts.get(judge)
    if not isinstance(verdict, dict) or verdict.get("failure") or verdict.get("correct") is None:
        return None
    score = verdict.get("score")
    return float(score) if score is not None else float(bool(verdict["correct"]))


def _grouped(rows: list[Row], block: Callable[[list[Row]], dict[str, Any]]) -> dict[str, Any]:
    by_category: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        by_category[category_of(row)].append(row)
    order = [*CATEGORY_NAMES.values(), *sorted(set(by_category) - set(CATEGORY_NAMES.values()))]
    return {
        "overall": block(rows),
        "by_category": {c: block(by_category[c]) for c in order if c in by_category},
    }


def _retrieval_block(rows: list[Row]) -> dict[str, Any]:
    found = [m for m in (row_metrics(r) for r in rows) if m is not None]
    depths = sorted({int(key.rsplit("@", 1)[1]) for m in found for key in m} | set(KS))
    unscored = sum(1 for r in rows if not r.metadata.get("relevant"))
    return {
        "n": len(found),
        "n_unscored": unscored,
        "n_undefined": len(rows) - len(found) - unscored,
        **{
            f"{name}@{k}": mean(m[f"{name}@{k}"] for m in found if f"{name}@{k}" in m)
            for name in METRICS
            for k in depths
        },
    }


def retrieval_scores(rows: list[Row]) -> dict[str, Any] | None:
    """Retrieval averages (module docstring), or None when no row has a ranking."""
    if not any(row_metrics(r) for r in rows):
        return None
    return {
        "k": rows[0].metadata.get("k"),
        "granularity": rows[0].metadata.get("granularity"),
        **_grouped(rows, _retrieval_block),
    }


def _answer_block(judge: str) -> Callable[[list[Row]], dict[str, Any]]:
    def block(rows: list[Row]) -> dict[str, Any]:
        verdicts = [r.verdicts[judge] for r in rows if isinstance(r.verdicts.get(judge), dict)]
        failed = sum(1 for v in verdicts if v.get("failure"))
        values = [v for v in (answer_value(r, judge) for r in rows) if v is not None]
        correct = [
            1.0 if v["correct"] else 0.0
            for v in verdicts
            if not v.get("failure") and v.get("correct") is not None
        ]
        out = {
            "score": mean(values),
            "correct": mean(correct),
            "n": len(values),
            "n_failed": failed,
            "n_undefined": len(verdicts) - failed - len(values),
        }
        if judge == "rule":
            given = len(verdicts) - failed
            out["coverage"] = len(values) / given if given else None
        return out

    return block


def answer_scores(rows: list[Row], judge: str) -> dict[str, Any] | None:
    """``judge``'s scores overall and per category, or None when no row carries it."""
    if not any(judge in r.verdicts for r in rows):
        return None
    return _grouped(rows, _answer_block(judge))


def realtalk_scores(rows: list[Row]) -> dict[str, Any]:
    return {
        "questions": len(rows),
        "retrieval": retrieval_scores(rows),
        **{judge: answer_scores(rows, judge) for judge in ANSWER_JUDGES},
    }
