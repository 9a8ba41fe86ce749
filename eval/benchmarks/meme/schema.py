"""MEME episode records: frozen, typed, validated when built from the released JSON (MEME paper).

An episode is one JSON object; a release is a JSON array of them (or one per file in a folder, see
:mod:`memsuite.eval.benchmarks.meme.loader`). Only ``episode_id``, ``domain``, ``sessions``,
``before_questions`` and ``after_questions`` are required. Everything else is metadata: kept when
present, never required, and checked for shape only when present. Keys a record does not model are
kept verbatim in its ``extra`` mapping, so ``parse_episode(d).to_dict() == d`` (:mod:`.parsing`) for
files in the released layout (exceptions: a question's ``entity`` given as one string comes back as a list, an
empty ``entity`` / ``target_entities`` list is dropped, a gold answer given as a list comes back
comma-joined, and an after-question set without ``position_after_session`` gets the last session).

Task names. The short codes are ER, Agg, Tr, Del, Cas, Abs. An earlier release spelt them out; the
mapping (:data:`LONG_TASK_NAMES`) is:

- ``Exact``, ``Exact (exact recall)`` (before phase) -> ER: exact recall of a verbatim value.
- ``Multi-hop`` -> Agg: combines several entities' values in one answer (aggregation).
- ``Multiple-update`` -> Tr: one entity updated several times; all values in order (tracking).
- ``Deletion``, ``Deletion (before delete)`` (before phase) -> Del: the user asked to forget the fact.
- ``Cascade-D (N-hop)`` -> Cas: a *determined* cascade. The rule "X depends on Y; if Y changes, X will
  be Z" pre-declares the new value, so after Y changes X is Z.
- ``Cascade-U (N-hop)`` -> Abs: an *undetermined* cascade. Only "X depends on Y" was said, so after Y
  changes X's value is unknown and the right answer is uncertainty (baselines/temporal_kg.py does exactly
  this split: apply the stated rule for Cascade, mark X uncertain for Absence).

The ``(N-hop)`` of a long Cascade label is the dependency distance from the changed root; it fills
:attr:`Question.resolved_hop` when the question has no ``hop`` key.

Value conventions (memsuite's generator writes them; released files may differ, which is why the
raw ``entity_values`` is kept as given). A question's ``entity_values`` is a list of strings: before
the change, ``[value expected now]``; after it, per task: ER ``[value]``, Agg ``[v1, v2, v3]`` (one
per target entity, in entity order), Tr ``[v1, v2, v3]`` (chronological), Cas ``[old, new]``, Abs
``[old]``, Del ``[deleted value]``. Gold answers: ER the verbatim value; Agg and Tr the values joined
with ``", "``; Cas the new value the rule declared; Abs ``Uncertain — previously '<old>', but
<source> changed``; Del ``No — explicitly removed``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from memsuite.memory_systems.chunking import chunk_documents
from memsuite.memory_systems.records import Session, Turn

#: Short task codes, in the paper's table order.
TASK_TYPES = ("ER", "Agg", "Tr", "Del", "Cas", "Abs")
#: Tasks that have a before-question (the paper asks only these before the change).
BEFORE_TASK_TYPES = ("ER", "Del", "Cas", "Abs")
#: Question phases, in protocol order.
PHASES = ("before", "after")
#: Long-form task names of the earlier release -> short code (see the module docstring for why).
#: ``Cascade-D`` / ``Cascade-U`` also appear with a ``(N-hop)`` suffix.
LONG_TASK_NAMES = {
    "Exact": "ER",
    "Exact (exact recall)": "ER",
    "Multi-hop": "Agg",
    "Multiple-update": "Tr",
    "Deletion": "Del",
    "Deletion (before delete)": "Del",
    "Cascade-D": "Cas",
    "Cascade-U": "Abs",
}
#: Gold answer of every Del after-question.
DELETION_GOLD = "No — explicitly removed"

# Case-insensitive aliases: short codes, long forms, and the paper's full task names.
_TASK_ALIASES = {
    **{code.casefold(): code for code in TASK_TYPES},
    **{name.casefold(): code for name, code in LONG_TASK_NAMES.items()},
    "exact recall": "ER",
    "aggregation": "Agg",
    "tracking": "Tr",
    "cascade": "Cas",
    "absence": "Abs",
}
_HOP_SUFFIX = re.compile(r"^(?P<name>.*?)\s*\((?P<hop>\d+)-hop\)$", re.IGNORECASE)


def parse_task_type(label: str) -> tuple[str, int | None]:
    """Map a task label, short or long form, to its short code and the hop its label states.

    Args:
        label: E.g. ``"Cas"``, ``"Multi-hop"``, ``"Cascade-U (1-hop)"``, ``"Exact (exact recall)"``.

    Returns:
        ``(code, hop)``: the code from :data:`TASK_TYPES`, and the ``N`` of an ``(N-hop)`` suffix or None.

    Raises:
        ValueError: The label is not a known task name.
    """
    text = " ".join(str(label).split())
    code = _TASK_ALIASES.get(text.casefold())
    if code is not None:
        return code, None
    match = _HOP_SUFFIX.match(text)
    if match:
        code = _TASK_ALIASES.get(match["name"].casefold())
        if code is not None:
            return code, int(match["hop"])
    known = ", ".join([*TASK_TYPES, *LONG_TASK_NAMES])
    raise ValueError(f"unknown task type {label!r}; known: {known} (Cascade-D/U may end in '(N-hop)')")


def abs_gold(old_value: str, source: str) -> str:
    """The Absence gold answer: ``Uncertain — previously '<old>', but <source> changed``.

    Args:
        old_value: The dependent entity's value before the upstream change.
        source: What changed upstream (the entity's display name).

    Returns:
        The gold string.
    """
    return f"Uncertain — previously '{old_value}', but {source} changed"


# ----------------------------------------------------------------------------------------------------
# Records


@dataclass(frozen=True)
class GoldFact:
    """One fact an evidence session conveys, as the generator planted it."""

    entity: str
    """Entity id the fact is about."""
    value: str
    """The value it conveys (for a dependency fact, what the notes say; empty for a deletion)."""
    fact_text: str | None = None
    """The fact as one plain sentence (what an oracle baseline would be given)."""
    conveyed_in_turn: int | None = None
    """Index of the turn of the session's conversation that states it (0-based)."""
    notes: str | None = None
    """Kind of fact and anything a reader needs (rule, dependency, update, deletion, ...)."""
    extra: dict[str, Any] = field(default_factory=dict, hash=False)
    """Keys of the file not modelled above, kept verbatim."""

    def to_dict(self) -> dict[str, Any]:
        """The fact as released JSON."""
        out: dict[str, Any] = {"entity": self.entity, "value": self.value}
        _put(out, "fact_text", self.fact_text)
        _put(out, "conveyed_in_turn", self.conveyed_in_turn)
        _put(out, "notes", self.notes)
        return {**out, **self.extra}


@dataclass(frozen=True)
class EpisodeSession:
    """One dated conversation session of an episode."""

    session_id: str
    """Identifier unique within the episode."""
    timestamp: str
    """As released, e.g. ``"2023/03/05 (Sun) 11:24"``."""
    conversation: tuple[Turn, ...]
    """The turns in order (role ``user`` or ``assistant``)."""
    session_type: str | None = None
    """The file's ``type``: ``"filler"`` or ``"evidence"`` (None when absent)."""
    evidence_type: str | None = None
    """Which evidence session this is: ``fact_intro_1a``, ``fact_intro_1b``, ``fact_intro_1c``,
    ``part2``, ``change_delete`` in memsuite's generator (free text in other releases)."""
    gold_facts: tuple[GoldFact, ...] | None = None
    """Facts planted in this session (evidence sessions), or None."""
    extra: dict[str, Any] = field(default_factory=dict, hash=False)
    """Keys of the file not modelled above, kept verbatim."""

    @property
    def is_evidence(self) -> bool:
        """Whether the session carries facts (by ``type``, else by having gold facts)."""
        if self.session_type is not None:
            return self.session_type == "evidence"
        return bool(self.gold_facts)

    def to_session(self) -> Session:
        """The session as a memory system ingests it.

        Session type, evidence type and gold facts go into ``Session.metadata`` (``type``,
        ``evidence_type``, ``gold_facts`` as dicts) -- systems must not read them; oracle baselines
        and reports may.

        Returns:
            A :class:`memsuite.memory_systems.records.Session` with the same id, timestamp and turns,
            laid out as the MEME reference's token-bounded chunks (:attr:`Session.documents`).
        """
        metadata: dict[str, Any] = {"type": self.session_type, "evidence_type": self.evidence_type}
        if self.gold_facts is not None:
            metadata["gold_facts"] = [fact.to_dict() for fact in self.gold_facts]
        session = Session(self.session_id, self.timestamp, self.conversation, metadata)
        # Raw-text systems store the MEME reference's chunks (the paper's BM25 layout).
        return replace(session, documents=chunk_documents(session))

    def to_dict(self) -> dict[str, Any]:
        """The session as released JSON."""
        out: dict[str, Any] = {"session_id": self.session_id}
        _put(out, "type", self.session_type)
        _put(out, "evidence_type", self.evidence_type)
        out["timestamp"] = self.timestamp
        out["conversation"] = [{"role": t.role, "content": t.content} for t in self.conversation]
        if self.gold_facts is not None:
            out["gold_facts"] = [fact.to_dict() for fact in self.gold_facts]
        return {**out, **self.extra}


@dataclass(frozen=True)
class Question:
    """One question asked before or after the upstream change."""

    task: str
    """Short task code (one of :data:`TASK_TYPES`), whatever spelling the file used."""
    question: str
    """The question text handed to the answer LLM."""
    gold: str
    """The file's ``expected_answer`` or ``gold_answer`` (see the module docstring for semantics)."""
    entities: tuple[str, ...] = ()
    """The file's ``entity``: ids of the target entities."""
    entity_values: Any = field(default=None, hash=False)
    """The file's ``entity_values`` as given (memsuite writes a list of strings); None when absent."""
    hop: int | None = None
    """The file's ``hop`` (Cas/Abs dependency distance from the root); see :attr:`resolved_hop`."""
    task_label: str | None = None
    """The task name exactly as the file spelt it, when it differs from :attr:`task`."""
    gold_key: str = "expected_answer"
    """Which key held the gold answer (``expected_answer`` or ``gold_answer``); kept for round trips."""
    extra: dict[str, Any] = field(default_factory=dict, hash=False)
    """Keys of the file not modelled above, kept verbatim."""

    @property
    def resolved_hop(self) -> int | None:
        """The hop: the ``hop`` key, else the ``(N-hop)`` of a long-form label, else None."""
        if self.hop is not None:
            return self.hop
        return parse_task_type(self.task_label)[1] if self.task_label else None

    @property
    def values(self) -> tuple[str, ...]:
        """``entity_values`` flattened to strings in order (lists and dict values are walked)."""
        return tuple(_flatten(self.entity_values))

    @property
    def old_value(self) -> str | None:
        """For Cas / Abs / Del: the value before the change (or the deleted value), else None.

        The first of :attr:`values` (memsuite's convention); for Abs without values, parsed from the
        gold ``... previously '<old>' ...``.
        """
        if self.task not in ("Cas", "Abs", "Del"):
            return None
        if self.values:
            return self.values[0]
        match = re.search(r"previously '(.*)', but ", self.gold) if self.task == "Abs" else None
        return match[1] if match else None

    def to_dict(self) -> dict[str, Any]:
        """The question as released JSON."""
        out: dict[str, Any] = {"task_type": self.task_label or self.task}
        if self.entities:
            out["entity"] = list(self.entities)
        _put(out, "entity_values", self.entity_values)
        out["question"] = self.question
        out[self.gold_key] = self.gold
        _put(out, "hop", self.hop)
        return {**out, **self.extra}


@dataclass(frozen=True)
class QuestionSet:
    """The questions of one phase and where in the session stream they are asked."""

    phase: str
    """``"before"`` or ``"after"`` the change (from where the set sits in the episode, not a key)."""
    position_after_session: int
    """Index of the last session ingested before these questions are asked."""
    questions: tuple[Question, ...]
    """The questions, in file order."""
    timestamp: str | None = None
    """When the questions are asked, in the sessions' timestamp format."""
    extra: dict[str, Any] = field(default_factory=dict, hash=False)
    """Keys of the file not modelled above, kept verbatim."""

    def to_dict(self) -> dict[str, Any]:
        """The question set as released JSON."""
        out: dict[str, Any] = {}
        _put(out, "timestamp", self.timestamp)
        out["position_after_session"] = self.position_after_session
        out["questions"] = [q.to_dict() for q in self.questions]
        return {**out, **self.extra}


@dataclass(frozen=True)
class Task:
    """Episode metadata: one task instance, the recipe its question was made from."""

    task: str
    """Short task code (one of :data:`TASK_TYPES`)."""
    target_entities: tuple[str, ...] = ()
    """Ids of the entities the task asks about."""
    entity_values: Any = field(default=None, hash=False)
    """The file's ``entity_values`` as given (memsuite: as for the after-question)."""
    question_template: str | None = None
    """The question with ``{placeholders}`` as the generator phrased it."""
    gold_answer: str | None = None
    """The after-phase gold answer."""
    notes: str | None = None
    """Free text: role of the entities, kind of verbatim value, ..."""
    hop: int | None = None
    """Cas/Abs: dependency distance from the changed root."""
    cascade_source: str | None = None
    """Cas/Abs: id of the entity whose change this one depends on."""
    task_label: str | None = None
    """The task name exactly as the file spelt it, when it differs from :attr:`task`."""
    extra: dict[str, Any] = field(default_factory=dict, hash=False)
    """Keys of the file not modelled above, kept verbatim."""

    def to_dict(self) -> dict[str, Any]:
        """The task as released JSON."""
        out: dict[str, Any] = {"type": self.task_label or self.task}
        if self.target_entities:
            out["target_entities"] = list(self.target_entities)
        _put(out, "entity_values", self.entity_values)
        _put(out, "question_template", self.question_template)
        _put(out, "gold_answer", self.gold_answer)
        _put(out, "notes", self.notes)
        _put(out, "hop", self.hop)
        _put(out, "cascade_source", self.cascade_source)
        return {**out, **self.extra}


@dataclass(frozen=True)
class DependencyEdge:
    """Episode metadata: a dependency the episode uses -- ``target`` depends on ``source``."""

    source: str
    """Id of the upstream entity (the one that changes)."""
    target: str
    """Id of the dependent entity."""
    hop: int | None = None
    """Distance of ``target`` from the episode's root (1 or 2)."""
    pattern: str | None = None
    """Kind of dependency in the domain DAG (tech_compatibility, derived_config, ...)."""
    extra: dict[str, Any] = field(default_factory=dict, hash=False)
    """Keys of the file not modelled above, kept verbatim."""

    def to_dict(self) -> dict[str, Any]:
        """The edge as released JSON."""
        out: dict[str, Any] = {"source": self.source, "target": self.target}
        _put(out, "hop", self.hop)
        _put(out, "pattern", self.pattern)
        return {**out, **self.extra}


@dataclass(frozen=True)
class Episode:
    """One MEME episode: sessions, the questions before and after the change, and metadata."""

    episode_id: str
    """E.g. ``pl_001`` (personal_life) or ``sw_001`` (software_project)."""
    domain: str
    """``personal_life`` or ``software_project`` (other strings are accepted)."""
    sessions: tuple[EpisodeSession, ...]
    """All sessions in ingestion order."""
    before_questions: QuestionSet
    """Asked after session ``before_questions.position_after_session`` (before the change)."""
    after_questions: QuestionSet
    """Asked after session ``after_questions.position_after_session`` (after change and deletion)."""
    root: str | None = None
    """Id of the entity whose change cascades."""
    root_change: dict[str, Any] | None = field(default=None, hash=False)
    """``{"before": old value, "after": new value}`` of the root."""
    chain_entities: tuple[str, ...] | None = None
    """The root and its dependents used by Cas/Abs tasks."""
    filler_entities: tuple[str, ...] | None = None
    """Entities outside the dependency chain (ER, Agg, Tr, Del targets)."""
    entities: dict[str, dict[str, Any]] | None = field(default=None, hash=False)
    """Entity id -> ``{before, after, task, ...}`` (free-form per entity)."""
    has_2hop: bool | None = None
    """Whether the episode has 2-hop Cas/Abs tasks."""
    dependency_edges_used: tuple[DependencyEdge, ...] | None = None
    """Dependencies stated in the episode."""
    tasks: tuple[Task, ...] | None = None
    """Task recipes (metadata; the questions are what the protocol asks)."""
    evidence_session_indices: tuple[int, ...] | None = None
    """Indices into :attr:`sessions` of the evidence sessions."""
    extra: dict[str, Any] = field(default_factory=dict, hash=False)
    """Other top-level keys (token and session counts, generator provenance), kept verbatim."""

    # -- protocol helpers ------------------------------------------------------------------------

    def question_set(self, phase: str) -> QuestionSet:
        """The before- or after-question set.

        Args:
            phase: ``"before"`` or ``"after"``.

        Returns:
            The question set of that phase.

        Raises:
            ValueError: Unknown phase.
        """
        if phase == "before":
            return self.before_questions
        if phase == "after":
            return self.after_questions
        raise ValueError(f"unknown phase {phase!r}; expected one of {PHASES}")

    def phase_sessions(self, phase: str) -> tuple[EpisodeSession, ...]:
        """Sessions to ingest before asking ``phase``'s questions, beyond those already ingested.

        ``before``: sessions ``0..before.position_after_session``; ``after``: the rest up to
        ``after.position_after_session`` (MEME paper, arXiv 2605.12477).

        Args:
            phase: ``"before"`` or ``"after"``.

        Returns:
            The sessions in order.
        """
        cut = self.before_questions.position_after_session + 1
        if phase == "before":
            return self.sessions[:cut]
        if phase == "after":
            return self.sessions[cut : self.after_questions.position_after_session + 1]
        raise ValueError(f"unknown phase {phase!r}; expected one of {PHASES}")

    def iter_questions(self) -> Iterator[tuple[str, str, Question]]:
        """Every question with a stable id, before-questions first.

        Yields:
            ``(question_id, phase, question)``; the id is ``"<phase>-<index:02d>-<task>"``, unique
            within the episode.
        """
        for phase in PHASES:
            for i, question in enumerate(self.question_set(phase).questions):
                yield f"{phase}-{i:02d}-{question.task}", phase, question

    def to_sessions(self) -> tuple[Session, ...]:
        """All sessions as memory-system sessions (see :meth:`EpisodeSession.to_session`)."""
        return tuple(s.to_session() for s in self.sessions)

    # -- JSON edge -------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The episode in the released JSON layout (the generator writes with this).

        Returns:
            A JSON-serialisable dict; absent optional fields stay absent.
        """
        out: dict[str, Any] = {"episode_id": self.episode_id, "domain": self.domain}
        _put(out, "root", self.root)
        _put(out, "root_change", self.root_change)
        _put(out, "chain_entities", _list_or_none(self.chain_entities))
        _put(out, "filler_entities", _list_or_none(self.filler_entities))
        _put(out, "entities", self.entities)
        _put(out, "has_2hop", self.has_2hop)
        if self.dependency_edges_used is not None:
            out["dependency_edges_used"] = [e.to_dict() for e in self.dependency_edges_used]
        if self.tasks is not None:
            out["tasks"] = [t.to_dict() for t in self.tasks]
        out.update(self.extra)
        _put(out, "evidence_session_indices", _list_or_none(self.evidence_session_indices))
        out["sessions"] = [s.to_dict() for s in self.sessions]
        out["before_questions"] = self.before_questions.to_dict()
        out["after_questions"] = self.after_questions.to_dict()
        return out


# ----------------------------------------------------------------------------------------------------
# Serialisation helpers (parsing lives in eval/benchmarks/meme/parsing.py).


def _put(out: dict[str, Any], key: str, value: Any) -> None:
    if value is not None:
        out[key] = value


def _list_or_none(values: tuple | None) -> list | None:
    return None if values is None else list(values)


def _flatten(value: Any) -> Iterator[str]:
    if value is None:
        return
    if isinstance(value, Mapping):
        for item in value.values():
            yield from _flatten(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _flatten(item)
    else:
        yield str(value)
