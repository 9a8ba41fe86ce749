"""The BEAM protocol: one conversation per unit, in its own namespace, then its probing questions.

Per unit (a conversation): reset the namespace; stream the conversation's messages in order and ingest
them batch by batch through ``ingest_session``, each batch a
:class:`~memsuite.memory_systems.records.Session` (its messages as turns, for systems that read
dialogue) whose documents are the batch's documents at the run's ``granularity`` (:mod:`.schema`:
``message`` -- one per message, id ``str(id)``, the content exactly as released; ``turn``; ``batch``),
each with metadata ``doc_id``, ``position`` (its place in the conversation), ``role``, ``batch``,
``time_anchor`` and ``dia_id`` (= ``doc_id``, the key the reference rows select evidence by); then
``finalize``; then ``prepare_queries`` with the selected questions; then each of them, its text
exactly as released, through :mod:`memsuite.eval.retrieval_qa.step`:

- the ranking: one ``search`` for every document of the conversation, read as document ids in rank
  order (``metadata.ranking``); documents the system did not return (a blank one, or fewer hits)
  follow in conversation order. Equal scores rank the earlier document first (bm25 and dense store in
  conversation order and break ties that way). A system whose memories are not the conversation's
  documents (extracted facts) has no ranking, and its rows carry only the answer-level verdicts;
- ``metadata.relevant``: ``source_chat_ids`` flattened at any depth, as strings, mapped to the
  granularity's document ids; ``metadata.ability``, ``metadata.scale``;
- the context: one ``retrieve`` at the run's ``k``, each hit shown under its role, batch and time
  anchor, cut to the answer model's window.

Reference rows (:mod:`memsuite.eval.reference`): ``full_context`` is given the newest messages that fit
the answer model's window (in conversation order; the whole conversation without a window),
``gold_evidence`` only the question's evidence documents. They are not retrievers: no ranking.

Verdicts: ``retrieval`` (always, LLM-free), ``llm`` and ``rule`` (with an answer LLM), defined in
:mod:`.judges`; :mod:`.scoring` summarises them.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from itertools import groupby
from pathlib import Path

from memsuite.eval.answer import context_budget
from memsuite.eval.benchmarks.beam.catalogue import DATA
from memsuite.eval.benchmarks.beam.judges import BeamCase
from memsuite.eval.benchmarks.beam.judges.llm import ANSWER_MAX_TOKENS, answer_prompt
from memsuite.eval.benchmarks.beam.loader import BeamData, Conversation
from memsuite.eval.benchmarks.beam.schema import GRANULARITIES, BeamQuestion, Document, Message, documents
from memsuite.eval.benchmarks.beam.scoring import BEAM_LAYOUT, beam_scores
from memsuite.eval.data.shared import data_path, shared_data_file
from memsuite.eval.protocol import Row, RunContext, Scores
from memsuite.eval.reference import ReferenceContext
from memsuite.eval.retrieval_qa.step import announce, answer_row, given, placement, rank, retrieved
from memsuite.memory_systems.base import MemorySystem
from memsuite.memory_systems.errors import ConfigError
from memsuite.memory_systems.records import Document as StoredDocument
from memsuite.memory_systems.records import Hit, Session, Turn

logger = logging.getLogger(__name__)

_PROMPT_RESERVE_TOKENS = 600


def render(role: str, batch: int, time_anchor: str | None, text: str) -> str:
    """A document as the answer model sees it: under its role, batch and time anchor."""
    when = f", {time_anchor}" if time_anchor else ""
    return f"[{role}, batch {batch}{when}]\n{text}"


def _rendered(hit: Hit) -> str:
    meta = hit.metadata
    return render(meta["role"], meta["batch"], meta.get("time_anchor"), hit.text)


def batch_sessions(
    messages: Iterator[Message], granularity: str, corpus: list[Document]
) -> Iterator[Session]:
    """The conversation as sessions, one per batch, each laid out as its documents; ``corpus`` is
    filled with every document in order (their ids and message ids: the ranking's universe)."""
    for number, group in groupby(messages, key=lambda m: m.batch):
        batch = list(group)
        stored = []
        for index, doc in enumerate(documents(batch, granularity)):
            metadata = {
                "doc_id": doc.doc_id,
                "dia_id": doc.doc_id,
                "position": len(corpus),
                "role": doc.role,
                "batch": doc.batch,
                "time_anchor": doc.time_anchor,
            }
            corpus.append(doc)
            stored.append(
                StoredDocument(doc.text, metadata, turn=index if granularity == "message" else None)
            )
        turns = tuple(Turn(m.role, m.content, {"id": m.id}) for m in batch)
        anchor = batch[0].time_anchor or ""
        yield Session(f"batch-{number}", anchor, turns, {"batch": number}, tuple(stored))


def default_data_path() -> Path:
    """The shared dev conversations (``$MEMSUITE_SHARED_DATA/beam``, laid out as the release's chats/)."""
    release = "the release's chats/ folder (mohammadtavakoli78/BEAM), a scale folder or a catalogue name"
    return shared_data_file(DATA.dev, default=DATA.default, benchmark="beam", release=release, folder=True)


class BeamBenchmark:
    """BEAM conversations as runner units and a protocol (module docstring).

    Args:
        data: A ``chats/``-shaped folder, one scale folder or one conversation folder, or a data
            catalogue name (``beam_500k``); default the shared dev conversations
            (``$MEMSUITE_SHARED_DATA/beam``).
        scales: Only these scales (``100K`` or ``128K``, ``500K``, ``1M``, ``10M``).
        chats: Only these conversations (``"100K/1"``), in this order.
        abilities: Only questions of these abilities.
        per_ability: At most this many questions per ability and conversation.
        granularity: ``message``, ``turn`` or ``batch`` documents (:mod:`.schema`).
        answer_max_tokens: Answer budget.

    Raises:
        ConfigError: Bad options or no data.
        DatasetError: A malformed file (file, place and field named).
    """

    def __init__(
        self,
        data: str | Path | None = None,
        *,
        scales: Sequence[str] | None = None,
        chats: Sequence[str] | None = None,
        abilities: Sequence[str] | None = None,
        per_ability: int | None = None,
        granularity: str = "message",
        answer_max_tokens: int = ANSWER_MAX_TOKENS,
    ) -> None:
        if granularity not in GRANULARITIES:
            raise ConfigError(
                f"beam granularity must be one of {', '.join(GRANULARITIES)}, got {granularity!r}"
            )
        path = data_path(data, benchmark="beam") if data is not None else default_data_path()
        scales, chats, abilities = ([x] if isinstance(x, str) else x for x in (scales, chats, abilities))
        self.data = BeamData(path, scales=scales, chats=chats, abilities=abilities, per_ability=per_ability)
        self.granularity = granularity
        self.answer_max_tokens = answer_max_tokens
        conversations = self.data.conversations.values()
        self.source = {
            "kind": "official",
            "path": str(path),
            "conversations": len(self.data.ids),
            "questions": sum(len(c.questions) for c in conversations),
            "messages": sum(c.message_count for c in conversations),
            "granularity": granularity,
        }

    def units(self) -> list[str]:
        return self.data.ids

    def run_unit(self, system: MemorySystem, unit_id: str, ctx: RunContext) -> Iterator[Row]:
        """Ingest one conversation, then ask its questions (module docstring).

        Raises:
            ConfigError: Unknown unit.
        """
        conversation = self.data.conversations.get(unit_id)
        if conversation is None:
            raise ConfigError(f"beam: unknown unit {unit_id!r}")
        namespace = unit_id
        system.reset(namespace=namespace)
        corpus: list[Document] = []
        failures = 0
        for session in batch_sessions(conversation.messages(), self.granularity, corpus):
            failures += system.ingest_session(session, namespace=namespace).failures
        system.finalize(namespace=namespace)
        doc_of = {m: d.doc_id for d in corpus for m in d.message_ids}
        ids = [d.doc_id for d in corpus]
        places = None if isinstance(system, ReferenceContext) else placement(system, namespace, "position")
        announce(system, [q.question for q in conversation.questions], namespace)
        for question in conversation.questions:
            yield self._ask(system, conversation, question, ids, doc_of, places, ctx, failures)

    def _ask(
        self,
        system: MemorySystem,
        conversation: Conversation,
        question: BeamQuestion,
        ids: list[str],
        doc_of: dict[str, str],
        places: dict[str, int] | None,
        ctx: RunContext,
        failures: int,
    ) -> Row:
        namespace = conversation.conversation_id
        relevant = tuple(dict.fromkeys(doc_of[m] for m in question.evidence))
        ranking = rank(system, question.question, ids, namespace, places) if places else None
        if isinstance(system, ReferenceContext):
            no_ranking = f"a reference row ({system.scope} messages given, not retrieved)"
        elif ranking is None:
            no_ranking = "the memories are not the conversation's documents"
        else:
            no_ranking = None
        budget = context_budget(ctx, _PROMPT_RESERVE_TOKENS)
        if isinstance(system, ReferenceContext):
            context = given(
                system,
                question.question,
                namespace=namespace,
                evidence=relevant,
                budget=budget,
                render=_rendered,
            )
        else:
            context = retrieved(
                system,
                question.question,
                k=ctx.k,
                namespace=namespace,
                budget=budget,
                render=_rendered,
                needs="batch",
            )
        return answer_row(
            ctx,
            system,
            unit_id=namespace,
            question_id=question.question_id,
            question=question.question,
            gold=question.gold,
            context=context,
            case=BeamCase(question, ranking, relevant, ctx.k, self.granularity, no_ranking),
            prompt=lambda text: answer_prompt(question, text),
            max_tokens=self.answer_max_tokens,
            always=("retrieval",),
            metadata={
                "ability": question.ability,
                "scale": conversation.scale,
                "conversation": conversation.conversation_id,
                "granularity": self.granularity,
                "ranking": ranking or [],
                "relevant": list(relevant),
                "evidence_messages": list(question.evidence),
                "corpus_size": len(ids),
                "k": ctx.k,
                "rubric": list(question.rubric),
                "context_truncated": context.truncated,
                "ingest_failures": failures,
            },
        )

    def summarize(self, rows: list[Row]) -> Scores:
        """Retrieval per ability and scale, answer scores per ability and scale, and the data read."""
        return BEAM_LAYOUT.read({"source": self.source, **beam_scores(rows)})
