"""The LoCoMo protocol: one conversation per unit, in its own namespace; every question after it.

Per unit (a conversation, ``sample_id``): reset the namespace, ingest the sessions in order (N as a
number) through ``ingest_session`` -- each a :class:`~memsuite.memory_systems.records.Session` with the
session's date/time as its timestamp, the speakers' names as turn roles (and both in
``metadata["speakers"]``), and every turn carrying its document in LoCoMo's RAG format,
``({date_time}) {speaker} said, "{text}"`` plus a line ``[shares {blip_caption}]`` for a shared image,
with ``{"dia_id", "session"}`` as metadata -- then ``finalize``, then ``prepare_queries`` with the
conversation's questions, then per question exactly one ``retrieve`` at the run's ``k``. The session's
documents (:attr:`Session.documents`) are its turns in that format, one each, so raw-turn systems
(bm25, dense, langchain_faiss) store one document per turn; every other system ingests the session
natively and ignores the documents.

The retrieved turns are the hits ``retrieve`` returns with its context: ``retrieved_dia_ids`` lists
the ``dia_id`` of each, in rank order, and is empty for a system whose memories are not turns
(extracted facts, graphs, wiki pages).

Reference rows: a system that declares :class:`~.reference.ReferenceContext` (``full_context``,
``gold_evidence``) is asked that instead of ``retrieve``, still once per question; its context is cut
to the answer model's window by dropping the oldest turns first. Every other context is cut
best-first (its tail dropped).

Verdicts (rows keep failed and undefined verdicts, summaries leave them out and count them):

- ``evidence`` (always, LLM-free): the recall of the question's evidence dia_ids among the retrieved
  turns (``correct`` = all found); for a system whose memories are not turns, ``answer_in_context``.
- ``f1`` (with an answer LLM): LoCoMo's per-category token F1
  (:mod:`memsuite.eval.retrieval_qa.category_f1`), in ``score``.
- ``rule`` (with an answer LLM, LLM-free): the J prompt's rubric as string rules
  (:mod:`memsuite.eval.retrieval_qa.category_rule`) and category 5's rule
  (:mod:`memsuite.eval.retrieval_qa.adversarial`); undecided answers are ``correct: None`` with
  ``undecided``.
- ``llm`` (with an answer LLM): the mem0 judge (:mod:`.judges.llm`) through ``ctx.judge_llm`` when the run
  has one, else the answer LLM; category 5 through the restated adversarial prompt.

Category 5 (``adversarial_format``): ``open`` asks it as any other question; ``choice`` asks a
multiple choice (the trap, distractors from the conversation's other gold answers, "Not mentioned in
the conversation"; seeded by the run's seed) and scores the option chosen. Rows record the options
(``metadata["options"]``).

The answer key (``answer_key``: ``original``, ``audited``, ``both``): with the audit's findings
(``audit``: the audit's errors.json; by default the shared copy when the data is the shared dev
file), each question the audit names carries its finding (``metadata["audit"]``) and every verdict
also holds its ``audited`` reading (:mod:`.judges`); summaries give both keys, the flips and the
original key's ceiling (:mod:`.scoring`). ``audited`` without an audit file is refused; ``both``
without one is ``original``, said in the summary (``answer_key``).

Retrieval, the cut, the answer call, its usage, the failed-call rule and the judges run in the shared
step (:mod:`memsuite.eval.retrieval_qa.step`, over :mod:`memsuite.eval.answer`); the judges are defined
in :mod:`.judges`. A failed answer or judge call gives ``correct: None`` with the failure kind;
summaries count it in ``n_failed``. The summary records the data file read (``source``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from memsuite.eval.answer import context_budget
from memsuite.eval.answer_rules.overlap import has_answer, stemmer
from memsuite.eval.benchmarks.locomo.audit import (
    Finding,
    audit_findings,
    check_answer_key,
    default_audit_path,
)
from memsuite.eval.benchmarks.locomo.catalogue import DATA
from memsuite.eval.benchmarks.locomo.judges import LocomoCase, gold_for_scoring
from memsuite.eval.benchmarks.locomo.judges.llm import ANSWER_MAX_TOKENS, answer_prompt, resolve_choice
from memsuite.eval.benchmarks.locomo.loader import load_conversations
from memsuite.eval.benchmarks.locomo.schema import ADVERSARIAL, CATEGORY_NAMES, Conversation, Question
from memsuite.eval.benchmarks.locomo.schema import Session as LocomoSession
from memsuite.eval.benchmarks.locomo.schema import Turn as LocomoTurn
from memsuite.eval.benchmarks.locomo.scoring import locomo_scores
from memsuite.eval.data.shared import data_path, shared_data_file
from memsuite.eval.protocol import BY_JUDGE, Row, RunContext, Scores
from memsuite.eval.reference import ReferenceContext
from memsuite.eval.retrieval_qa.adversarial import NOT_MENTIONED, choice_options
from memsuite.eval.retrieval_qa.step import Context, announce, answer_row, given, retrieved, stores
from memsuite.memory_systems.base import MemorySystem
from memsuite.memory_systems.errors import ConfigError
from memsuite.memory_systems.records import Document, Session, Turn

logger = logging.getLogger(__name__)

#: Room kept free in the answer model's window: prompt text, chat template and the answer.
_PROMPT_RESERVE_TOKENS = 300


def default_data_path() -> Path:
    """The shared dev file (:func:`memsuite.eval.data.shared.shared_data_file`).

    Raises:
        ConfigError: It is not there; the message says where to get the released file.
    """
    release = "the released locomo10.json (snap-research/LoCoMo, data/locomo10.json)"
    return shared_data_file(DATA.dev, default=DATA.default, benchmark="locomo", release=release)


#: Category 5's answer formats (module docstring).
ADVERSARIAL_FORMATS = ("open", "choice")


def turn_document(turn: LocomoTurn, date_time: str) -> str:
    """One turn in LoCoMo's RAG format (module docstring)."""
    text = f'({date_time}) {turn.speaker} said, "{turn.text}"'
    return f"{text}\n[shares {turn.blip_caption}]" if turn.blip_caption else text


def to_session(conversation: Conversation, session: LocomoSession) -> Session:
    """A LoCoMo session as the memory systems ingest it (module docstring)."""
    turns = tuple(
        Turn(
            t.speaker,
            t.text if not t.blip_caption else f"{t.text}\n[shares {t.blip_caption}]",
            metadata={"dia_id": t.dia_id, "session": session.number},
        )
        for t in session.turns
    )
    documents = tuple(
        Document(turn_document(t, session.date_time), {"dia_id": t.dia_id, "session": session.number}, turn=i)
        for i, t in enumerate(session.turns)
    )
    return Session(
        f"{conversation.sample_id}/session_{session.number}",
        session.date_time,
        turns,
        {"speakers": [conversation.speaker_a, conversation.speaker_b], "session": session.number},
        documents,
    )


def ask(
    ctx: RunContext,
    system: MemorySystem,
    case: LocomoCase,
    context: Context,
    *,
    sample_id: str,
    metadata: Mapping[str, Any],
    max_tokens: int = ANSWER_MAX_TOKENS,
) -> Row:
    """One question through the shared step (:func:`memsuite.eval.retrieval_qa.step.answer_row`).

    The answer prompt is LoCoMo's (:func:`.judges.llm.answer_prompt`), temperature 0; a category-5 choice
    reply naming an option is read as its option's text before the judges see it (and is the row's
    answer). The evidence verdict is always given; the others when the run asks for them and there is
    an answer LLM.
    """
    question = case.question
    return answer_row(
        ctx,
        system,
        unit_id=sample_id,
        question_id=f"q{question.index:03d}",
        question=question.question,
        gold=question.answer if question.answer is not None else NOT_MENTIONED,
        context=context,
        case=case,
        prompt=lambda text: answer_prompt(question, text, options=case.options),
        max_tokens=max_tokens,
        always=("evidence",),
        metadata=metadata,
        parse=lambda reply: resolve_choice(reply.text or "", case.options),
    )


class LocomoBenchmark:
    """LoCoMo QA as runner units (conversations) and a protocol.

    Args:
        data: The released ``locomo10.json`` (or any subset of its items); default the shared dev
            file (:func:`default_data_path`).
        conversations: Only these ``sample_id`` s, in this order, or a count N: the first N in file
            order; default every conversation.
        max_questions: At most this many questions per conversation (a quick look), default all.
        categories: Only questions of these categories (1-5), default every one; ``max_questions``
            then counts the chosen ones.
        adversarial_in_overall: Count category 5 in the overall score (the published tables do not).
        answer_max_tokens: Answer budget (LoCoMo's 32).
        answer_key: ``original``, ``audited`` or ``both`` (module docstring).
        audit: The LoCoMo audit's errors.json, a path or its catalogue name (``locomo_audit_errors``,
            after ``memsuite data fetch``); default the shared copy when ``data`` is the shared dev file.
        adversarial_format: How category 5 is asked: ``open`` or ``choice`` (module docstring).

    Raises:
        ConfigError: Bad options or no data file.
        DatasetError: The file is malformed (file, conversation, question and field named).
    """

    def __init__(
        self,
        data: str | Path | None = None,
        *,
        conversations: Sequence[str] | int | None = None,
        max_questions: int | None = None,
        adversarial_in_overall: bool = False,
        answer_max_tokens: int = ANSWER_MAX_TOKENS,
        answer_key: str = "both",
        audit: str | Path | None = None,
        adversarial_format: str = "open",
        categories: Sequence[int] | None = None,
    ) -> None:
        path = data_path(data, benchmark="locomo") if data is not None else default_data_path()
        if adversarial_format not in ADVERSARIAL_FORMATS:
            raise ConfigError(
                f"locomo adversarial_format must be one of {', '.join(ADVERSARIAL_FORMATS)}, "
                f"got {adversarial_format!r}"
            )
        audit_path = (
            data_path(audit, benchmark="locomo", option="audit")
            if audit is not None
            else default_audit_path(path, DATA.dev)
        )
        self.answer_key = check_answer_key(answer_key, audit_path)
        if categories is not None and (
            isinstance(categories, str | int) or not categories or not set(categories) <= set(CATEGORY_NAMES)
        ):
            raise ConfigError(f"locomo categories must be a non-empty list of 1-5, got {categories!r}")
        self.categories = None if categories is None else tuple(categories)
        self.adversarial_format = adversarial_format
        loaded, self.repairs = load_conversations(path)
        self.findings: dict[tuple[str, int], Finding] = {}
        if audit_path is not None and self.answer_key != "original":
            self.findings = audit_findings(audit_path, loaded)
        by_id = {c.sample_id: c for c in loaded}
        if isinstance(conversations, str):
            conversations = [conversations]
        if isinstance(conversations, int) and not isinstance(conversations, bool):
            if not 1 <= conversations <= len(loaded):
                raise ConfigError(
                    f"locomo conversations: a count must be 1 to {len(loaded)} (the file's conversations),"
                    f" got {conversations}"
                )
            conversations = [c.sample_id for c in loaded[:conversations]]
        for sample_id in conversations or ():
            if sample_id not in by_id:
                raise ConfigError(f"locomo: unknown conversation {sample_id!r}; known: {', '.join(by_id)}")
        chosen = list(conversations) if conversations else list(by_id)
        if max_questions is not None and (
            isinstance(max_questions, bool) or not isinstance(max_questions, int) or max_questions < 1
        ):
            raise ConfigError(
                f"locomo max_questions must be a positive integer or null, got {max_questions!r}"
            )
        self.conversations = {sample_id: by_id[sample_id] for sample_id in chosen}
        self.max_questions = max_questions
        self.adversarial_in_overall = bool(adversarial_in_overall)
        self.answer_max_tokens = answer_max_tokens
        # What this run asks, not what the file holds: the chosen conversations and their questions.
        self.repairs = self.repairs.of(chosen, max_questions)
        self.source = {
            "kind": "official",
            "path": str(path),
            "conversations": len(chosen),
            "questions": sum(len(self.questions_of(sample_id)) for sample_id in chosen),
            "file_conversations": len(loaded),
            "answer_key": self.answer_key,
            "audit": str(audit_path) if self.findings else None,
            "audit_findings": sum(
                (s, q.index) in self.findings for s in chosen for q in self.questions_of(s)
            ),
            "adversarial_format": adversarial_format,
        }
        if self.repairs.repaired or self.repairs.dropped or self.repairs.unknown:
            logger.info(
                "locomo %s: evidence ids repaired %d, dropped %d, unknown %d",
                path,
                self.repairs.repaired,
                self.repairs.dropped,
                self.repairs.unknown,
            )

    def units(self) -> list[str]:
        return list(self.conversations)

    def questions_of(self, sample_id: str) -> tuple[Question, ...]:
        questions = self.conversations[sample_id].questions
        if self.categories is not None:
            questions = tuple(q for q in questions if q.category in self.categories)
        return questions[: self.max_questions] if self.max_questions else questions

    def run_unit(self, system: MemorySystem, unit_id: str, ctx: RunContext) -> Iterator[Row]:
        """Ingest one conversation, then ask each of its questions (module docstring).

        Raises:
            ConfigError: Unknown unit, or the f1 judge without nltk.
        """
        if unit_id not in self.conversations:
            raise ConfigError(f"locomo: unknown unit {unit_id!r}; units: {', '.join(self.conversations)}")
        if "f1" in ctx.judges:
            stemmer()  # a missing nltk fails here, before any ingestion
        conversation = self.conversations[unit_id]
        namespace = unit_id
        system.reset(namespace=namespace)
        failures = 0
        for session in conversation.sessions:
            failures += system.ingest_session(to_session(conversation, session), namespace=namespace).failures
        system.finalize(namespace=namespace)
        turns = stores(system, namespace, "dia_id")
        budget = context_budget(ctx, _PROMPT_RESERVE_TOKENS)
        questions = self.questions_of(unit_id)
        announce(system, [q.question for q in questions], namespace)
        for question in questions:
            yield self._ask(
                system, conversation, question, ctx, turns=turns, budget=budget, failures=failures
            )

    def _ask(self, system, conversation, question, ctx, *, turns, budget, failures) -> Row:
        namespace = conversation.sample_id
        if isinstance(system, ReferenceContext):
            context = given(
                system,
                question.question,
                namespace=namespace,
                evidence=question.evidence,
                budget=budget,
                separator="\n",
            )
        else:
            context = retrieved(system, question.question, k=ctx.k, namespace=namespace, budget=budget)
        hits = context.hits
        dia_ids = list(dict.fromkeys(h.metadata["dia_id"] for h in hits if "dia_id" in (h.metadata or {})))
        gold = gold_for_scoring(question)
        in_context = has_answer([gold], context.text) if gold is not None else None
        finding = self.findings.get((namespace, question.index))
        options = self.options_of(conversation, question, ctx.seed)
        case = LocomoCase(question, tuple(dia_ids), turns, in_context, finding, options)
        return ask(
            ctx,
            system,
            case,
            context,
            sample_id=namespace,
            max_tokens=self.answer_max_tokens,
            metadata={
                "category": question.category,
                "category_name": question.category_name,
                "evidence": list(question.evidence),
                "raw_evidence": list(question.raw_evidence),
                "retrieved_dia_ids": dia_ids,
                "answer_in_context": in_context,
                "adversarial_answer": question.adversarial_answer,
                **({"options": list(options)} if options else {}),
                **({"audit": finding.to_metadata()} if finding is not None else {}),
                "memories_are_turns": turns,
                "k": ctx.k,
                "context_truncated": context.truncated,
                "ingest_failures": failures,
            },
        )

    def options_of(self, conversation: Conversation, question: Question, seed: int) -> tuple[str, ...] | None:
        """A category-5 question's options in the choice format; else None."""
        if self.adversarial_format != "choice" or question.category != ADVERSARIAL:
            return None
        others = [q.answer for q in conversation.questions if q.answer and q.category != ADVERSARIAL]
        trap = question.adversarial_answer or question.answer or ""
        return choice_options(trap, others, seed=seed, sample_id=conversation.sample_id, index=question.index)

    def summarize(self, rows: list[Row]) -> Scores:
        """Scores per judge and category, recall and answer-in-context rates, and the data's repairs."""
        return BY_JUDGE.read(
            {
                "source": self.source,
                "evidence_repairs": self.repairs.to_dict(),
                **locomo_scores(
                    rows, adversarial_in_overall=self.adversarial_in_overall, answer_key=self.answer_key
                ),
            }
        )


# The class itself is the factory: its signature is the schema of LoCoMo's benchmark_options.
