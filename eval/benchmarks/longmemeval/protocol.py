"""The LongMemEval protocol: one question per unit, its own haystack in its own namespace.

Per unit (a question): reset the namespace; ingest the haystack's sessions in date order through
``ingest_session``, each a :class:`~memsuite.memory_systems.records.Session` (all its turns, for systems
that read dialogue) whose documents are the session's part of the official corpus (:mod:`.schema`: user
turns only, one document per session or per user turn by ``granularity``), each with ``corpus_id``,
``corpus_index`` (its place in the official corpus order), ``session_id`` and ``date`` as metadata;
then ``finalize``; then ``prepare_queries`` with the question; then the question, asked at its
``question_date``, through :mod:`memsuite.eval.retrieval_qa.step`:

- the ranking: one ``search`` for every document of the corpus, read as corpus ids in rank order
  (``metadata.ranking``; a haystack that holds a session twice has its documents twice, as in the
  official corpus). Documents the system did not return (a blank document, which systems skip, or
  fewer hits) follow in corpus order. A system whose memories are not the corpus's documents
  (extracted facts, graphs) has no ranking, and its rows carry only the answer-level verdicts;
- the context: one ``retrieve`` at the run's ``k``; when its hits carry their session date, each is
  shown under it (the answer prompt gives the question's date too), cut to the answer model's window.

Reference rows (:mod:`memsuite.eval.reference`): ``full_context`` is given the whole haystack,
``gold_evidence`` only the evidence sessions (``answer_session_ids``: LongMemEval's oracle setting),
each session in full (both speakers, as the paper's long-context setting shows it) under its date, in
date order, the oldest sessions dropped first to fit the window. They are not retrievers: no ranking.

Verdicts: ``retrieval`` and ``answer_in_context`` (always, LLM-free), ``llm`` and ``rule`` (with an
answer LLM), defined and described in :mod:`.judges`; :mod:`.scoring` summarises them.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from dataclasses import replace
from itertools import accumulate
from pathlib import Path

from memsuite.eval.answer import context_budget
from memsuite.eval.answer_rules.overlap import has_answer
from memsuite.eval.benchmarks.longmemeval.catalogue import DATA
from memsuite.eval.benchmarks.longmemeval.judges import LmeCase
from memsuite.eval.benchmarks.longmemeval.judges.llm import ANSWER_MAX_TOKENS, answer_prompt
from memsuite.eval.benchmarks.longmemeval.judges.retrieval import question_metrics, retrieval_metrics
from memsuite.eval.benchmarks.longmemeval.loader import LmeFile
from memsuite.eval.benchmarks.longmemeval.schema import (
    GRANULARITIES,
    CorpusDocument,
    HaystackSession,
    LmeQuestion,
    corpus,
    session_documents,
)
from memsuite.eval.benchmarks.longmemeval.scoring import LONGMEMEVAL_LAYOUT, longmemeval_scores
from memsuite.eval.data.shared import data_path, shared_data_file
from memsuite.eval.protocol import Row, RunContext, Scores
from memsuite.eval.reference import ReferenceContext
from memsuite.eval.retrieval_qa.step import (
    announce,
    answer_row,
    cut_blocks,
    placement,
    rank,
    reference,
    retrieved,
)
from memsuite.memory_systems.base import MemorySystem
from memsuite.memory_systems.errors import ConfigError
from memsuite.memory_systems.records import Document, Session, Turn

logger = logging.getLogger(__name__)

_PROMPT_RESERVE_TOKENS = 400


def default_data_path() -> Path:
    """The shared dev S file (:func:`memsuite.eval.data.shared.shared_data_file`)."""
    release = "a released file (xiaowu0162/LongMemEval: longmemeval_oracle, _s_cleaned or _m_cleaned .json)"
    return shared_data_file(DATA.dev, default=DATA.default, benchmark="longmemeval", release=release)


def dated_text(date: str, text: str) -> str:
    """A memory's text under its session's date, as the answer prompt shows it."""
    return f"[Session date: {date}]\n{text}"


def render_session(session: HaystackSession) -> str:
    """One haystack session in full, both speakers, under its date."""
    return dated_text(session.date, "\n".join(f"{t.role}: {t.content}" for t in session.turns))


def reference_context(question: LmeQuestion, scope: str, max_tokens: int | None) -> tuple[str, bool]:
    """A reference row's context: every haystack session (``scope`` "all") or the evidence sessions
    ("evidence"), in date order, whole sessions dropped oldest first to fit ``max_tokens`` (the newest
    session cut at its head if even it alone is too long); and whether anything was dropped."""
    text, truncated, _ = cut_blocks(reference_blocks(question, scope), max_tokens)
    return text, truncated


def reference_blocks(question: LmeQuestion, scope: str) -> list[str]:
    """The sessions a reference row is given (:func:`reference_context`), rendered, oldest first."""
    evidence = set(question.answer_session_ids)
    return [
        render_session(question.sessions[i])
        for i in question.date_order()
        if scope == "all" or question.sessions[i].session_id in evidence
    ]


def to_sessions(question: LmeQuestion, granularity: str) -> list[Session]:
    """The haystack as memory-system sessions in date order, each laid out as its corpus documents."""
    parts = [session_documents(s, granularity) for s in question.sessions]
    starts = [0, *accumulate(len(p) for p in parts)]
    sessions = []
    for position in question.date_order():
        session = question.sessions[position]
        documents = tuple(
            Document(
                d.text,
                {
                    "corpus_id": d.corpus_id,
                    "corpus_index": starts[position] + i,
                    "session_id": d.session_id,
                    "date": d.date,
                },
                turn=d.turn,
            )
            for i, d in enumerate(parts[position])
        )
        turns = tuple(Turn(t.role, t.content) for t in session.turns)
        metadata = {"question_id": question.question_id}
        sessions.append(Session(session.session_id, session.date, turns, metadata, documents))
    return sessions


class LongMemEvalBenchmark:
    """LongMemEval questions as runner units and a protocol (module docstring).

    Args:
        data: A released file (oracle, S or M; ``.json`` or ``.json.gz``) unchanged; default the shared
            dev S file.
        granularity: ``session`` or ``turn``: the corpus documents (:mod:`.schema`).
        question_types: Only these types.
        question_ids: Only these questions.
        per_type: The first N questions of each type (a stratified subset).
        answer_max_tokens: Answer budget.

    Raises:
        ConfigError: Bad options or no data file.
        DatasetError: The file is malformed (file, record index and field named).
    """

    def __init__(
        self,
        data: str | Path | None = None,
        *,
        granularity: str = "session",
        question_types: Sequence[str] | None = None,
        question_ids: Sequence[str] | None = None,
        per_type: int | None = None,
        answer_max_tokens: int = ANSWER_MAX_TOKENS,
    ) -> None:
        if granularity not in GRANULARITIES:
            raise ConfigError(
                f"longmemeval granularity must be one of {', '.join(GRANULARITIES)}, got {granularity!r}"
            )
        path = data_path(data, benchmark="longmemeval") if data is not None else default_data_path()
        if isinstance(question_types, str):
            question_types = [question_types]
        if isinstance(question_ids, str):
            question_ids = [question_ids]
        self.file = LmeFile(path, question_types=question_types, question_ids=question_ids, per_type=per_type)
        self.granularity = granularity
        self.answer_max_tokens = answer_max_tokens
        self.source = {
            "kind": "official",
            "path": str(path),
            "questions_in_file": sum(self.file.counts.values()),
            "questions": len(self.file.ids),
            "granularity": granularity,
        }

    def units(self) -> list[str]:
        return self.file.ids

    def run_unit(self, system: MemorySystem, unit_id: str, ctx: RunContext) -> Iterator[Row]:
        """Ingest one question's haystack, then ask it (module docstring).

        Raises:
            ConfigError: Unknown unit.
        """
        if unit_id not in self.file.ids:
            raise ConfigError(f"longmemeval: unknown unit {unit_id!r}")
        question = self.file.question(unit_id)
        documents = corpus(question, self.granularity)
        namespace = unit_id
        system.reset(namespace=namespace)
        failures = 0
        for session in to_sessions(question, self.granularity):
            failures += system.ingest_session(session, namespace=namespace).failures
        system.finalize(namespace=namespace)
        announce(system, [question.question], namespace)
        yield self._ask(system, question, documents, ctx, failures=failures)

    def _ask(
        self,
        system: MemorySystem,
        question: LmeQuestion,
        documents: list[CorpusDocument],
        ctx: RunContext,
        *,
        failures: int,
    ) -> Row:
        namespace = question.question_id
        reference_row = isinstance(system, ReferenceContext)
        corpus_ids = [d.corpus_id for d in documents]
        # By corpus position, not id: a haystack may hold one session twice (the release does).
        places = None if reference_row else placement(system, namespace, "corpus_index")
        ranking = rank(system, question.question, corpus_ids, namespace, places) if places else None
        relevant = tuple(sorted({d.corpus_id for d in documents if d.relevant}))
        metrics = (
            question_metrics(ranking, corpus_ids, set(relevant), self.granularity)
            if ranking is not None
            else None
        )
        budget = context_budget(ctx, _PROMPT_RESERVE_TOKENS)
        if reference_row:
            context = reference(
                system, lambda: [(b, None) for b in reference_blocks(question, system.scope)], budget=budget
            )
        else:
            context = retrieved(
                system,
                question.question,
                k=ctx.k,
                namespace=namespace,
                budget=budget,
                render=lambda h: dated_text(h.metadata["date"], h.text),
                needs="date",
            )
        scorable = not question.abstention and question.question_type != "single-session-preference"
        in_context = has_answer([question.answer], context.text) if scorable else None
        at_k = (
            retrieval_metrics(ranking, corpus_ids, set(relevant), ctx.k)["recall_all"]
            if ranking is not None
            else None
        )
        case = LmeCase(question, metrics, relevant, ctx.k, at_k, self.granularity, in_context)
        if reference_row:
            case = replace(case, no_ranking=f"a reference row ({system.scope} sessions given, not retrieved)")
        return answer_row(
            ctx,
            system,
            unit_id=namespace,
            question_id=question.question_id,
            question=question.question,
            gold=question.answer,
            context=context,
            case=case,
            prompt=lambda text: answer_prompt(question, text),
            max_tokens=self.answer_max_tokens,
            always=("retrieval", "answer_in_context"),
            metadata={
                "question_type": question.question_type,
                "abstention": question.abstention,
                "question_date": question.question_date,
                "granularity": self.granularity,
                "ranking": ranking or [],
                "relevant": list(relevant),
                "corpus_size": len(documents),
                "k": ctx.k,
                "context_truncated": context.truncated,
                "ingest_failures": failures,
            },
        )

    def summarize(self, rows: list[Row]) -> Scores:
        """Official retrieval averages, answer-level rates per question type, and the data read."""
        return LONGMEMEVAL_LAYOUT.read({"source": self.source, **longmemeval_scores(rows)})


# The class itself is the factory: its signature is the schema of LongMemEval's benchmark_options.
