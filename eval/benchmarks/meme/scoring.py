"""MEME scores from rows: per-task rates with the trivial-pass filter, Overall, and the paper's table.

Pure functions of rows (MEME paper, arXiv 2605.12477). A MEME row carries in ``metadata``: ``task`` (ER, Agg,
Tr, Del, Cas, Abs), ``phase`` (before / after) and ``entities`` (the target entity ids).

Trivial-pass filter (paper): an after-answer to Cas, Abs or Del counts as a pass only if the
before-question on the same entity also passed -- otherwise a system that never stored the fact
would "pass" Deletion or Absence by knowing nothing. Labels: ``real`` (before and after pass),
``trivial`` (after passes, before failed), ``knew_but_failed`` (before passes, after fails),
``never_knew`` (both fail). A Cas/Abs/Del after-question without a before-question keeps its own
verdict and is labelled ``unfiltered`` (so is one whose before-question has no verdict because its
LLM call failed).

Failed calls: a row whose verdict carries ``failure`` (the answer or judge call failed,
:mod:`memsuite.eval.answer`) is left out of every rate and counted in ``n_failed`` (per task, after-questions)
and ``rows_failed`` (all of them), next to ``n``.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from memsuite.eval.analysis.metrics import mean, verdict_of
from memsuite.eval.answer import failed
from memsuite.eval.protocol import Row

TASKS = ("ER", "Agg", "Tr", "Del", "Cas", "Abs")
FILTERED_TASKS = ("Cas", "Abs", "Del")


def _entity_key(row: Row) -> tuple[str, tuple[str, ...]]:
    return row.unit_id, tuple(row.metadata.get("entities") or ())


def filter_labels(rows: list[Row], judge: str = "rule") -> dict[int, str]:
    """Trivial-pass label of each Cas/Abs/Del after-row, keyed by the row's index in ``rows``."""
    before: dict[tuple, bool | None] = {}
    for row in rows:
        if row.metadata.get("phase") == "before":
            key = (*_entity_key(row), row.metadata.get("task"))
            before[key] = verdict_of(row, judge)
            before.setdefault(_entity_key(row), verdict_of(row, judge))
    labels = {}
    for i, row in enumerate(rows):
        if row.metadata.get("phase") != "after" or row.metadata.get("task") not in FILTERED_TASKS:
            continue
        key = (*_entity_key(row), row.metadata["task"])
        knew = before.get(key, before.get(_entity_key(row)))
        passed = bool(verdict_of(row, judge))
        if knew is None:
            labels[i] = "unfiltered"
        elif knew:
            labels[i] = "real" if passed else "knew_but_failed"
        else:
            labels[i] = "trivial" if passed else "never_knew"
    return labels


def _after_pass(verdict: bool, label: str | None) -> bool:
    """An after-question's pass: its verdict, or for a filtered one whether before and after passed."""
    return bool(verdict) if label in (None, "unfiltered") else label == "real"


def after_passes(rows: list[Row], judge: str = "rule") -> list[tuple[Row, str, float]]:
    """(row, task, 1.0 / 0.0) of every after-question :func:`meme_scores` counts in a task rate.

    The per-question outcomes behind the rates (trivial-pass filter applied; rows without a verdict
    left out), for intervals and paired comparisons.
    """
    labels = filter_labels(rows, judge)
    out = []
    for i, row in enumerate(rows):
        verdict = verdict_of(row, judge)
        if verdict is None or row.metadata.get("phase") == "before":
            continue
        out.append((row, row.metadata.get("task"), float(_after_pass(verdict, labels.get(i)))))
    return out


def before_passes(rows: list[Row], judge: str = "rule") -> list[tuple[Row, str, float]]:
    """(row, task, 1.0 / 0.0) of every before-question :func:`meme_scores` counts in a ``before`` rate
    (rows without a verdict left out), for intervals."""
    out = []
    for row in rows:
        verdict = verdict_of(row, judge)
        if verdict is not None and row.metadata.get("phase") == "before":
            out.append((row, row.metadata.get("task"), float(bool(verdict))))
    return out


def meme_scores(rows: list[Row], judge: str = "rule") -> dict[str, Any]:
    """Per-task rates over after-questions (Cas/Abs/Del filtered), Overall, and diagnostics.

    Args:
        rows: Rows of one system.
        judge: Which judge's verdicts to score ("rule" or "llm").

    Returns:
        ``{"tasks": {task: rate}, "Overall": mean of the six rates (None if any task has no rows
        with a verdict; rows without a verdict are left out of rates),
        "n": {task: count}, "n_failed": {task: after-rows left out because an LLM call failed},
        "rows_failed": int (every such row), "before": {task: rate}, "filter": {label: count},
        "judge_failures": int}``.
    """
    labels = filter_labels(rows, judge)
    passes: dict[str, list[float]] = defaultdict(list)
    before: dict[str, list[float]] = defaultdict(list)
    failures = rows_failed = 0
    n_failed: Counter[str] = Counter()
    for i, row in enumerate(rows):
        task, verdict = row.metadata.get("task"), verdict_of(row, judge)
        if failed(row, judge):
            rows_failed += 1
            n_failed[task] += row.metadata.get("phase") != "before"
        if verdict is None:
            # No verdict: the judge failed (counted) or has no rule for this task (the evidence judge
            # on Abs/Del after the change). Either way the row is left out of the rate, not failed.
            failures += judge in row.verdicts and judge != "evidence"
            continue
        if row.metadata.get("phase") == "before":
            before[task].append(float(bool(verdict)))
            continue
        passes[task].append(float(_after_pass(verdict, labels.get(i))))
    rates = {task: mean(passes[task]) for task in TASKS}
    overall = None if any(rate is None for rate in rates.values()) else sum(rates.values()) / len(TASKS)
    return {
        "judge": judge,
        "tasks": rates,
        "Overall": overall,
        "n": {task: len(passes[task]) for task in TASKS},
        "n_failed": {task: n_failed[task] for task in TASKS},
        "rows_failed": rows_failed,
        "before": {task: mean(before[task]) for task in TASKS if before[task]},
        "filter": dict(Counter(labels.values())),
        "judge_failures": failures,
    }
