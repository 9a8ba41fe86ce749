"""LoCoMo summaries: per judge, the mean per category and overall, as the published tables lay them out.

A row's value under a judge: ``evidence`` -- its recall of evidence ids (turn memories) or 1/0 for
the gold answer in the context (other memories); ``f1`` -- LoCoMo's per-category score; ``llm`` -- 1/0.
Rows whose verdict failed (an answer or judge call failed: ``correct`` None with ``failure``) are left
out and counted in the cell's ``n_failed``; rows where the verdict is undefined (no evidence id,
category 5 under the LLM judge) are left out and counted as ``undefined``. Overall is over questions,
categories 1-4 (the published comparisons leave adversarial questions out), or 1-5 with
``adversarial_in_overall``; adversarial accuracy is always its own cell.

The audited key (:mod:`.audit`, rows whose verdicts hold ``audited``): ``by_judge_audited`` has the
same cells with each verdict read under the audited key (:func:`audited_value`), AMBIGUOUS questions
left out and counted apart (``ambiguous``: their n and their original-key mean), ``flips`` (decided
verdicts the audit turns right or wrong) and ``ceiling``: per category, the best the original key
allows, the share of questions whose gold the audit does not mark wrong or ambiguous.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any

from memsuite.eval.analysis.metrics import mean
from memsuite.eval.benchmarks.locomo.audit import AMBIGUOUS
from memsuite.eval.benchmarks.locomo.schema import ADVERSARIAL, CATEGORY_NAMES, CATEGORY_ORDER
from memsuite.eval.protocol import Row


def row_value(row: Row, judge: str) -> tuple[float | None, str | None]:
    """``(value, None)`` for a scored row, else ``(None, "failed" | "undefined" | "absent")``."""
    return verdict_value(row.verdicts.get(judge), judge)


def audited_value(row: Row, judge: str) -> tuple[float | None, str | None]:
    """:func:`row_value` under the audited key: the verdict's ``audited`` reading where it has one
    (``(None, "ambiguous")`` for an AMBIGUOUS finding), else the verdict itself."""
    verdict = row.verdicts.get(judge)
    audited = verdict.get("audited") if isinstance(verdict, dict) else None
    if not isinstance(audited, dict):
        return row_value(row, judge)
    if audited.get("ambiguous"):
        return None, "ambiguous"
    return verdict_value({**verdict, **audited}, judge)


def category_cells(row: Row, with_adversarial: bool) -> tuple[str, ...]:
    """The cells a row's value counts in: its category, and ``overall`` unless it is adversarial and
    adversarial questions are kept out of overall."""
    category = int(row.metadata.get("category", 0))
    name = CATEGORY_NAMES.get(category, "?")
    return (name, "overall") if with_adversarial or category != ADVERSARIAL else (name,)


def verdict_value(verdict: object, judge: str) -> tuple[float | None, str | None]:
    """The value of one verdict dict under ``judge`` (:func:`row_value`)."""
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


def judge_scores(
    rows: Iterable[Row],
    judge: str,
    *,
    adversarial_in_overall: bool = False,
    value_of: Callable[[Row, str], tuple[float | None, str | None]] = row_value,
) -> dict[str, Any]:
    """Mean value per category name and overall, with the counts behind each (``value_of`` reads a
    row: :func:`row_value`, or :func:`audited_value` for the audited key)."""
    values: dict[int, list[float]] = defaultdict(list)
    missing: dict[int, dict[str, int]] = defaultdict(lambda: {"failed": 0, "undefined": 0})
    basis: set[str] = set()
    for row in rows:
        category = int(row.metadata.get("category", 0))
        value, why = value_of(row, judge)
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


def _correct(verdict: object) -> bool | None:
    if not isinstance(verdict, dict) or verdict.get("failure"):
        return None
    correct = verdict.get("correct")
    return None if correct is None else bool(correct)


def audit_scores(rows: list[Row], judge: str, *, adversarial_in_overall: bool = False) -> dict[str, Any]:
    """``judge``'s cells under the audited key, with the ambiguous questions apart and the flips."""
    scores = judge_scores(rows, judge, adversarial_in_overall=adversarial_in_overall, value_of=audited_value)
    ambiguous: list[float] = []
    to_right = to_wrong = 0
    for row in rows:
        verdict = row.verdicts.get(judge)
        audited = verdict.get("audited") if isinstance(verdict, dict) else None
        if not isinstance(audited, dict):
            continue
        if audited.get("ambiguous"):
            value = row_value(row, judge)[0]
            ambiguous.append(value) if value is not None else None
            continue
        before, after = _correct(verdict), _correct(audited)
        if before is not None and after is not None and before != after:
            to_right += after
            to_wrong += not after
    return {
        **scores,
        "ambiguous": {"n": len(ambiguous), "mean": mean(ambiguous)},
        "flips": {"to_right": to_right, "to_wrong": to_wrong, "n": to_right + to_wrong},
    }


def original_key_ceiling(rows: list[Row]) -> dict[str, Any]:
    """Per category (and overall of categories 1-4): questions, those whose gold the audit marks wrong
    or ambiguous, and the ceiling, the share left (the best any system can score under the original key)."""
    asked: dict[int, set[tuple[str, str]]] = defaultdict(set)
    flagged: dict[int, set[tuple[str, str]]] = defaultdict(set)
    for row in rows:
        category = int(row.metadata.get("category", 0))
        asked[category].add((row.unit_id, row.question_id))
        finding = row.metadata.get("audit")
        finding = finding if isinstance(finding, dict) else {}
        if finding.get("changes_answer") or finding.get("error_type") == AMBIGUOUS:
            flagged[category].add((row.unit_id, row.question_id))

    def cell(categories: list[int]) -> dict[str, Any]:
        n = sum(len(asked[c]) for c in categories)
        bad = sum(len(flagged[c]) for c in categories)
        return {"n": n, "flagged": bad, "ceiling": (n - bad) / n if n else None}

    return {
        **{CATEGORY_NAMES[c]: cell([c]) for c in CATEGORY_ORDER if c != ADVERSARIAL and asked[c]},
        "overall": cell([c for c in CATEGORY_ORDER if c != ADVERSARIAL]),
    }


def locomo_scores(
    rows: list[Row], *, adversarial_in_overall: bool = False, answer_key: str = "original"
) -> dict[str, Any]:
    """Scores under every judge present, evidence recall and answer-in-context per category; with
    ``answer_key`` ``audited`` or ``both``, the audited key's scores and the original key's ceiling."""
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
    audited = {}
    if answer_key != "original":
        audited = {
            "by_judge_audited": {
                j: audit_scores(rows, j, adversarial_in_overall=adversarial_in_overall) for j in judges
            },
            "original_key_ceiling": original_key_ceiling(rows),
        }
    return {
        "k": ks[0] if len(ks) == 1 else ks,
        "adversarial_in_overall": adversarial_in_overall,
        "answer_key": answer_key,
        **audited,
        "by_judge": {j: judge_scores(rows, j, adversarial_in_overall=adversarial_in_overall) for j in judges},
        "answer_in_context": {
            **{name: {"n": len(flags), "rate": mean(flags)} for name, flags in in_context.items()},
            "overall": {"n": len(all_flags), "rate": mean(all_flags)},
        },
    }
