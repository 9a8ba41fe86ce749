"""Summaries shared by the benchmarks that score a ranking with :mod:`.evidence` and answers per judge:
the retrieval averages and a judge's scores, each overall and per the benchmark's groups.

A benchmark supplies its grouping, ``(rows, block) -> {"overall": block(rows), "by_...": {...}}``
(BEAM: per ability and per scale; REALTALK: per category; LongMemEval: per question type), and for
answers its per-group block (what a score is differs: a rubric mean, a 0-1 grade, a rate).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memsuite.eval.analysis.metrics import mean
from memsuite.eval.protocol import Row
from memsuite.eval.retrieval_qa.evidence import KS, METRICS

Block = Callable[[list[Row]], dict[str, Any]]
Grouping = Callable[[list[Row], Block], dict[str, Any]]


def row_metrics(row: Row) -> dict[str, float] | None:
    """The row's retrieval metrics, or None (no relevant ids, no ranking)."""
    found = (row.verdicts.get("retrieval") or {}).get("metrics")
    return found if isinstance(found, dict) and found else None


def retrieval_block(rows: list[Row], *, unscored: bool = False) -> dict[str, Any]:
    """Every metric at each depth averaged over the rows with metrics; the others counted in
    ``n_undefined``, or with ``unscored`` those without relevant ids apart in ``n_unscored``."""
    found = [m for m in (row_metrics(r) for r in rows) if m is not None]
    depths = sorted({int(key.rsplit("@", 1)[1]) for m in found for key in m} | set(KS))
    counts: dict[str, int] = {"n": len(found)}
    if unscored:
        counts["n_unscored"] = sum(1 for r in rows if not r.metadata.get("relevant"))
    counts["n_undefined"] = len(rows) - len(found) - counts.get("n_unscored", 0)
    return {
        **counts,
        **{
            f"{name}@{k}": mean(m[f"{name}@{k}"] for m in found if f"{name}@{k}" in m)
            for name in METRICS
            for k in depths
        },
    }


def retrieval_scores(rows: list[Row], grouped: Grouping, *, unscored: bool = False) -> dict[str, Any] | None:
    """The retrieval averages (:func:`retrieval_block`) overall and per group, with the run's k and
    granularity; None when no row has a ranking."""
    if not any(row_metrics(r) for r in rows):
        return None
    return {
        "k": rows[0].metadata.get("k"),
        "granularity": rows[0].metadata.get("granularity"),
        **grouped(rows, lambda selected: retrieval_block(selected, unscored=unscored)),
    }


def answer_scores(rows: list[Row], judge: str, grouped: Grouping, block: Block) -> dict[str, Any] | None:
    """``judge``'s scores (``block`` of its rows) overall and per group, or None when no row carries
    it."""
    if not any(judge in r.verdicts for r in rows):
        return None
    return grouped(rows, block)
