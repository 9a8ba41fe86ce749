"""The REALTALK protocol: one chat per unit, in its own namespace; every question after it.

Per unit (a chat, its file stem ``Chat_<n>_<A>_<B>``): reset the namespace; ingest the sessions in
numeric order through ``ingest_session``, each a :class:`~memsuite.memory_systems.records.Session` (its
messages as turns under their speakers, the session's date as timestamp) whose documents are the
session's documents at the run's ``granularity`` (:mod:`.documents`: ``message`` -- one per message,
id its ``dia_id``, text its ``clean_text`` exactly; ``session``), each with metadata ``doc_id``,
``dia_id`` (= ``doc_id``: the key the reference rows select evidence by), ``position`` (its place in the
chat), ``session``, ``speaker`` and ``date_time``; then ``finalize``; then ``prepare_queries`` with the
chat's questions; then each question, its text exactly as released:

- ``metadata.ranking``: one ``search`` for every document of the chat, read as document ids in rank
  order; documents the system did not return (fewer hits) follow in chat order. Equal scores rank the
  earlier document first (bm25 and dense store in chat order and break ties that way). A system whose
  memories are not the chat's documents (extracted facts) has no ranking: an empty list, and its
  retrieval verdict is undefined;
- ``metadata.relevant``: the cited ids the chat holds (:mod:`.evidence`), mapped to the granularity's
  document ids; ``metadata.dangling``: the cited ids it does not hold; ``metadata.category``;
- the context: one ``retrieve`` at the run's ``k``, each hit under its time and speaker, cut to the
  answer model's window.

Reference rows (:mod:`memsuite.eval.reference`): ``full_context`` is given the chat's newest documents
that fit the answer model's window (the whole chat without a window), in chat order; ``gold_evidence``
only the question's relevant documents. They are not retrievers: no ranking.

Verdicts: ``retrieval`` (always, LLM-free), ``f1``, ``llm`` and ``rule`` (with an answer LLM),
defined in :mod:`.judges`; :mod:`.scoring` summarises them, :mod:`.diagnostics` the evidence.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from memsuite.eval.answer import context_budget
from memsuite.eval.benchmarks.realtalk.catalogue import DATA
from memsuite.eval.benchmarks.realtalk.diagnostics import evidence_diagnostics
from memsuite.eval.benchmarks.realtalk.documents import (
    GRANULARITIES,
    Document,
    holders,
    relevant_documents,
    render,
    session_documents,
)
from memsuite.eval.benchmarks.realtalk.judges import RealtalkCase
from memsuite.eval.benchmarks.realtalk.judges.llm import ANSWER_MAX_TOKENS, answer_prompt
from memsuite.eval.benchmarks.realtalk.loader import load_chats
from memsuite.eval.benchmarks.realtalk.schema import Chat, Question
from memsuite.eval.benchmarks.realtalk.scoring import REALTALK_LAYOUT, realtalk_scores
from memsuite.eval.data.shared import data_path, shared_data_file
from memsuite.eval.protocol import Row, RunContext, Scores
from memsuite.eval.reference import ReferenceContext
from memsuite.eval.retrieval_qa.step import announce, answer_row, given, placement, rank, retrieved
from memsuite.memory_systems.base import MemorySystem
from memsuite.memory_systems.errors import ConfigError
from memsuite.memory_systems.records import Document as StoredDocument
from memsuite.memory_systems.records import Hit, Session, Turn

#: Room kept free in the answer model's window: prompt text, chat template and the answer.
_PROMPT_RESERVE_TOKENS = 300


def default_data_path() -> Path:
    """The shared dev chats (``$MEMSUITE_SHARED_DATA/realtalk``), else the fetched catalogue entry."""
    release = "the release's data/ folder (danny911kr/REALTALK) or its Chat_<n>_*.json files"
    return shared_data_file(
        DATA.dev, default=DATA.default, benchmark="realtalk", release=release, folder=True
    )


def to_session(chat: Chat, number: int, documents: list[Document], corpus: list[Document]) -> Session:
    """One session as the memory systems ingest it; ``corpus`` gets its documents (module docstring)."""
    session = next(s for s in chat.sessions if s.number == number)
    stored = []
    for index, doc in enumerate(documents):
        metadata = {
            "doc_id": doc.doc_id,
            "dia_id": doc.doc_id,
            "position": len(corpus),
            "session": doc.session,
            "speaker": doc.speaker,
            "date_time": doc.date_time,
        }
        corpus.append(doc)
        stored.append(StoredDocument(doc.text, metadata, turn=index if doc.speaker is not None else None))
    turns = tuple(Turn(m.speaker, m.text, {"dia_id": m.dia_id, "session": number}) for m in session.messages)
    metadata = {"speakers": list(chat.speakers), "session": number}
    return Session(f"{chat.chat_id}/session_{number}", session.date_time, turns, metadata, tuple(stored))


class RealtalkBenchmark:
    """REALTALK chats as runner units and a protocol (module docstring).

    Args:
        data: The release's ``data/`` folder, one chat file, a list of chat files, or a catalogue name
            (``realtalk``); default the shared dev chats.
        chats: Only these chats, in this order: chat numbers (``1``) or file stems
            (``Chat_1_Emi_Elise``); or a count N, the first N by number.
        categories: Only questions of these categories (1-3).
        max_questions: At most this many questions per chat (after ``categories``).
        granularity: ``message`` or ``session`` documents (:mod:`.documents`).
        captions: Add a shared image's caption to its message's document (default the text alone).
        answer_max_tokens: Answer budget.

    Raises:
        ConfigError: Bad options or no data.
        DatasetError: A malformed file (file, message or question, and field named).
    """

    def __init__(
        self,
        data: str | Path | Sequence[str | Path] | None = None,
        *,
        chats: Sequence[int | str] | int | None = None,
        categories: Sequence[int] | None = None,
        max_questions: int | None = None,
        granularity: str = "message",
        captions: bool = False,
        answer_max_tokens: int = ANSWER_MAX_TOKENS,
    ) -> None:
        if granularity not in GRANULARITIES:
            raise ConfigError(
                f"realtalk granularity must be one of {', '.join(GRANULARITIES)}, got {granularity!r}"
            )
        if not isinstance(captions, bool):
            raise ConfigError(f"realtalk captions must be true or false, got {captions!r}")
        if max_questions is not None and (
            isinstance(max_questions, bool) or not isinstance(max_questions, int) or max_questions < 1
        ):
            raise ConfigError(
                f"realtalk max_questions must be a positive integer or null, got {max_questions!r}"
            )
        if categories is not None and (
            isinstance(categories, str | int)
            or not categories
            or not all(isinstance(c, int) and not isinstance(c, bool) and c >= 1 for c in categories)
        ):
            raise ConfigError(f"realtalk categories must be a non-empty list of 1-3, got {categories!r}")
        if data is None:
            paths: Any = default_data_path()
        elif isinstance(data, str | Path):
            paths = data_path(data, benchmark="realtalk")
        else:
            paths = [data_path(p, benchmark="realtalk") for p in data]
        loaded = load_chats(paths)
        self.chats = {c.chat_id: c for c in _chosen(loaded, chats)}
        self.categories = None if categories is None else tuple(categories)
        self.max_questions = max_questions
        self.granularity = granularity
        self.captions = captions
        self.answer_max_tokens = answer_max_tokens
        self.source = {
            "kind": "official",
            "path": str(paths) if isinstance(paths, Path) else [str(p) for p in paths],
            "chats": list(self.chats),
            "file_chats": len(loaded),
            "messages": sum(len(c.messages) for c in self.chats.values()),
            "questions": sum(len(self.questions_of(c)) for c in self.chats),
            "granularity": granularity,
            "captions": captions,
        }

    def units(self) -> list[str]:
        return list(self.chats)

    def questions_of(self, chat_id: str) -> tuple[Question, ...]:
        questions = self.chats[chat_id].questions
        if self.categories is not None:
            questions = tuple(q for q in questions if q.category in self.categories)
        return questions[: self.max_questions] if self.max_questions else questions

    def run_unit(self, system: MemorySystem, unit_id: str, ctx: RunContext) -> Iterator[Row]:
        """Ingest one chat, then ask its questions (module docstring).

        Raises:
            ConfigError: Unknown unit.
        """
        chat = self.chats.get(unit_id)
        if chat is None:
            raise ConfigError(f"realtalk: unknown unit {unit_id!r}; units: {', '.join(self.chats)}")
        namespace = unit_id
        system.reset(namespace=namespace)
        corpus: list[Document] = []
        failures = 0
        for session in chat.sessions:
            documents = session_documents(session, self.granularity, captions=self.captions)
            ingested = system.ingest_session(
                to_session(chat, session.number, documents, corpus), namespace=namespace
            )
            failures += ingested.failures
        system.finalize(namespace=namespace)
        places = None if isinstance(system, ReferenceContext) else placement(system, namespace, "position")
        budget = context_budget(ctx, _PROMPT_RESERVE_TOKENS)
        holder = holders(corpus)
        ids = [d.doc_id for d in corpus]
        questions = self.questions_of(unit_id)
        announce(system, [q.question for q in questions], namespace)
        for question in questions:
            relevant = relevant_documents(question.relevant, holder)
            yield self._ask(system, chat, question, relevant, ids, places, ctx, budget, failures)

    def _ask(
        self,
        system: MemorySystem,
        chat: Chat,
        question: Question,
        relevant: tuple[str, ...],
        ids: list[str],
        places: dict[str, int] | None,
        ctx: RunContext,
        budget: int | None,
        failures: int,
    ) -> Row:
        namespace = chat.chat_id
        ranking = rank(system, question.question, ids, namespace, places) if places else None
        if isinstance(system, ReferenceContext):
            no_ranking = f"a reference row ({system.scope} documents given, not retrieved)"
            context = given(
                system,
                question.question,
                namespace=namespace,
                evidence=relevant,
                budget=budget,
                render=_rendered,
                separator="\n",
            )
        else:
            no_ranking = None if places else "the memories are not the chat's documents"
            context = retrieved(
                system,
                question.question,
                k=ctx.k,
                namespace=namespace,
                budget=budget,
                render=_rendered,
                needs="date_time",
            )
        case = RealtalkCase(
            question,
            relevant,
            None if ranking is None else tuple(ranking),
            ctx.k,
            self.granularity,
            no_ranking,
        )
        return answer_row(
            ctx,
            system,
            unit_id=namespace,
            question_id=question.question_id,
            question=question.question,
            gold=question.answer,
            context=context,
            case=case,
            prompt=lambda text: answer_prompt(question.question, text),
            max_tokens=self.answer_max_tokens,
            always=("retrieval",),
            metadata={
                "category": question.category,
                "category_name": question.category_name,
                "chat": chat.chat_id,
                "granularity": self.granularity,
                "ranking": ranking or [],
                "relevant": list(relevant),
                "dangling": list(question.dangling),
                "raw_evidence": list(question.raw_evidence),
                "corpus_size": len(ids),
                "k": ctx.k,
                "context_truncated": context.truncated,
                "ingest_failures": failures,
            },
        )

    def summarize(self, rows: list[Row]) -> Scores:
        """Retrieval and answer scores per category, the evidence per chat, and the data read."""
        return REALTALK_LAYOUT.read(
            {"source": self.source, "evidence": evidence_diagnostics(rows), **realtalk_scores(rows)}
        )


def _chosen(loaded: list[Chat], chats: Sequence[int | str] | int | None) -> list[Chat]:
    """The chats a run asks for, in its order (:class:`RealtalkBenchmark` ``chats``)."""
    if chats is None:
        return loaded
    if isinstance(chats, int) and not isinstance(chats, bool):
        if not 1 <= chats <= len(loaded):
            raise ConfigError(
                f"realtalk chats: a count must be 1 to {len(loaded)} (the chats read), got {chats}"
            )
        return loaded[:chats]
    if isinstance(chats, str):
        chats = [chats]
    by_key: dict[int | str, Chat] = {**{c.number: c for c in loaded}, **{c.chat_id: c for c in loaded}}
    out = []
    for key in chats:
        if isinstance(key, bool) or key not in by_key:
            known = ", ".join(f"{c.number} ({c.chat_id})" for c in loaded)
            raise ConfigError(f"realtalk: unknown chat {key!r}; known: {known}")
        out.append(by_key[key])
    if len({c.chat_id for c in out}) != len(out):
        raise ConfigError(f"realtalk chats: a chat is named twice in {list(chats)!r}")
    return out


def _rendered(hit: Hit) -> str:
    meta = hit.metadata or {}
    if "date_time" not in meta:
        return hit.text
    return render(hit.text, meta.get("speaker"), meta["date_time"])


# The class itself is the factory: its signature is the schema of REALTALK's benchmark_options.
