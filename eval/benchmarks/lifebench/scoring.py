"""LifeBench summaries of one system's rows: evidence retrieval (record and day granularity) and answer
scores, overall, by question type and by the record types a question cites (a question citing two
types counts under both), and the evidence counts.

Retrieval: every metric at each depth averaged over the scored questions; unscored questions (no
relevant record) are counted apart (``n_unscored``), rows without a ranking too (``n_undefined``).

Answers: ``choice`` -- the share right over the multiple-choice questions judged, beside the
majority-letter baseline of the same questions (the share whose gold is the most common gold letter);
``abstention`` -- the share that declined, over the Unanswerable open questions; ``llm`` -- the mean
rubric score (points earned over points possible) and the share scoring >= 0.5 over the open questions
judged. A failed answer or judge call is left out and counted (``n_failed``).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import replace
from typing import Any

from memsuite.eval.analysis.metrics import mean
from memsuite.eval.benchmarks.lifebench.schema import DATED_TYPES, QUESTION_TYPES
from memsuite.eval.protocol import Row, ScoresLayout
from memsuite.eval.retrieval_qa.scores import Block, answer_scores, retrieval_scores

ANSWER_JUDGES = ("choice", "abstention", "llm")
#: Where ``summary.json`` keeps the answer judges: each under its own name (null when no row has it).
LIFEBENCH_LAYOUT = ScoresLayout(under=None, named=tuple((j, j) for j in ANSWER_JUDGES))


def question_type_of(row: Row) -> str:
    return str(row.metadata.get("question_type"))


def _grouped(rows: list[Row], block: Block) -> dict[str, Any]:
    by_type: dict[str, list[Row]] = defaultdict(list)
    by_record: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        by_type[question_type_of(row)].append(row)
        for kind in row.metadata.get("cited_types") or ():
            by_record[kind].append(row)
    types = [*QUESTION_TYPES, *sorted(set(by_type) - set(QUESTION_TYPES))]
    records = [*DATED_TYPES, *sorted(set(by_record) - set(DATED_TYPES))]
    return {
        "overall": block(rows),
        "by_question_type": {t: block(by_type[t]) for t in types if t in by_type},
        "by_record_type": {t: block(by_record[t]) for t in records if t in by_record},
    }


def _judged(rows: list[Row], judge: str) -> tuple[list[dict[str, Any]], int]:
    """The decided verdicts of ``judge`` and the count of failed ones."""
    verdicts = [r.verdicts[judge] for r in rows if isinstance(r.verdicts.get(judge), dict)]
    failed = sum(1 for v in verdicts if v.get("failure") or v.get("failed_call"))
    decided = [
        v
        for v in verdicts
        if not v.get("failure") and not v.get("failed_call") and v.get("correct") is not None
    ]
    return decided, failed


def majority_baseline(golds: list[str]) -> tuple[str | None, float | None]:
    """The most common gold letter and its share (ties: the earliest letter)."""
    if not golds:
        return None, None
    counts = Counter(golds)
    letter = min(counts, key=lambda g: (-counts[g], g))
    return letter, counts[letter] / len(golds)


def _answer_block(judge: str) -> Block:
    def block(rows: list[Row]) -> dict[str, Any]:
        decided, failed = _judged(rows, judge)
        out: dict[str, Any] = {"correct": mean(1.0 if v["correct"] else 0.0 for v in decided)}
        if judge == "llm":
            out["score"] = mean(float(v["score"]) for v in decided if v.get("score") is not None)
        if judge == "choice":
            letter, share = majority_baseline([str(v.get("gold", "")).strip().upper() for v in decided])
            out.update({"majority_letter": letter, "majority_baseline": share})
            out["no_letter"] = sum(1 for v in decided if not v.get("named"))
            out["several_letters"] = sum(1 for v in decided if len(v.get("named") or ()) > 1)
        return {**out, "n": len(decided), "n_failed": failed}

    return block


def _as_day(row: Row) -> Row:
    """The row with its day verdict where the shared retrieval summary reads the record verdict."""
    verdicts = {**row.verdicts, "retrieval": row.verdicts.get("retrieval_day") or {}}
    return replace(row, verdicts=verdicts, metadata={**row.metadata, "granularity": "day"})


def evidence_counts(rows: list[Row]) -> dict[str, Any]:
    """Questions, scored and unscored questions, dangling evidence entries and future ids, overall and
    per user (one system's rows)."""
    users: dict[str, dict[str, int]] = {}
    for row in rows:
        user = users.setdefault(
            row.unit_id, {"questions": 0, "scored": 0, "unscored": 0, "dangling": 0, "future": 0}
        )
        user["questions"] += 1
        user["scored" if row.metadata.get("relevant") else "unscored"] += 1
        user["dangling"] += len(row.metadata.get("dangling") or ())
        user["future"] += len(row.metadata.get("future") or ())
    totals = {
        key: sum(u[key] for u in users.values())
        for key in ("questions", "scored", "unscored", "dangling", "future")
    }
    return {**totals, "users": users}


def lifebench_scores(rows: list[Row]) -> dict[str, Any]:
    return {
        "questions": len(rows),
        "evidence": evidence_counts(rows),
        "retrieval": retrieval_scores(rows, _grouped, unscored=True),
        "retrieval_day": retrieval_scores([_as_day(r) for r in rows], _grouped, unscored=True),
        **{judge: answer_scores(rows, judge, _grouped, _answer_block(judge)) for judge in ANSWER_JUDGES},
    }
