"""BEAM summaries of one system's rows: evidence retrieval and answer scores, per ability and per scale.

Retrieval (rows whose ``retrieval`` verdict has metrics): every metric at each depth, averaged over
the questions with evidence ids, overall, per ability and per scale (each scale per ability too);
questions without evidence ids, or rows without a ranking, are counted apart (``n_undefined``).

Answers: ``llm`` -- the mean of the questions' scores (BEAM's per-question score: the mean of its
rubric items' scores; event ordering's tau times F1), the share fully correct, per ability and scale;
``rule`` -- the same over the questions it decided anything on, with ``coverage`` (rubric items
decided over rubric items) beside every rate. A failed judge or answer call is left out and counted
(``n_failed``); an undecided or undefined verdict is left out and counted (``n_undefined``).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from memsuite.eval.analysis.metrics import mean
from memsuite.eval.benchmarks.beam.schema import ABILITIES, SCALES
from memsuite.eval.protocol import Row, ScoresLayout
from memsuite.eval.retrieval_qa.scores import Block, answer_scores, retrieval_scores

#: Where ``summary.json`` keeps the answer judges: each under its own name (null when no row has it).
BEAM_LAYOUT = ScoresLayout(under=None, named=(("llm", "llm"), ("rule", "rule")))


def ability_of(row: Row) -> str:
    return str(row.metadata.get("ability"))


def scale_of(row: Row) -> str:
    return str(row.metadata.get("scale") or "")


def _grouped(rows: list[Row], block: Block) -> dict[str, Any]:
    by_ability: dict[str, list[Row]] = defaultdict(list)
    by_scale: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        by_ability[ability_of(row)].append(row)
        by_scale[scale_of(row)].append(row)
    scales = [s for s in (*SCALES, *sorted(by_scale)) if s in by_scale]
    return {
        "overall": block(rows),
        "by_ability": {a: block(by_ability[a]) for a in ABILITIES if a in by_ability},
        "by_scale": {
            s: {
                "overall": block(by_scale[s]),
                "by_ability": {
                    a: block([r for r in by_scale[s] if ability_of(r) == a])
                    for a in ABILITIES
                    if any(ability_of(r) == a for r in by_scale[s])
                },
            }
            for s in dict.fromkeys(scales)
        },
    }


def answer_value(row: Row, judge: str) -> float | None:
    """The question's score under ``judge`` (None: failed, undecided, absent)."""
    verdict = row.verdicts.get(judge)
    if not isinstance(verdict, dict) or verdict.get("failure"):
        return None
    score = verdict.get("score")
    return None if score is None else float(score)


def _answer_block(judge: str) -> Block:
    def block(rows: list[Row]) -> dict[str, Any]:
        scores, correct, failed, undefined, decided, items = [], [], 0, 0, 0, 0
        for row in rows:
            verdict = row.verdicts.get(judge)
            if not isinstance(verdict, dict):
                continue
            if verdict.get("failure"):
                failed += 1
                continue
            listed = verdict.get("items") or []
            items += len(listed)
            decided += sum(1 for i in listed if i.get("passed", i.get("score")) is not None)
            value = answer_value(row, judge)
            if value is None:
                undefined += 1
                continue
            scores.append(value)
            if verdict.get("correct") is not None:
                correct.append(1.0 if verdict["correct"] else 0.0)
        out = {
            "score": mean(scores),
            "correct": mean(correct),
            "n": len(scores),
            "n_failed": failed,
            "n_undefined": undefined,
        }
        if judge == "rule":
            out.update(coverage=decided / items if items else None, items=items, items_decided=decided)
        return out

    return block


def beam_scores(rows: list[Row]) -> dict[str, Any]:
    return {
        "questions": len(rows),
        "retrieval": retrieval_scores(rows, _grouped),
        "llm": answer_scores(rows, "llm", _grouped, _answer_block("llm")),
        "rule": answer_scores(rows, "rule", _grouped, _answer_block("rule")),
    }
