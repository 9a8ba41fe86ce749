"""LongMemEval summaries of one system's rows: the official retrieval averages and answer-level rates.

Retrieval (rows with a ranking): each official metric averaged per level (``session``; ``turn`` too at
turn granularity, whose ``session`` block is then the turn-to-session reading) two ways --
``official``: over non-abstention questions, as LongMemEval's scripts average (a question without a
relevant document counts, with recall_all 1 and recall_any and ndcg 0); ``with_relevant``: over
non-abstention questions that have a relevant document. Both per question type too.

Answer level: ``answer_in_context`` and ``llm`` as rates per question type and overall; abstention
questions are a type of their own here (``abstention``). A failed judge or answer call is left out of
every rate and counted (``n_failed``); an undefined verdict is left out and counted (``n_undefined``).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from memsuite.eval.analysis.metrics import mean
from memsuite.eval.benchmarks.longmemeval.judges.retrieval import KS
from memsuite.eval.benchmarks.longmemeval.schema import QUESTION_TYPES
from memsuite.eval.protocol import Row, ScoresLayout
from memsuite.eval.retrieval_qa.scores import Block, answer_scores

ABSTENTION = "abstention"
TYPE_ORDER = (*QUESTION_TYPES, ABSTENTION)
#: Where ``summary.json`` keeps the judges: each under its own name (null when no row has it).
LONGMEMEVAL_LAYOUT = ScoresLayout(
    under=None, named=tuple((j, j) for j in ("answer_in_context", "llm", "rule"))
)


def row_type(row: Row) -> str:
    return ABSTENTION if row.metadata.get("abstention") else str(row.metadata.get("question_type"))


def _averages(metric_blocks: list[dict[str, dict[str, float]]]) -> dict[str, dict[str, float | None]]:
    levels = sorted({level for block in metric_blocks for level in block})
    return {
        level: {
            f"{name}@{k}": mean(
                [b[level][f"{name}@{k}"] for b in metric_blocks if f"{name}@{k}" in b.get(level, {})]
            )
            for name in ("recall_any", "recall_all", "ndcg_any")
            for k in KS
        }
        for level in levels
    }


def retrieval_scores(rows: list[Row]) -> dict[str, Any] | None:
    """The retrieval averages (module docstring), or None when no row has a ranking."""
    ranked = [
        r
        for r in rows
        if not r.metadata.get("abstention") and (r.verdicts.get("retrieval") or {}).get("metrics")
    ]
    if not ranked:
        return None

    def block(selected: list[Row]) -> dict[str, Any]:
        with_relevant = [r for r in selected if r.metadata.get("relevant")]
        return {
            "n": len(selected),
            "n_no_relevant": len(selected) - len(with_relevant),
            "official": _averages([r.verdicts["retrieval"]["metrics"] for r in selected]),
            "with_relevant": _averages([r.verdicts["retrieval"]["metrics"] for r in with_relevant]),
        }

    by_type: dict[str, list[Row]] = defaultdict(list)
    for row in ranked:
        by_type[row_type(row)].append(row)
    return {
        "granularity": ranked[0].metadata.get("granularity"),
        **block(ranked),
        "by_type": {t: block(by_type[t]) for t in TYPE_ORDER if t in by_type},
    }


def _rate(rows: list[Row], judge: str) -> dict[str, Any]:
    values, failed, undefined = [], 0, 0
    for row in rows:
        verdict = row.verdicts.get(judge)
        if not isinstance(verdict, dict):
            continue
        if verdict.get("failure"):
            failed += 1
        elif verdict.get("correct") is None:
            undefined += 1
        else:
            values.append(1.0 if verdict["correct"] else 0.0)
    return {"rate": mean(values), "n": len(values), "n_failed": failed, "n_undefined": undefined}


def _by_type(rows: list[Row], block: Block) -> dict[str, Any]:
    by_type: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        by_type[row_type(row)].append(row)
    return {"overall": block(rows), "by_type": {t: block(by_type[t]) for t in TYPE_ORDER if t in by_type}}


def longmemeval_scores(rows: list[Row]) -> dict[str, Any]:
    return {
        "questions": len(rows),
        "retrieval": retrieval_scores(rows),
        **{
            judge: answer_scores(rows, judge, _by_type, lambda selected, j=judge: _rate(selected, j))
            for judge in ("answer_in_context", "llm", "rule")
        },
    }
