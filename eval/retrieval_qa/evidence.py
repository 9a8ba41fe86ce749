"""The evidence verdict: were the messages a question cites retrieved? (BEAM's ``source_chat_ids``,
REALTALK's cited ``dia_id`` s.)

Neither benchmark's own evaluation scores retrieval; every answerable question names its evidence
messages, so retrieval can be scored without an LLM. For a question: the ranking (document ids, best
first, every document of the unit) and the relevant ids (its evidence messages mapped to the run's
granularity). At depth k:

- ``recall_any@k``: 1 when any relevant id is in the top k, else 0;
- ``recall_all@k``: 1 when every relevant id is in the top k, else 0;
- ``evidence_recall@k``: the share of relevant ids in the top k.

A question without relevant ids, or a row without a ranking, has no metrics: undefined, with the
reason, and left out of every average.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

#: Depths reported in the summary (the run's k is added to them).
KS = (1, 3, 5, 10, 30, 50)
METRICS = ("recall_any", "recall_all", "evidence_recall")


def metrics_at(ranking: Sequence[str], relevant: Collection[str], k: int) -> dict[str, float]:
    """The three metrics at ``k`` (module docstring); ``relevant`` must not be empty."""
    top = set(ranking[:k])
    found = sum(r in top for r in relevant)
    return {
        "recall_any": float(found > 0),
        "recall_all": float(found == len(relevant)),
        "evidence_recall": found / len(relevant),
    }


def question_metrics(ranking: Sequence[str], relevant: Collection[str], k: int) -> dict[str, float]:
    """Every metric at each depth of :data:`KS` and at the run's ``k``, keyed ``<metric>@<k>``."""
    out: dict[str, float] = {}
    for depth in sorted({*KS, k}):
        out.update({f"{name}@{depth}": value for name, value in metrics_at(ranking, relevant, depth).items()})
    return out


def evidence_verdict(
    ranking: Sequence[str] | None,
    relevant: Collection[str],
    k: int,
    granularity: str,
    *,
    no_ranking: str,
    no_evidence: str,
) -> dict[str, Any]:
    """The ``retrieval`` verdict of one question: its metrics, ``correct`` = recall_all at ``k``.

    Args:
        ranking: Every document id of the unit, best first; None without one.
        relevant: The question's relevant ids at the run's granularity.
        k: The run's k.
        granularity: The run's document granularity (recorded in the verdict).
        no_ranking: Why there is no ranking (the undefined reason when ``ranking`` is None).
        no_evidence: The undefined reason when ``relevant`` is empty.
    """
    verdict: dict[str, Any] = {"judge": "retrieval", "granularity": granularity, "k": k}
    if ranking is None:
        return {**verdict, "correct": None, "undefined": no_ranking}
    if not relevant:
        return {**verdict, "correct": None, "undefined": no_evidence}
    metrics = question_metrics(ranking, relevant, k)
    return {**verdict, "metrics": metrics, "correct": metrics[f"recall_all@{k}"] == 1.0}
