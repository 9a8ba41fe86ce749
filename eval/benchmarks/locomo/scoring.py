"""LoCoMo summaries: per judge, the mean per category and overall, as the published tables lay them out.

A row's value under a judge: ``evidence`` -- its recall of evidence ids (turn memories) or 1/0 for
the gold answer in the context (other memories); ``f1`` -- LoCoMo's per-category score; ``llm`` -- 1/0.
Rows whose verdict failed (an answer or judge call failed: ``correct`` None with ``failure``) are left
out and counted in the cell's ``n_failed``; rows where the verdict is undefined (no evidence id,
category 5 under the LLM judge) are left out and counted as ``undefined``. Overall is over questions,
categories 1-4 (the published comparisons leave adversarial questions out), or 1-5 with
``adversarial_in_overall``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from memsuite.eval.benchmarks.locomo.schema import ADVERSARIAL, CATEGORY_NAMES, CATEGORY_ORDER
from memsuite.eval.metrics import mean
from memsuite.eval.protocol import Row


def row_value(row: Row, judge: str) -> tuple[float | None, str | None]:
    """``(value, None)`` for a scored row, else ``(None, "failed" | "undefined" | "absent")``."""
    verdict = row.verdicts.get(judge)
    if not isinstance(verdict, dict):
        return None, "absent"
    if verdict.get("failure"):
        return None, "failed"
    if judge == "evidence" and verdict.get("basis") == "turns":
        recall = verdict.get("recall")
        return (float(recall), None) if recall is not None else (None, "undefined")
    if judge == "f1" and verdict.get("score") is not None:
        return float(verdict["score"]), None
    correct = verdict.get("correct")
    if correct is None:
        return None, "undefined"
    return (1.0 if correct else 0.0), None


def _cell(values: list[float], failed: int, undefined: int) -> dict[str, Any]:
    return {"n": len(values), "mean": mean(values), "n_failed": failed, "undefined": undefined}


def judge_scores(rows: Iterable[Row], judge: str, *, adversarial_in_overall: bool = False) -> dict[str, Any]:
    """Mean value per category name and overall, with the counts behind each."""
    values: dict[int, list[float]] = defaultdict(list)
    missing: dict[int, dict[str, int]] = defaultdict(lambda: {"failed": 0, "undefined": 0})
    basis: set[str] = set()
    for row in rows:
        category = int(row.metadata.get("category", 0))
        value, why = row_value(row, judge)
        verdict = row.verdicts.get(judge)
        if isinstance(verdict, dict) and verdict.get("basis"):
            basis.add(str(verdict["basis"]))
        if value is not None:
            values[category].append(value)
        elif why in ("failed", "undefined"):
            missing[category][why] += 1
    categories = {
        CATEGORY_NAMES[c]: _cell(values[c], missing[c]["failed"], missing[c]["undefined"])
        for c in CATEGORY_ORDER
        if values[c] or any(missing[c].values())
    }

    def overall(with_adversarial: bool) -> dict[str, Any]:
        chosen = [c for c in CATEGORY_ORDER if with_adversarial or c != ADVERSARIAL]
        return _cell(
            [v for c in chosen for v in values[c]],
            sum(missing[c]["failed"] for c in chosen),
            sum(missing[c]["undefined"] for c in chosen),
        )

    return {
        "categories": categories,
        "overall": overall(adversarial_in_overall),
        "overall_without_adversarial": overall(False),
        "overall_with_adversarial": overall(True),
        "basis": sorted(basis),
    }


def locomo_scores(rows: list[Row], *, adversarial_in_overall: bool = False) -> dict[str, Any]:
    """Scores under every judge present, evidence recall and answer-in-context per category."""
    judges = sorted({name for row in rows for name in row.verdicts})
    in_context: dict[str, list[float]] = defaultdict(list)
    for row in rows:
        flag = row.metadata.get("answer_in_context")
        if flag is not None:
            in_context[CATEGORY_NAMES.get(int(row.metadata["category"]), "?")].append(1.0 if flag else 0.0)
    all_flags = [
        v for name, flags in in_context.items() if name != CATEGORY_NAMES[ADVERSARIAL] for v in flags
    ]
    ks = sorted({int(row.metadata["k"]) for row in rows if "k" in row.metadata})
    return {
        "k": ks[0] if len(ks) == 1 else ks,
        "adversarial_in_overall": adversarial_in_overall,
        "by_judge": {j: judge_scores(rows, j, adversarial_in_overall=adversarial_in_overall) for j in judges},
        "answer_in_context": {
            **{name: {"n": len(flags), "rate": mean(flags)} for name, flags in in_context.items()},
            "overall": {"n": len(all_flags), "rate": mean(all_flags)},
        },
    }
