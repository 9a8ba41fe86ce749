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
from typing import Any

from memsuite.eval.analysis.metrics import mean
from memsuite.eval.benchmarks.realtalk.schema import CATEGORY_NAMES
from memsuite.eval.protocol import Row, ScoresLayout
from memsuite.eval.retrieval_qa.scores import Block, answer_scores, retrieval_scores

ANSWER_JUDGES = ("f1", "llm", "rule")
#: Where ``summary.json`` keeps the answer judges: each under its own name (null when no row has it).
REALTALK_LAYOUT = ScoresLayout(under=None, named=tuple((j, j) for j in ANSWER_JUDGES))


def category_of(row: Row) -> str:
    category = row.metadata.get("category")
    return CATEGORY_NAMES.get(category, f"category-{category}")


def answer_value(row: Row, judge: str) -> float | None:
    """The question's score under ``judge`` (None: failed, undecided, undefined, absent)."""
    verdict = row.verdicts.get(judge)
    if not isinstance(verdict, dict) or verdict.get("failure") or verdict.get("correct") is None:
        return None
    score = verdict.get("score")
    return float(score) if score is not None else float(bool(verdict["correct"]))


def _grouped(rows: list[Row], block: Block) -> dict[str, Any]:
    by_category: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        by_category[category_of(row)].append(row)
    order = [*CATEGORY_NAMES.values(), *sorted(set(by_category) - set(CATEGORY_NAMES.values()))]
    return {
        "overall": block(rows),
        "by_category": {c: block(by_category[c]) for c in order if c in by_category},
    }


def _answer_block(judge: str) -> Block:
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


def realtalk_scores(rows: list[Row]) -> dict[str, Any]:
    return {
        "questions": len(rows),
        "retrieval": retrieval_scores(rows, _grouped, unscored=True),
        **{judge: answer_scores(rows, judge, _grouped, _answer_block(judge)) for judge in ANSWER_JUDGES},
    }
