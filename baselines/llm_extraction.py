"""LLM-extraction memory: mem0's original (v1) algorithm, natively (docs/systems.md).

Per session (in chunks that fit the internal LLM's window):

1. One call extracts short facts (``{"facts": [...]}``).
2. Each fact is embedded and the 5 most similar current memories are fetched (faiss, exact cosine).
3. A second call sees those memories under small integer ids (``"0"``, ``"1"``, ...; mem0 remaps its
   UUIDs the same way so the model cannot garble them) and the new facts, and decides one event per
   item: ADD a new memory, UPDATE a memory's text, DELETE a memory, or NONE.
4. Every change is written to a history table in SQLite (old text, new text, event, time), which
   keeps what a memory said before an update or a delete. Retrieval is vector search over the
   current memories only.

mem0ai >= 2.0 no longer does steps 2-3 (add-only extraction); this module keeps the version MEME
evaluated. When a session's facts and their neighbours do not fit ``input_tokens``, the decision call
is split into several, each seeing the memories as the previous one left them.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from memsuite.baselines._llm_paradigm import LLMParadigm
from memsuite.baselines._llm_support import (
    ask_structured,
    clip_tokens,
    function_tool,
    session_chunks,
)
from memsuite.baselines.gold_facts import oracle_facts, worded
from memsuite.memory_systems.embedder import Embedder
from memsuite.memory_systems.errors import InvalidInputError, UnknownMemoryError
from memsuite.memory_systems.llm.protocol import ChatClient
from memsuite.memory_systems.records import Hit, IngestReport, MemoryRecord, Session
from memsuite.memory_systems.registry import register
from memsuite.memory_systems.store import (
    RecordStore,
    check_k,
    check_namespace,
    check_text,
    check_texts,
)
from memsuite.memory_systems.tokens import count_tokens
from memsuite.memory_systems.vector_index import VectorIndex, load_indexes, save_indexes

logger = logging.getLogger(__name__)

#: The decisions the second call may take per item (mem0 v1).
EVENTS = ("ADD", "UPDATE", "DELETE", "NONE")

EXTRACT_PROMPT = """\
You pick out facts worth remembering from a conversation between a user and an assistant.
Write each fact as one short, self-contained sentence: who or what it is about, and the exact \
names, numbers, versions, dates and values as stated. Cover the user's life, work, projects, \
people, things, preferences, plans and decisions, including changes ("X is now Y") and requests \
to forget something. Turn relative dates into dates using the session date. Skip greetings and \
chit-chat.
Reply with JSON only: {"facts": ["...", "..."]}, or {"facts": []} when there is nothing to keep."""

UPDATE_PROMPT = """\
You keep a memory store up to date. You get existing memories (each with an id) and new facts. \
Decide for every new fact, and for any memory it affects, one event:
- ADD: the fact is new; give its text (no id needed).
- UPDATE: the fact changes or adds detail to a memory; give that memory's id, the new full text, \
and old_memory.
- DELETE: the fact contradicts a memory or asks to forget it; give that memory's id.
- NONE: the fact is already stored; give the memory's id.
Memories you do not mention stay as they are. Use only the ids shown.
Reply with JSON only: {"memory": [{"id": "0", "text": "...", "event": "UPDATE", "old_memory": "..."}]}"""

#: The calls as forced tool calls (``protocol="tools"``): endpoints that constrain a forced call's
#: arguments to its schema (llama.cpp does, by grammar) then always return the right structure.
EXTRACT_TOOL = function_tool(
    "record_facts",
    "Record the facts worth remembering",
    {"facts": {"type": "array", "items": {"type": "string"}}},
)
DECIDE_TOOL = function_tool(
    "decide_events",
    "Decide one event per new fact or affected memory",
    {
        "memory": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "string"},
                    "text": {"type": "string"},
                    "event": {"type": "string", "enum": list(EVENTS)},
                    "old_memory": {"type": "string"},
                },
                "required": ["event"],
            },
        }
    },
)

#: Where the decision prompt's two lists start (the fake LLM in tests finds them by these markers).
MEMORIES_HEADER = "Existing memories (JSON):"
FACTS_HEADER = "New facts (JSON):"
#: Longest memory text shown to the decision call, in cl100k tokens.
MEMORY_PREVIEW_TOKENS = 80


@dataclass(frozen=True)
class HistoryEntry:
    """One change of one memory, as kept in the history table."""

    memory_id: str
    """The memory changed."""
    event: str
    """ADD, UPDATE or DELETE."""
    old_text: str | None
    """Text before the change (None for ADD)."""
    new_text: str | None
    """Text after the change (None for DELETE)."""
    created_at: str
    """When the change was made: UTC wall clock, ISO 8601."""
    session_id: str | None = None
    """The session whose ingestion made the change; None for a direct store/update/delete."""
    session_time: str | None = None
    """That session's timestamp as the benchmark wrote it."""


class _History:
    """The history table in an in-memory SQLite database; :meth:`save` copies it to a file."""

    _COLUMNS = "memory_id, event, old_text, new_text, created_at, session_id, session_time"

    def __init__(self, conn: sqlite3.Connection | None = None) -> None:
        # Autocommit: a backup (save) waits forever on a connection holding an open transaction.
        self.conn = conn or sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        self.conn.execute(
            "CREATE TABLE IF NOT EXISTS history (seq INTEGER PRIMARY KEY AUTOINCREMENT,"
            " namespace TEXT NOT NULL, memory_id TEXT NOT NULL, event TEXT NOT NULL, old_text TEXT,"
            " new_text TEXT, created_at TEXT NOT NULL, session_id TEXT, session_time TEXT)"
        )

    def add(
        self,
        namespace: str,
        memory_id: str,
        event: str,
        old_text: str | None,
        new_text: str | None,
        session: Session | None = None,
    ) -> None:
        self.conn.execute(
            f"INSERT INTO history (namespace, {self._COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                namespace,
                memory_id,
                event,
                old_text,
                new_text,
                datetime.now(UTC).isoformat(timespec="microseconds"),
                session.session_id if session else None,
                session.timestamp if session else None,
            ),
        )

    def entries(self, memory_id: str, namespace: str) -> list[HistoryEntry]:
        rows = self.conn.execute(
            f"SELECT {self._COLUMNS} FROM history WHERE namespace = ? AND memory_id = ? ORDER BY seq",
            (namespace, memory_id),
        )
        return [HistoryEntry(*row) for row in rows]

    def clear(self, namespace: str | None) -> None:
        if namespace is None:
            self.conn.execute("DELETE FROM history")
        else:
            self.conn.execute("DELETE FROM history WHERE namespace = ?", (namespace,))

    def save(self, path: Path) -> None:
        target = sqlite3.connect(path)
        try:
            self.conn.backup(target)
        finally:
            target.close()

    @classmethod
    def load(cls, path: Path) -> _History:
        source = sqlite3.connect(path)
        conn = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        try:
            source.backup(conn)
        finally:
            source.close()
        return cls(conn)


@register("llm_extraction")
class LLMExtractionMemory(LLMParadigm):
    """mem0 v1: LLM fact extraction, an ADD/UPDATE/DELETE/NONE decision per fact, vector retrieval.

    The four verbs work without the LLM (``store`` adds memories as given); ``ingest_session`` needs it.

    Args:
        llm: The internal LLM client (``chat_json``/``usage``); None allows everything but ingestion.
        embedder: The embedder; default the offline all-MiniLM-L6-v2.
        top_k: Default number of hits of :meth:`retrieve`.
        similar_k: Existing memories fetched per new fact for the decision call (mem0: 5).
        input_tokens: Budget of the session text per extraction call and of the lists per decision
            call, in cl100k tokens (keep prompt plus reply inside the model's window).
        reply_tokens: Completion budget per call.
        protocol: "json" (JSON replies) or "tools" (forced tool calls, whose arguments endpoints such
            as llama.cpp constrain to the schema).
        oracle: ``memory`` (or True): no LLM call at ingestion. Each gold fact of the session
            (``Session.metadata["gold_facts"]``, see baselines/gold_facts.py) becomes the decision a
            perfect mem0 v1 would take: a value ADDs a memory, or UPDATEs the entity's value memory
            when there is one; a rule or dependency is ADDed; a deletion request DELETEs every memory
            of the entity. History, vector index and retrieval are the native ones. ``facts``: the
            gold facts, worded apart from the question templates (``gold_facts.worded``), replace the
            extraction call only; the decision call (ADD/UPDATE/DELETE/NONE) runs with the LLM, so
            maintenance is measured. False / "off": native.
    """

    name = "llm_extraction"

    def __init__(
        self,
        *,
        llm: ChatClient | None = None,
        embedder: Embedder | None = None,
        top_k: int = 5,
        similar_k: int = 5,
        input_tokens: int = 900,
        reply_tokens: int = 400,
        protocol: str = "json",
        oracle: bool | str = False,
    ) -> None:
        super().__init__(
            llm=llm,
            top_k=top_k,
            protocol=protocol,
            input_tokens=input_tokens,
            reply_tokens=reply_tokens,
            oracle=oracle,
        )
        self.embedder = (embedder or Embedder()).account()  # its own view: exact usage
        self.similar_k = check_k(similar_k)
        self._records = RecordStore()
        self._indexes: dict[str, VectorIndex] = {}
        self._history = _History()

    def params(self) -> dict[str, Any]:
        return {
            "top_k": self.top_k,
            "similar_k": self.similar_k,
            "input_tokens": self.input_tokens,
            "reply_tokens": self.reply_tokens,
            "protocol": self.protocol,
            "oracle": self.oracle,
            "embedder": self.embedder.model_name,
        }

    def history(self, memory_id: str, *, namespace: str = "default") -> list[HistoryEntry]:
        """Every recorded change of a memory, oldest first (also for deleted memories)."""
        return self._history.entries(memory_id, check_namespace(namespace))

    # -- the four verbs --------------------------------------------------------------------------

    def store(
        self,
        items: Sequence[str],
        *,
        namespace: str = "default",
        metadata: Sequence[dict[str, Any]] | None = None,
    ) -> list[str]:
        texts = check_texts(items)  # validate before anything changes
        check_namespace(namespace)
        vectors = self.embedder.encode(texts)
        return [r.id for r in self._add(texts, vectors, namespace, metadata, None)]

    def _search(self, query: str, *, k: int, namespace: str) -> list[Hit]:
        index = self._indexes.get(namespace)
        if index is None or len(index) == 0:
            return []
        hits = []
        for memory_id, score in index.search(self.embedder.encode([query]), k):
            record = self._records.get(str(memory_id), namespace)
            hits.append(Hit(record.id, record.text, score, record.metadata))
        return hits

    def update(self, memory_id: str, text: str, *, namespace: str = "default") -> None:
        self._records.get(memory_id, namespace)
        check_text(text)
        self._replace(memory_id, text, self.embedder.encode([text]), namespace, None)

    def delete(self, memory_id: str, *, namespace: str = "default") -> None:
        self._records.get(memory_id, namespace)
        self._remove(memory_id, namespace, None)

    def records(self, *, namespace: str = "default") -> list[MemoryRecord]:
        return self._records.list(namespace)

    def reset(self, *, namespace: str | None = None) -> None:
        if namespace is None:
            self._indexes.clear()
        else:
            self._indexes.pop(check_namespace(namespace), None)
        self._records.clear(namespace)
        self._history.clear(namespace)

    # -- changes, each mirrored in the index and the history --------------------------------------

    def _add(
        self,
        texts: list[str],
        vectors: np.ndarray,
        namespace: str,
        metadata: Sequence[dict[str, Any]] | None,
        session: Session | None,
    ) -> list[MemoryRecord]:
        added = self._records.add(texts, namespace, metadata)
        index = self._indexes.get(namespace)
        if index is None:
            index = self._indexes[namespace] = VectorIndex(self.embedder.dim)
        index.add([int(r.id) for r in added], vectors)
        for record in added:
            self._history.add(namespace, record.id, "ADD", None, record.text, session)
        return added

    def _replace(
        self, memory_id: str, text: str, vector: np.ndarray, namespace: str, session: Session | None
    ) -> None:
        old = self._records.replace(memory_id, text, namespace)
        index = self._indexes[namespace]
        index.remove(int(memory_id))
        index.add([int(memory_id)], vector)
        self._history.add(namespace, memory_id, "UPDATE", old.text, text, session)

    def _remove(self, memory_id: str, namespace: str, session: Session | None) -> None:
        record = self._records.remove(memory_id, namespace)
        self._indexes[namespace].remove(int(record.id))
        self._history.add(namespace, record.id, "DELETE", record.text, None, session)

    # -- ingestion --------------------------------------------------------------------------------

    def _ingest(self, session: Session, namespace: str, report: IngestReport) -> None:
        """Extract facts from the session and apply the LLM's ADD/UPDATE/DELETE/NONE decisions."""
        if self.oracle_mode == "facts":
            self._decide_facts([worded(f) for f in oracle_facts(session)], session, namespace, report)
        else:
            for chunk in session_chunks(session, self.input_tokens):
                self._ingest_chunk(chunk, session, namespace, report)

    def _ingest_oracle(self, session: Session, namespace: str, report: IngestReport) -> None:
        """Apply the decisions the gold facts call for (see the ``oracle`` argument)."""
        facts = oracle_facts(session)
        if not facts:
            return
        texts = [f.text for f in facts]
        vectors = dict(zip(texts, self.embedder.encode(texts), strict=True))
        for fact in facts:
            mine = [r for r in self._records.list(namespace) if r.metadata.get("entity") == fact.entity]
            if fact.kind == "delete":
                for record in mine:
                    self._remove(record.id, namespace, session)
                    report.deleted += 1
                continue
            current = [r for r in mine if r.metadata.get("kind") == "value"] if fact.sets_value else []
            if current:
                self._replace(current[-1].id, fact.text, vectors[fact.text][None, :], namespace, session)
                report.updated += 1
                continue
            kind = "value" if fact.sets_value else fact.kind
            meta = [{"entity": fact.entity, "kind": kind}]
            self._add([fact.text], vectors[fact.text][None, :], namespace, meta, session)
            report.added += 1

    def _ingest_chunk(self, chunk: str, session: Session, namespace: str, report: IngestReport) -> None:
        data, error = self._ask_session(EXTRACT_TOOL, EXTRACT_PROMPT, session, chunk)
        facts = _facts(data)
        if facts is None:
            logger.info("%s: fact extraction failed (%s)", self.name, error or f"bad reply {data!r:.200}")
            report.failures += 1
            return
        self._decide_facts(facts, session, namespace, report)

    def _decide_facts(self, facts: list[str], session: Session, namespace: str, report: IngestReport) -> None:
        """The decision step on a list of extracted (or, ``oracle: facts``, gold) facts."""
        if not facts:
            return
        vectors = self.embedder.encode(facts)
        known = dict(zip(facts, vectors, strict=True))  # an ADD usually restates its fact verbatim
        # Facts are decided in groups whose prompt fits the budget; a group's neighbours are fetched
        # after the previous group's decisions were applied, so a fact never duplicates its sibling.
        group: list[str] = []
        neighbours: dict[str, str] = {}
        for fact, vector in zip(facts, vectors, strict=True):
            similar = self._similar(vector, namespace)
            merged = {**neighbours, **similar}
            if group and count_tokens(_decision_prompt(merged, [*group, fact])) > self.input_tokens:
                self._decide(group, neighbours, known, session, namespace, report)
                group, merged = [], self._similar(vector, namespace)
            group.append(fact)
            neighbours = merged
        self._decide(group, neighbours, known, session, namespace, report)

    def _similar(self, vector: np.ndarray, namespace: str) -> dict[str, str]:
        """The ``similar_k`` memories nearest to a fact: id -> text, best first."""
        index = self._indexes.get(namespace)
        if index is None or len(index) == 0:
            return {}
        found = index.search(vector[None, :], self.similar_k)
        return {str(i): self._records.get(str(i), namespace).text for i, _ in found}

    def _decide(
        self,
        facts: list[str],
        neighbours: dict[str, str],
        known: dict[str, np.ndarray],
        session: Session,
        namespace: str,
        report: IngestReport,
    ) -> None:
        real_ids = list(neighbours)  # prompt id str(n) -> real_ids[n]
        data, error = ask_structured(
            self._llm,
            DECIDE_TOOL,
            UPDATE_PROMPT,
            _decision_prompt(neighbours, facts),
            protocol=self.protocol,
            phase="ingest",
            max_tokens=self.reply_tokens,
        )
        actions = _actions(data)
        if actions is None:
            logger.info("%s: decision call failed (%s)", self.name, error or f"bad reply {data!r:.200}")
            report.failures += 1
            return
        for action in actions:
            if not self._apply(action, real_ids, known, session, namespace, report):
                logger.info("%s: unusable decision %.200r", self.name, action)
                report.failures += 1

    def _apply(
        self,
        action: Any,
        real_ids: list[str],
        known: dict[str, np.ndarray],
        session: Session,
        namespace: str,
        report: IngestReport,
    ) -> bool:
        """Apply one decision; False when it cannot be used (unknown event or id, missing text)."""
        if not isinstance(action, dict):
            return False
        event = str(action.get("event", "")).strip().upper()
        text = action.get("text")
        text = text.strip() if isinstance(text, str) else ""
        if event == "NONE":
            return True
        if event == "ADD":
            if not text:
                return False
            if any(r.text == text for r in self._records.list(namespace)):
                return True  # already stored verbatim: adding it again would only duplicate hits
            self._add([text], self._vector(text, known), namespace, None, session)
            report.added += 1
            return True
        memory_id = _real_id(action.get("id"), real_ids)
        if event not in ("UPDATE", "DELETE") or memory_id is None:
            return False
        try:
            old = self._records.get(memory_id, namespace)
        except UnknownMemoryError:  # deleted by an earlier decision of the same reply
            return False
        if event == "DELETE":
            self._remove(memory_id, namespace, session)
            report.deleted += 1
            return True
        if not text:
            return False
        if text != old.text:
            self._replace(memory_id, text, self._vector(text, known), namespace, session)
            report.updated += 1
        return True

    def _vector(self, text: str, known: dict[str, np.ndarray]) -> np.ndarray:
        """``text``'s vector, shape ``(1, dim)``: reused from ``known`` or encoded now."""
        vector = known.get(text)
        return self.embedder.encode([text]) if vector is None else vector[None, :]

    # -- persistence -------------------------------------------------------------------------------

    def _save_state(self, folder: Path) -> None:
        self._records.dump(folder / "records.jsonl")
        save_indexes(folder, self._indexes)
        self._history.save(folder / "history.sqlite")

    @classmethod
    def _load_state(cls, folder: Path, params: dict[str, Any], **kwargs: Any) -> LLMExtractionMemory:
        keys = ("top_k", "similar_k", "input_tokens", "reply_tokens", "protocol", "oracle")
        settings = {k: params[k] for k in keys if k in params}
        settings.update({k: v for k, v in kwargs.items() if k in settings})
        system = cls(llm=kwargs.get("llm"), embedder=kwargs.get("embedder"), **settings)
        if system.embedder.model_name != params["embedder"]:
            raise InvalidInputError(
                f"{folder} was built with embedder {params['embedder']!r}, not {system.embedder.model_name!r}"
            )
        system._records = RecordStore.load(folder / "records.jsonl")
        system._indexes = load_indexes(folder, system.embedder.dim)
        system._history = _History.load(folder / "history.sqlite")
        return system


def _decision_prompt(neighbours: dict[str, str], facts: list[str]) -> str:
    memories = [
        {"id": str(n), "text": clip_tokens(text, MEMORY_PREVIEW_TOKENS)}
        for n, text in enumerate(neighbours.values())
    ]
    return (
        f"{MEMORIES_HEADER}\n{json.dumps(memories, ensure_ascii=False)}\n\n"
        f"{FACTS_HEADER}\n{json.dumps(facts, ensure_ascii=False)}"
    )


def _facts(data: Any) -> list[str] | None:
    """The fact strings of an extraction reply, or None when the reply has no fact list."""
    if isinstance(data, dict):
        data = data.get("facts")
    if not isinstance(data, list):
        return None
    return [f.strip() for f in data if isinstance(f, str) and f.strip()]


def _actions(data: Any) -> list[Any] | None:
    """The decisions of a decision reply, or None when it holds no list of them."""
    if isinstance(data, dict):
        data = data.get("memory", data.get("memories"))
    return data if isinstance(data, list) else None


def _real_id(value: Any, real_ids: list[str]) -> str | None:
    """The memory behind a prompt id ("0", 0, " 1 "), or None when the model made one up."""
    text = str(value).strip() if isinstance(value, str | int) and not isinstance(value, bool) else ""
    return real_ids[int(text)] if text.isdigit() and int(text) < len(real_ids) else None
