"""What the markdown-file agents (md_flat, karpathy_wiki) share besides the action loop.

Relevance ordering under a token budget, and text normalisation (the action loop itself is in
baselines/_llm_support.py). Private to ``baselines``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime

from memsuite.baselines._llm_support import LexicalIndex


def norm(text: str) -> str:
    """``text`` lower-cased with its whitespace collapsed (how titles and lines are compared)."""
    return " ".join(text.lower().split())


def today() -> date:
    """Today (UTC): the date of an entry whose session has none."""
    return datetime.now(UTC).date()


def relevant_first(index: LexicalIndex, query: str) -> list[int]:
    """Every position: those matching ``query`` by score, then the rest newest first.

    Unrelated lines go newest first because a recent line is the likelier one to have changed.
    """
    ranked = [i for i, score in index.top(query, index.size) if score > 0]
    seen = set(ranked)
    return ranked + [i for i in reversed(range(index.size)) if i not in seen]


def within_budget(order: Sequence[int], costs: Sequence[int], budget: int) -> list[int]:
    """The positions of ``order`` taken greedily while their ``costs`` fit ``budget``."""
    chosen, used = [], 0
    for i in order:
        if used + costs[i] <= budget:
            chosen.append(i)
            used += costs[i]
    return chosen
