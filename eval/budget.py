"""The run's context budget: what every system hands the answer model and the judges is cut by the
driver to at most ``context_tokens`` cl100k tokens, in the system's own rank order.

The rule, the same for every system and benchmark (docs/running.md, "The context budget"):

- a context made of blocks -- the hits joined by
  :data:`~memsuite.memory_systems.base.CONTEXT_SEPARATOR` (or rendered by the benchmark), the lines a
  library wrote for its hits, or a system's own context holding that separator -- keeps whole blocks,
  best first, while they fit (separators counted); the first block that does not fit ends it;
- only when not even the first block fits is that block cut, at its head;
- the kept text is counted as a whole, and a block added back where the summed counts were too
  cautious (joining can merge tokens at a boundary) or dropped where they were not, so the context a
  row records never exceeds the budget when recounted.

Each block is counted once, the kept text once or twice more. With a budget and no ``k`` in the
config, a system is asked for :func:`fill_depth` hits, enough to fill the budget with short memories;
a ``k`` the config sets is an upper bound.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from memsuite.memory_systems.base import CONTEXT_SEPARATOR, ENTRY, NO_MEMORY
from memsuite.memory_systems.errors import ConfigError
from memsuite.memory_systems.records import Hit, RetrievalResult
from memsuite.memory_systems.tokens import count_tokens, encoding

#: The k used when a run sets neither ``k`` nor ``context_tokens`` (the depth configs always defaulted to).
DEFAULT_K = 5
#: Tokens of the shortest memory a budget is filled with: a run with a budget and no ``k`` asks each
#: system for ``context_tokens // FILL_TOKENS_PER_HIT`` hits (a one-line fact is about 8 to 20 tokens).
FILL_TOKENS_PER_HIT = 8
#: The most hits a budget asks for when the config leaves ``k`` unset.
FILL_MAX_K = 200


#: The share of the answer model's window a context may take: the rest is room for the prompt and the
#: answer, and the margin for a tokenizer that is not cl100k.
WINDOW_SHARE = 0.8


def check_budget(context_tokens: int | None, answer_llm: Any) -> None:
    """Refuse, before any work, a budget larger than the answer model's known window leaves for context
    (:data:`WINDOW_SHARE` of it); a window the endpoint does not report is not checked.

    Raises:
        ConfigError: Naming ``context_tokens``, the window and what it leaves.
    """
    window = answer_llm.identity().get("n_ctx") if answer_llm is not None else None
    if context_tokens is None or not window:
        return
    room = int(window * WINDOW_SHARE)
    if context_tokens > room:
        raise ConfigError(
            f"context_tokens: {context_tokens} is more than the answer model's window leaves for context "
            f"({room} of its {window} tokens; the rest is room for the prompt and the answer)"
        )


@dataclass(frozen=True)
class HandedContext:
    """What a system handed over for one question, after the budget."""

    text: str
    """The context the answer model and the judges are given."""
    hits: tuple[Hit, ...]
    """The hits behind the kept text, best first."""
    tokens: int
    """cl100k tokens of ``text``."""
    cut: bool
    """Whether the budget removed anything."""


def fill_depth(k: int | None, context_tokens: int | None) -> int:
    """The retrieval depth of a run: its ``k`` when set; else, with a budget, enough hits to fill it
    (:data:`FILL_TOKENS_PER_HIT`, at most :data:`FILL_MAX_K`); else :data:`DEFAULT_K`."""
    if k is not None:
        return k
    if context_tokens is None:
        return DEFAULT_K
    return max(1, min(FILL_MAX_K, context_tokens // FILL_TOKENS_PER_HIT))


def within_budget(
    result: RetrievalResult, budget: int | None, *, render: Callable[[Hit], str] | None = None
) -> HandedContext:
    """``result`` cut to ``budget`` tokens by the rule above (None: nothing is cut).

    The blocks are, in this order of preference: the hits as ``render`` shows them; the hits' texts,
    where the context is them joined; the hits' ``entry`` metadata, where a library writes its own line
    per hit and the context is those lines (A-MEM); else the context's own blocks.

    Args:
        render: A hit as the benchmark shows it to the answer model; the blocks are then the rendered
            hits, whatever the system's own context.
    """
    hits = tuple(result.hits)
    separator, behind, texts_are_hits = CONTEXT_SEPARATOR, None, False
    if render is not None and hits:
        blocks, behind = [render(h) for h in hits], hits
    elif hits and result.context == CONTEXT_SEPARATOR.join(h.text for h in hits):
        blocks, behind, texts_are_hits = [h.text for h in hits], hits, True
    elif (
        hits
        and all(isinstance(h.metadata.get(ENTRY), str) for h in hits)
        and result.context == "".join(h.metadata[ENTRY] for h in hits)
    ):
        blocks, behind, separator = [h.metadata[ENTRY] for h in hits], hits, ""
    else:
        blocks = result.context.split(CONTEXT_SEPARATOR) if result.context else []
    full = separator.join(blocks) if behind is not None else result.context
    if budget is None or not full.strip():
        return HandedContext(full or NO_MEMORY, hits, count_tokens(full or NO_MEMORY), False)
    kept = _blocks_within(blocks, budget, separator)
    # Summed counts over-count a little where joining merges tokens at a boundary: the next block may
    # still fit in the joined text.
    while 0 < kept < len(blocks) and count_tokens(separator.join(blocks[: kept + 1])) <= budget:
        kept += 1
    if kept == len(blocks):
        text, cut = full, False
    elif kept == 0:
        head = _head(blocks[0], budget)
        # The first hit, cut: where the block is its text, the hit's text is the head shown.
        first = (replace(behind[0], text=head),) if texts_are_hits else behind[:1] if behind else ()
        return HandedContext(head, first, count_tokens(head), True)
    else:
        text, cut = separator.join(blocks[:kept]), True
    tokens = count_tokens(text)
    while tokens > budget and kept > 1:  # joining merged or split tokens at a boundary
        kept -= 1
        text, cut = separator.join(blocks[:kept]), True
        tokens = count_tokens(text)
    # A system's own context names no hit per block: the hits behind it are those whose text it kept.
    shown = behind[:kept] if behind is not None else tuple(h for h in hits if h.text in text) if cut else hits
    return HandedContext(text, shown, tokens, cut)


def _blocks_within(blocks: Sequence[str], budget: int, separator: str) -> int:
    """How many leading blocks fit in ``budget`` tokens, separators counted (each block counted once,
    and none after the first that does not fit)."""
    between = count_tokens(separator) if separator else 0
    used = 0
    for index, block in enumerate(blocks):
        used += count_tokens(block) + (between if index else 0)
        if used > budget:
            return index
    return len(blocks)


def _head(text: str, budget: int) -> str:
    """The longest head of ``text`` whose tokens, counted again after decoding, fit in ``budget``."""
    ids = encoding().encode_ordinary(text)
    size = budget
    head = encoding().decode(ids[:size])
    while size > 0 and count_tokens(head) > budget:  # a cut inside a character re-encodes longer
        size -= 1
        head = encoding().decode(ids[:size])
    return head


def hits_within(hits: Sequence[Hit], budget: int | None) -> HandedContext:
    """Search results cut to ``budget`` as a context of those hits would be (:func:`within_budget`),
    for a benchmark that reads the hits of ``search`` rather than a ``retrieve`` context."""
    joined = CONTEXT_SEPARATOR.join(h.text for h in hits)
    return within_budget(RetrievalResult(joined, tuple(hits)), budget)
