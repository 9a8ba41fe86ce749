"""The per-question step of the benchmarks that rank a unit's documents and answer from a retrieved
context (LoCoMo, LongMemEval, BEAM, REALTALK): announce the questions, rank, retrieve, cut, answer,
judge, row.

A protocol ingests its unit, then calls :func:`announce` once with every question it will ask (dense
encodes them in one batch), and per question:

- :func:`rank` -- the system's ranking of every memory of the unit (``ranked_ids``: the ids of one
  ``search`` at k = all), when :func:`placement` finds the system's memories are the unit's documents,
  read as document ids in rank order; documents the system did not return (a blank one, or fewer
  hits) follow in unit order. A system storing the documents in unit order breaks equal scores by
  that order (bm25 and dense do);
- :func:`retrieved` -- one ``retrieve`` at the run's k, each hit rendered by the benchmark when every
  hit carries what it renders (else the system's own context), cut in rank order to the run's budget
  and the answer model's window (:mod:`memsuite.eval.budget`); or, for a reference row, :func:`given`
  / :func:`reference` -- the blocks the benchmark lays out, cut oldest first;
- :func:`answer_row` -- the shared answer-and-judge step (:func:`memsuite.eval.answer.answer_and_judge`)
  and the row.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from memsuite.eval.answer import Answer, answer_and_judge, cut_oldest, cut_to_tokens
from memsuite.eval.budget import within_budget
from memsuite.eval.protocol import Row, RunContext
from memsuite.eval.reference import ReferenceContext
from memsuite.memory_systems.base import CONTEXT_SEPARATOR, NO_MEMORY, MemorySystem
from memsuite.memory_systems.records import Hit
from memsuite.memory_systems.tokens import count_tokens


@dataclass(frozen=True)
class Context:
    """What the answer model and the judges are given for one question."""

    text: str
    truncated: bool
    """Whether it was cut to the row's budget (the run's ``context_tokens``, the answer model's window)."""
    hits: tuple[Hit, ...]
    """The hits behind it, in the order shown (a reference row's: those kept)."""
    retrieve_ms: float
    """Wall time of the retrieval (or the reference layout) and the cut."""
    tokens: int
    """cl100k tokens of ``text``."""


def announce(system: MemorySystem, questions: Sequence[str], namespace: str) -> None:
    """Announce the unit's questions before any is asked (``MemorySystem.prepare_queries``): each is
    searched for its ranking and again for its context, and a system such as dense then encodes them
    together, once."""
    if questions:
        system.prepare_queries(list(questions), namespace=namespace)


def stores(system: MemorySystem, namespace: str, key: str) -> bool:
    """Whether the system's memories are the unit's documents: a stored record carries ``key`` (the
    metadata the benchmark gave each document); False for a system that cannot list its memory."""
    return placement(system, namespace, key) is not None


def placement(system: MemorySystem, namespace: str, key: str) -> dict[str, int] | None:
    """Memory id -> the place in the unit of the document it holds (its ``key`` metadata), for the
    records that carry ``key``; None when none does (:func:`stores`) or the system cannot list its
    memory. Read once per state of the memory: :func:`rank` then maps each ranking through it."""
    try:
        records = system.records(namespace=namespace)
    except NotImplementedError:
        return None
    places = {r.id: r.metadata[key] for r in records if r.metadata and key in r.metadata}
    return places or None


def rank_places(
    system: MemorySystem, question: str, count: int, namespace: str, places: dict[str, int]
) -> list[int]:
    """Every place ``0 .. count - 1`` of the unit in the system's rank order (:func:`rank`)."""
    # dict.fromkeys keeps each place's first rank; None stands for a memory holding no document.
    ranked = dict.fromkeys(map(places.get, system.ranked_ids(question, namespace=namespace)))
    ranked.pop(None, None)
    order = list(ranked)
    if len(order) < count:
        order.extend(p for p in range(count) if p not in ranked)
    return order


def rank(
    system: MemorySystem, question: str, ids: Sequence[str], namespace: str, places: dict[str, int]
) -> list[str]:
    """Every document id in the system's rank order (module docstring).

    Args:
        system: The memory, its documents ingested.
        question: The query, as released.
        ids: The unit's document ids in unit order; a document's place in it is its ``key`` metadata
            (a unit may hold one id twice: each place ranks apart).
        namespace: The unit's namespace.
        places: :func:`placement` of the memory as it is now.
    """
    return [ids[p] for p in rank_places(system, question, len(ids), namespace, places)]


def retrieved(
    system: MemorySystem,
    question: str,
    *,
    k: int,
    namespace: str,
    budget: int | None,
    render: Callable[[Hit], str] | None = None,
    needs: str | None = None,
) -> Context:
    """One ``retrieve`` at ``k``, cut to ``budget`` cl100k tokens in the system's rank order
    (:func:`memsuite.eval.budget.within_budget`).

    Args:
        render: A hit as the answer model sees it; used when every hit's metadata holds ``needs``,
            the hits then joined by :data:`CONTEXT_SEPARATOR`; else the system's own context.
        needs: The metadata key ``render`` reads.
    """
    started = time.perf_counter()
    result = system.retrieve(question, k=k, namespace=namespace)
    hits = result.hits
    rendered = render is not None and hits and all(needs in (h.metadata or {}) for h in hits)
    handed = within_budget(result, budget, render=render if rendered else None)
    elapsed_ms = (time.perf_counter() - started) * 1000
    return Context(handed.text, handed.cut, handed.hits, elapsed_ms, handed.tokens)


def reference(
    system: MemorySystem,
    blocks: Callable[[], Sequence[tuple[str, Hit | None]]],
    *,
    budget: int | None,
    separator: str = CONTEXT_SEPARATOR,
) -> Context:
    """A reference row's context (``full_context``, ``gold_evidence``): the blocks the benchmark lays
    out in time order, timed as the system's "retrieve", whole blocks dropped oldest first to fit
    ``budget`` (the newest cut at its head when even it alone is too long).

    Args:
        blocks: ``() -> [(text, hit)]``, oldest first; the hit behind each block, or None.
    """
    started = time.perf_counter()
    with system.timed("retrieve"):
        laid_out = list(blocks())
    text, truncated, start = cut_blocks([text for text, _ in laid_out], budget, separator)
    hits = tuple(h for _, h in laid_out[start:] if h is not None)
    return Context(text, truncated, hits, (time.perf_counter() - started) * 1000, count_tokens(text))


def given(
    system: ReferenceContext,
    question: str,
    *,
    namespace: str,
    evidence: Sequence[str],
    budget: int | None,
    render: Callable[[Hit], str] = lambda hit: hit.text,
    separator: str = CONTEXT_SEPARATOR,
) -> Context:
    """A reference system's context (:func:`reference`): the hits its ``reference_context`` gives for
    the question, each rendered by the benchmark.

    Args:
        evidence: The question's evidence ids (what ``gold_evidence`` keeps).
    """
    return reference(
        system,
        lambda: [
            (render(h), h) for h in system.reference_context(question, namespace=namespace, evidence=evidence)
        ],
        budget=budget,
        separator=separator,
    )


def cut_blocks(
    blocks: Sequence[str], budget: int | None, separator: str = CONTEXT_SEPARATOR
) -> tuple[str, bool, int]:
    """Time-ordered blocks cut to ``budget`` tokens, whole blocks dropped oldest first (the newest cut
    at its head when even it alone is too long): ``(text, truncated, index of the first block kept)``."""
    start = cut_oldest(blocks, budget)
    if start == len(blocks) and blocks:  # not even the newest fits: keep its head
        return cut_to_tokens(blocks[-1], budget)[0], True, start
    return separator.join(blocks[start:]) or NO_MEMORY, start > 0, start


def answer_row(
    ctx: RunContext,
    system: MemorySystem,
    *,
    unit_id: str,
    question_id: str,
    question: str,
    gold: str,
    context: Context,
    case: Any,
    prompt: Callable[[str], str],
    max_tokens: int,
    always: Sequence[str],
    metadata: Mapping[str, Any],
    parse: Callable[[Answer], Any] | None = None,
) -> Row:
    """Answer and judge one question (:func:`memsuite.eval.answer.answer_and_judge`, temperature 0) and
    its row.

    Args:
        case: The question as the benchmark's judges take it.
        prompt: ``context -> the answer model's message``; called only with an answer LLM.
        always: Judges given whatever the run asks for (the LLM-free ones).
        metadata: The row's metadata.
        parse: Turns a reply into what the judges compare and the row records (``Answer.data``);
            default the reply text.
    """
    usage: dict[str, Any] = {"retrieve_ms": context.retrieve_ms}
    messages = [{"role": "user", "content": prompt(context.text)}] if ctx.answer_llm is not None else None
    answer, verdicts = answer_and_judge(
        ctx,
        case=case,
        context=context.text,
        messages=messages,
        usage=usage,
        max_tokens=max_tokens,
        temperature=0.0,
        always=always,
        parse=parse,
    )
    replied = answer is not None and not answer.failed
    return Row(
        system=system.name,
        benchmark=ctx.benchmark,
        unit_id=unit_id,
        question_id=question_id,
        question=question,
        gold=gold,
        context=context.text,
        answer=(answer.data if parse is not None else answer.text) if replied else None,
        verdicts=verdicts,
        usage=usage,
        metadata={**metadata, "context_tokens": context.tokens, "context_cut": context.truncated},
    )
