"""Plain records that cross module boundaries. JSON conversion happens only at the edges."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

#: Phases that usage and wall time are accounted to (ARCHITECTURE.md).
PHASES = ("ingest", "retrieve", "answer", "judge")


@dataclass(frozen=True)
class Turn:
    """One utterance of a conversation."""

    role: str
    """Speaker role as the benchmark gives it ("user", "assistant", or a name)."""
    content: str
    """What was said."""
    metadata: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    """Benchmark metadata of the turn (e.g. LoCoMo's ``dia_id``)."""


@dataclass(frozen=True)
class Document:
    """One raw document of a session, as the benchmark lays the session out for storage."""

    text: str
    """The document text."""
    metadata: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    """Metadata stored with it; hits carry it (e.g. LoCoMo's ``dia_id``)."""
    turn: int | None = None
    """Index of the turn this document holds, when it holds exactly one turn; None for a document
    spanning several turns (a chunk)."""


@dataclass(frozen=True)
class Session:
    """A dated conversation session, the unit a memory system ingests."""

    session_id: str
    """Identifier unique within its episode or stream."""
    timestamp: str
    """Timestamp as the benchmark writes it, e.g. "2023/03/05 (Sun) 11:24"."""
    turns: tuple[Turn, ...]
    """The turns in order."""
    metadata: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    """Free-form benchmark metadata (session type, gold facts, ...); systems must not rely on it."""
    documents: tuple[Document, ...] | None = field(default=None, compare=False, hash=False)
    """The session laid out as raw documents by the benchmark's protocol (MEME: token-bounded chunks;
    LoCoMo: one document per turn in its RAG format). Systems that store raw text store these; None
    means the benchmark sets no layout and each system uses its own."""

    def per_turn_documents(self) -> tuple[Document, ...] | None:
        """The benchmark's documents when each holds exactly one turn; else None."""
        if self.documents and all(document.turn is not None for document in self.documents):
            return self.documents
        return None

    @classmethod
    def from_dicts(
        cls, session_id: str, timestamp: str, conversation: list[dict[str, str]], **metadata: Any
    ) -> Session:
        """Build a session from ``[{"role", "content"}, ...]`` as benchmarks store it."""
        return cls(
            session_id, timestamp, tuple(Turn(t["role"], t["content"]) for t in conversation), metadata
        )


@dataclass(frozen=True)
class MemoryRecord:
    """One stored memory as a system holds it."""

    id: str
    """Identifier, unique within the system instance."""
    text: str
    """The memory text."""
    namespace: str = "default"
    """Isolation scope (a user, an episode, a WMB category)."""
    metadata: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    """Free-form metadata supplied at store time."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MemoryRecord:
        return cls(data["id"], data["text"], data.get("namespace", "default"), data.get("metadata") or {})


@dataclass(frozen=True)
class Hit:
    """One search result, best first in a result list."""

    id: str
    """Id of the memory that matched."""
    text: str
    """Its text."""
    score: float
    """System-specific relevance score; higher is better."""
    metadata: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    """Metadata of the memory."""


@dataclass(frozen=True)
class RetrievalResult:
    """What one ``retrieve`` gives the answer step: the context and the hits behind it."""

    context: str
    """The context string handed to the answer LLM."""
    hits: tuple[Hit, ...] = ()
    """The memories the context was built from, best first; empty when the context is not made of
    stored memories (a rendered graph, a whole file)."""


@dataclass
class IngestReport:
    """What ingesting one session did."""

    session_id: str
    added: int = 0
    """Memories added."""
    updated: int = 0
    """Memories whose text was replaced."""
    deleted: int = 0
    """Memories removed."""
    failures: int = 0
    """LLM calls or parses that failed and were skipped (counted, never raised)."""
    wall_s: float = 0.0
    """Wall time of the ingestion, seconds."""


@dataclass
class Usage:
    """Resource use of a system or an LLM client, accumulated over its life."""

    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    llm_failures: int = 0
    """LLM calls whose result could not be used (after retries/repair)."""
    cache_hits: int = 0
    """LLM responses served from the on-disk cache (no call made)."""
    embedding_calls: int = 0
    """Batches sent to the embedding model (cache hits excluded)."""
    embedded_texts: int = 0
    """Texts actually encoded by the model (cache hits excluded)."""
    wall_s: dict[str, float] = field(default_factory=dict)
    """Wall time per phase (ingest, retrieve, answer, judge), seconds."""

    def __add__(self, other: Usage) -> Usage:
        wall = dict(self.wall_s)
        for phase, seconds in other.wall_s.items():
            wall[phase] = wall.get(phase, 0.0) + seconds
        return Usage(
            llm_calls=self.llm_calls + other.llm_calls,
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            llm_failures=self.llm_failures + other.llm_failures,
            cache_hits=self.cache_hits + other.cache_hits,
            embedding_calls=self.embedding_calls + other.embedding_calls,
            embedded_texts=self.embedded_texts + other.embedded_texts,
            wall_s=wall,
        )

    def __sub__(self, other: Usage) -> Usage:
        """What was used between two readings of a cumulative counter (``later - earlier``)."""
        negated = Usage(
            llm_calls=-other.llm_calls,
            prompt_tokens=-other.prompt_tokens,
            completion_tokens=-other.completion_tokens,
            llm_failures=-other.llm_failures,
            cache_hits=-other.cache_hits,
            embedding_calls=-other.embedding_calls,
            embedded_texts=-other.embedded_texts,
            wall_s={phase: -seconds for phase, seconds in other.wall_s.items()},
        )
        return self + negated

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
