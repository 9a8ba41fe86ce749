"""BEAM's evidence verdict: were the messages a question names in ``source_chat_ids`` retrieved?

BEAM's own evaluation judges answers only; every answerable question names its evidence messages, so
retrieval can be scored without an LLM. For a question: the ranking (document ids, best first, every
document of the conversation) and the relevant ids (its evidence messages mapped to the run's
granularity, :mod:`..schema`). At depth k:

- ``recall_any@k``: 1 when any relevant id is in the top k, else 0;
- ``recall_all@k``: 1 when every relevant id is in the top k, else 0;
- ``evidence_recall@k``: the share of relevant ids in the top k.

A question without evidence ids (abstention; one knowledge-update and one summarization question of
the release) has no metrics: undefined, with the reason, and left out of every average.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

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
