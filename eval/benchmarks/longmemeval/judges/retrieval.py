"""LongMemEval's retrieval metrics, computed as its released evaluation code computes them.

For a question: the ranking (corpus ids, best first), the corpus ids in corpus order, and the relevant
ids (those containing ``answer``, :mod:`..schema`). At depth k:

- ``recall_any@k``: 1 when any relevant id is in the top k, else 0 (0 when none is relevant);
- ``recall_all@k``: 1 when every relevant id is in the top k (vacuously 1 when none is relevant);
- ``ndcg_any@k``: DCG of the top k's binary relevance over the ideal DCG of the whole corpus's, where
  DCG = rel_1 + sum over i >= 2 of rel_i / log2(i) (0 when nothing is relevant).

At granularity ``turn`` the same metrics are also computed "turn to session": every id loses its last
``_<n>`` (turn ids become session ids; an ``answer`` turn and a ``noans`` turn of one session stay
apart, as in the official code), and k grows until the top k covers k distinct ids or the corpus ends.

The official averages leave out abstention (``_abs``) questions and keep questions with no relevant
document (single-session-assistant evidence sits in assistant turns, which the corpus leaves out):
their recall_all is 1 and recall_any and ndcg are 0. :mod:`..scoring` reports both that average and one
over questions with a relevant document.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

#: Depths of the official metrics.
KS = (1, 3, 5, 10, 30, 50)


def _dcg(relevances: Sequence[int]) -> float:
    return float(sum(rel if i == 0 else rel / math.log2(i + 1) for i, rel in enumerate(relevances)))


def retrieval_metrics(
    ranking: Sequence[str], corpus_ids: Sequence[str], relevant: set[str], k: int
) -> dict[str, float]:
    """``recall_any``, ``recall_all`` and ``ndcg_any`` at ``k`` (module docstring)."""
    top = set(ranking[:k])
    ideal = _dcg(sorted((int(c in relevant) for c in corpus_ids), reverse=True)[:k])
    actual = _dcg([int(c in relevant) for c in ranking[:k]])
    return {
        "recall_any": float(any(r in top for r in relevant)),
        "recall_all": float(all(r in top for r in relevant)),
        "ndcg_any": actual / ideal if ideal else 0.0,
    }


def session_of(corpus_id: str) -> str:
    """A turn id without its last ``_<n>``."""
    return "_".join(corpus_id.split("_")[:-1])


def turn_to_session_metrics(
    ranking: Sequence[str], corpus_ids: Sequence[str], relevant: set[str], k: int
) -> dict[str, float]:
    """The metrics at ``k`` of a turn ranking read as sessions (module docstring)."""
    ranked = [session_of(c) for c in ranking]
    corpus_sessions = [session_of(c) for c in corpus_ids]
    effective = k
    while effective <= len(corpus_sessions) and len(set(ranked[:effective])) < k:
        effective += 1
    return retrieval_metrics(ranked, corpus_sessions, {session_of(r) for r in relevant}, effective)


def question_metrics(
    ranking: Sequence[str], corpus_ids: Sequence[str], relevant: set[str], granularity: str
) -> dict[str, dict[str, float]]:
    """Every official metric of one question: ``{"session": {...}, "turn": {...}}`` keyed
    ``recall_any@k`` etc.; at granularity ``session`` only the session block."""
    out: dict[str, dict[str, float]] = (
        {"session": {}} if granularity == "session" else {"session": {}, "turn": {}}
    )
    for k in KS:
        own = retrieval_metrics(ranking, corpus_ids, relevant, k)
        out[granularity].update({f"{name}@{k}": value for name, value in own.items()})
        if granularity == "turn":
            mapped = turn_to_session_metrics(ranking, corpus_ids, relevant, k)
            out["session"].update({f"{name}@{k}": value for name, value in mapped.items()})
    return out
