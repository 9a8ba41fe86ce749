"""Benchmark-independent metrics: pure functions of rows (no system or LLM calls, no mutation)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from memsuite.eval.protocol import Row


def verdict_of(row: Row, judge: str) -> bool | None:
    """The ``correct`` field of ``judge``'s verdict on a row (None when absent or failed)."""
    verdict = row.verdicts.get(judge)
    return verdict.get("correct") if isinstance(verdict, dict) else None


def mean(values: Iterable[float]) -> float | None:
    """Arithmetic mean, or None for no values (a table prints it as a dash, not as 0)."""
    values = list(values)
    return sum(values) / len(values) if values else None


def percentile(values: Sequence[float], q: float) -> float | None:
    """The ``q``-quantile (0..1) by linear interpolation; None for no values."""
    return float(np.percentile(values, q * 100)) if len(values) else None


def agreement(pairs: Sequence[tuple[bool, bool]]) -> dict[str, Any]:
    """Agreement of two verdict sequences on the same items: rate, Cohen's kappa and confusion counts.

    Returns:
        ``{"n", "agreement", "kappa", "both_true", "a_only_true", "b_only_true", "both_false"}``; rates
        are None without pairs, kappa is None when undefined (both judges constant and equal).
    """
    n = len(pairs)
    counts = {
        "both_true": sum(x and y for x, y in pairs),
        "a_only_true": sum(x and not y for x, y in pairs),
        "b_only_true": sum(y and not x for x, y in pairs),
        "both_false": sum(not x and not y for x, y in pairs),
    }
    if n == 0:
        return {"n": 0, "agreement": None, "kappa": None, **counts}
    agree = (counts["both_true"] + counts["both_false"]) / n
    pa, pb = sum(x for x, _ in pairs) / n, sum(y for _, y in pairs) / n
    expected = pa * pb + (1 - pa) * (1 - pb)
    kappa = None if expected == 1 else (agree - expected) / (1 - expected)
    return {"n": n, "agreement": agree, "kappa": kappa, **counts}


def judge_agreement(rows: Iterable[Row], a: str = "rule", b: str = "llm") -> dict[str, Any]:
    """How often two judges agree on the rows both judged (failed verdicts excluded).

    Returns:
        ``{"n", "agreement", "kappa", "a_only_true", "b_only_true", "excluded"}``; Cohen's kappa is
        None when it is undefined (one judge constant on the sample).
    """
    pairs, excluded = [], 0
    for row in rows:
        x, y = verdict_of(row, a), verdict_of(row, b)
        if x is None or y is None:
            excluded += 1
            continue
        pairs.append((bool(x), bool(y)))
    found = agreement(pairs)
    keys = ("n", "agreement", "kappa", "a_only_true", "b_only_true")
    return {**{k: found[k] for k in keys}, "excluded": excluded}
