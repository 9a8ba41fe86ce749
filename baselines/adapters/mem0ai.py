"""mem0ai adapter: the mem0 library behind the memsuite contract (docs/systems.md).

mem0ai is pinned (``TESTED_VERSION``; the ``adapters`` extra installs it) and :meth:`Mem0Memory.params`
records the installed version, because mem0 changed its algorithm across majors: 2.x extracts
memories with one add-only LLM call (no UPDATE/DELETE decisions, only exact-hash dedupe), unlike the
version-1 algorithm that MEME's Mem0 row describes (that one is ``llm_extraction``).

Local, offline configuration (``Mem0Memory.mem0_config``): faiss vector store with
``embedding_model_dims`` equal to the embedder's, huggingface embedder on the offline MiniLM folder
(``HF_HUB_OFFLINE=1``), OpenAI-compatible LLM at the configured endpoint, ``MEM0_TELEMETRY=False``,
and the history database in the adapter's state folder (the run's work dir when given). Three parts
are then swapped for memsuite ones (see ``_mem0_parts``): the faiss store (mem0's filters after a
``2 * top_k`` fetch, so a scoped user gets too few results), the embedder (the run's shared one) and
the LLM client (the run's client: accounted, cached, failures counted).

Verbs:

- a namespace is mem0's ``user_id`` (inside ``filters`` on 2.x), escaped by ``scope_id`` because
  mem0 refuses whitespace in ids;
- ``store`` adds verbatim (``infer=False``, no LLM), ``search`` is mem0's ``Memory.search``
  (``mem0/memory/main.py``, mem0ai 2.2.1, through ``Memory._search_vector_store`` and
  ``score_and_rank`` in ``mem0/utils/scoring.py``). In this install it ranks by cosine alone, gated by
  ``threshold``: the faiss store (``_mem0_parts.ScopedFaissStore``, like mem0's own) does not
  implement ``keyword_search`` (so no BM25 half) and the
  entity boost needs spaCy, which is not installed. ``update`` / ``delete`` check that the id
  belongs to the namespace (mem0's own calls take no scope) and keep mem0's history rows;
- ``ingest_session`` is mem0's own extraction (``Memory.add`` with ``infer=True``, which makes one
  call in ``Memory._add_to_vector_store``) over the session's turns, with the
  session timestamp as a leading system line (mem0's ``timestamp`` argument is platform-only). A
  failed call or an unusable reply is counted in ``IngestReport.failures``.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memsuite.baselines.adapters._common import (
    ClientAccount,
    LibraryLLMError,
    StateFolder,
    adapter_usage,
    installed_version,
    require_library,
    scope_id,
)
from memsuite.memory_systems.base import MemorySystem
from memsuite.memory_systems.embedder import Embedder
from memsuite.memory_systems.errors import ConfigError, InvalidInputError, UnknownMemoryError
from memsuite.memory_systems.llm.protocol import EndpointClient
from memsuite.memory_systems.records import Hit, IngestReport, MemoryRecord, Session, Usage
from memsuite.memory_systems.registry import accepted_resources, register
from memsuite.memory_systems.store import (
    check_k,
    check_memory_id,
    check_namespace,
    check_session,
    check_text,
    check_texts,
)

logger = logging.getLogger(__name__)

#: The mem0ai version this adapter was written and tested against (pinned in the ``adapters`` extra).
TESTED_VERSION = "2.2.1"
_VECTORS = "vectors"
_ENTITIES = "entities"
_HISTORY = "history.sqlite"


def _import_mem0(home: Path | None) -> Any:
    """Import mem0 (once per process) with telemetry off and its home folder out of ``~/.mem0``.

    mem0 reads ``MEM0_TELEMETRY`` and ``MEM0_DIR`` when it is imported and writes an anonymous-id
    file into ``MEM0_DIR`` then, so both are set before the first import: ``MEM0_DIR`` keeps a value
    the user set, else it is the first adapter's work dir (or a temporary folder).

    Returns:
        The ``_mem0_parts`` module.

    Raises:
        MissingDependencyError: mem0ai is not installed (names the ``adapters`` extra).
        ConfigError: mem0 was imported earlier with telemetry on.
    """
    if "mem0" not in sys.modules:
        os.environ["MEM0_TELEMETRY"] = "False"
        if "MEM0_DIR" not in os.environ:
            os.environ["MEM0_DIR"] = str(home) if home else tempfile.mkdtemp(prefix="memsuite-mem0-home-")
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
    require_library("mem0", purpose="the mem0ai adapter")
    from mem0.memory import telemetry

    if telemetry.MEM0_TELEMETRY:
        raise ConfigError(
            "mem0 was imported with telemetry on before the mem0ai adapter could turn it off; "
            "set MEM0_TELEMETRY=False in the environment"
        )
    from memsuite.baselines.adapters import _mem0_parts

    return _mem0_parts


def _mem0_messages(session: Session) -> list[dict[str, str]]:
    """A session as mem0 messages: a dated system line, then user/assistant turns (others named)."""
    messages = [{"role": "system", "content": f"Session date: {session.timestamp}"}]
    for turn in session.turns:
        if not turn.content.strip():
            continue
        message = {"role": "user" if turn.role == "user" else "assistant", "content": turn.content}
        if turn.role not in ("user", "assistant"):
            message["name"] = turn.role  # mem0 records it as actor_id
        messages.append(message)
    return messages


@register("mem0ai")
class Mem0Memory(MemorySystem):
    """mem0ai (pinned) over a local faiss store, the shared embedder and the run's LLM client.

    Args:
        embedder: The shared embedder; default the offline all-MiniLM-L6-v2.
        llm: The LLM client for ``ingest_session`` (mem0's extraction); None allows the four verbs
            only.
        workdir: Folder for mem0's history database (the run's work dir); default a temporary
            folder removed with the adapter.
        top_k: Default number of hits of :meth:`retrieve`.
        threshold: mem0's minimum semantic score for a hit (its default 0.1).
        max_tokens: Completion budget of mem0's extraction call (mem0's default 2000).

    Raises:
        MissingDependencyError: mem0ai is not installed.
    """

    name = "mem0ai"

    def __init__(
        self,
        *,
        embedder: Embedder | None = None,
        llm: EndpointClient | None = None,
        workdir: str | Path | None = None,
        top_k: int = 5,
        threshold: float = 0.1,
        max_tokens: int = 2000,
    ) -> None:
        super().__init__(top_k=top_k)
        if isinstance(threshold, bool) or not isinstance(threshold, int | float) or not 0 <= threshold <= 1:
            raise InvalidInputError(f"mem0ai threshold must be a number in [0, 1], got {threshold!r}")
        self.threshold = float(threshold)
        self.max_tokens = check_k(max_tokens)
        self.embedder = (embedder or Embedder()).account()  # its own view: exact usage
        self._state = StateFolder(workdir, prefix="memsuite-mem0-")
        parts = _import_mem0(self._state.path / "mem0_home" if workdir is not None else None)
        self._account = ClientAccount(llm, self.name)

        from mem0 import Memory

        self._memory = Memory.from_config(self.mem0_config)
        self._store = parts.ScopedFaissStore(self.embedder.dim, "memsuite")
        self._memory.vector_store = self._store
        # mem0 creates its entity-link store lazily (only when spaCy finds entities); giving it one
        # of ours keeps those links namespaced, deletable and saved with the rest.
        self._entities = parts.ScopedFaissStore(self.embedder.dim, "memsuite_entities")
        self._memory._entity_store = self._entities
        self._embedding = parts.SharedEmbedding(self.embedder)
        self._memory.embedding_model = self._embedding
        self._memory.llm = parts.ClientLLM(self._account, self.max_tokens)

    @property
    def mem0_config(self) -> dict[str, Any]:
        """The mem0 config this adapter builds ``Memory`` from (no API key in it)."""
        endpoint = self._account.identity()
        return {
            "vector_store": {
                "provider": "faiss",
                "config": {
                    "collection_name": "memsuite",
                    "path": str(self._state.path / "faiss"),
                    "distance_strategy": "cosine",
                    "embedding_model_dims": self.embedder.dim,
                },
            },
            "embedder": {
                "provider": "huggingface",
                "config": {
                    "model": str(self.embedder.model_path or _default_model_path()),
                    "embedding_dims": self.embedder.dim,
                    "model_kwargs": {"device": "cpu"},
                },
            },
            "llm": {
                "provider": "openai",
                "config": {
                    "model": endpoint.get("model") or "none",
                    # Never called: the adapter replaces the client (see _mem0_parts.ClientLLM).
                    "openai_base_url": endpoint.get("base_url") or "http://127.0.0.1:9/v1",
                    "api_key": "not-used",
                    "temperature": 0.0,
                    "max_tokens": self.max_tokens,
                },
            },
            "history_db_path": str(self._state.path / _HISTORY),
        }

    def params(self) -> dict[str, Any]:
        return {
            "top_k": self.top_k,
            "threshold": self.threshold,
            "max_tokens": self.max_tokens,
            "embedder": self.embedder.model_name,
            "mem0ai_version": installed_version("mem0ai"),
            "mem0ai_tested_version": TESTED_VERSION,
            "faiss_version": installed_version("faiss-cpu"),
            "ingest_session": "mem0 2.x add-only LLM extraction (infer=True)",
            "store": "verbatim (infer=False)",
            "llm": self._account.identity(),
        }

    def usage(self) -> Usage:
        return adapter_usage(self._account.usage(), self.embedder.usage, self._usage.wall_s)

    def close(self) -> None:
        """Close mem0's history database and remove a temporary state folder."""
        self._memory.close()
        self._state.cleanup()

    # -- helpers ---------------------------------------------------------------------------------

    def _owned(self, memory_id: object, namespace: str) -> str:
        """Return ``memory_id`` if it names a memory of ``namespace``, else raise."""
        check_memory_id(memory_id)
        scope = scope_id(check_namespace(namespace))
        record = self._store.get(memory_id)
        if record is None or record.payload.get("user_id") != scope:
            raise UnknownMemoryError(f"unknown memory id {memory_id!r} in namespace {namespace!r}")
        return memory_id  # type: ignore[return-value]

    # -- the four verbs --------------------------------------------------------------------------

    def store(
        self,
        items: Sequence[str],
        *,
        namespace: str = "default",
        metadata: Sequence[dict[str, Any]] | None = None,
    ) -> list[str]:
        texts = check_texts(items)
        scope = scope_id(check_namespace(namespace))
        if metadata is not None and len(metadata) != len(texts):
            raise InvalidInputError(f"metadata has {len(metadata)} entries for {len(texts)} texts")
        ids: list[str] = []
        with self.timed("ingest"), self._embedding.primed(texts):
            if metadata is None:
                messages = [{"role": "user", "content": text} for text in texts]
                result = self._memory.add(messages, user_id=scope, infer=False)
                ids = [row["id"] for row in result["results"]]
            else:
                for text, meta in zip(texts, metadata, strict=True):
                    result = self._memory.add(text, user_id=scope, infer=False, metadata=dict(meta))
                    ids.append(result["results"][0]["id"])
        return ids

    def _search(self, query: str, *, k: int, namespace: str) -> list[Hit]:
        scope = scope_id(namespace)
        if self._store.count(scope) == 0:
            return []
        found = self._memory.search(query, top_k=k, filters={"user_id": scope}, threshold=self.threshold)
        return [
            Hit(row["id"], row["memory"], float(row["score"]), dict(row.get("metadata") or {}))
            for row in found["results"]
        ]

    def update(self, memory_id: str, text: str, *, namespace: str = "default") -> None:
        self._owned(memory_id, namespace)
        check_text(text)
        self._memory.update(memory_id, text=text)

    def delete(self, memory_id: str, *, namespace: str = "default") -> None:
        self._owned(memory_id, namespace)
        self._memory.delete(memory_id)

    # -- lifecycle -------------------------------------------------------------------------------

    def records(self, *, namespace: str = "default") -> list[MemoryRecord]:
        scope = scope_id(check_namespace(namespace))
        return [
            MemoryRecord(vid, payload["data"], namespace, _user_metadata(payload))
            for vid, payload in self._store.scope_payloads(scope)
        ]

    def history(self, memory_id: str) -> list[dict[str, Any]]:
        """mem0's change history of a memory (ADD / UPDATE / DELETE rows with old and new text)."""
        return self._memory.history(check_memory_id(memory_id))

    def ingest_session(self, session: Session, *, namespace: str = "default") -> IngestReport:
        """Run mem0's own extraction (``infer=True``) over the session.

        Raises:
            InvalidInputError: ``session`` is not a Session, or a bad namespace.
            ConfigError: The adapter has no LLM.
        """
        check_session(session)
        scope = scope_id(check_namespace(namespace))
        self._account.require(self.name, "ingest_session")
        report = IngestReport(session.session_id)
        started = time.perf_counter()
        messages = _mem0_messages(session)
        with self.timed("ingest"):
            if len(messages) > 1:
                meta = {"session_id": session.session_id, "session_time": session.timestamp}
                try:
                    result = self._memory.add(messages, user_id=scope, infer=True, metadata=meta)
                    report.added = len(result["results"])
                except Exception as exc:  # mem0 wraps our LibraryLLMError in its own LLMError
                    if not _is_llm_failure(exc):
                        raise
                    logger.info(
                        "%s: extraction failed for session %s: %s", self.name, session.session_id, exc
                    )
                    report.failures += 1
        report.wall_s = time.perf_counter() - started
        return report

    def reset(self, *, namespace: str | None = None) -> None:
        if namespace is None:
            self._memory.reset()
            self._memory._entity_store = self._entities  # mem0's reset drops the lazy entity store
            return
        scope = scope_id(check_namespace(namespace))
        for vid, _ in self._store.scope_payloads(scope):
            self._memory.delete(vid)
        # mem0 feeds the last 10 raw messages of a scope into the next extraction prompt: forget them.
        db = self._memory.db
        with db._lock, db.connection:
            db.connection.execute("DELETE FROM messages WHERE session_scope = ?", (f"user_id={scope}",))

    # -- persistence -----------------------------------------------------------------------------

    def _save_state(self, folder: Path) -> None:
        self._store.dump(folder, _VECTORS)
        self._entities.dump(folder, _ENTITIES)
        # SQLite's online backup: a consistent copy of the open history database.
        target = sqlite3.connect(folder / _HISTORY)
        try:
            with self._memory.db._lock:
                self._memory.db.connection.backup(target)
        finally:
            target.close()

    @classmethod
    def _load_state(cls, folder: Path, params: dict[str, Any], **kwargs: Any) -> Mem0Memory:
        settings = {key: params[key] for key in ("top_k", "threshold", "max_tokens")}
        system = cls(**{**settings, **accepted_resources(cls, kwargs)})
        if system.embedder.model_name != params["embedder"]:
            raise InvalidInputError(
                f"{folder} was built with embedder {params['embedder']!r}, not {system.embedder.model_name!r}"
            )
        system._store.load(folder, _VECTORS)
        system._entities.load(folder, _ENTITIES)
        source = sqlite3.connect(folder / _HISTORY)
        try:
            with system._memory.db._lock:
                source.backup(system._memory.db.connection)
        finally:
            source.close()
        return system


#: Payload keys mem0 writes itself; the rest is the caller's metadata (mem0 stores it flat).
_MEM0_KEYS = frozenset(
    {"data", "hash", "created_at", "updated_at", "id", "text_lemmatized", "attributed_to"}
    | {"user_id", "agent_id", "run_id", "actor_id", "role", "expiration_date"}
)


def _user_metadata(payload: dict[str, Any]) -> dict[str, Any]:
    """The metadata a memory was stored with, as mem0's search reports it."""
    return {key: value for key, value in payload.items() if key not in _MEM0_KEYS}


def _is_llm_failure(exc: BaseException) -> bool:
    """True when ``exc`` is (or wraps) a counted LLM failure rather than a bug."""
    from mem0.exceptions import LLMError

    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, LibraryLLMError | LLMError):
            return True
        seen = seen.__cause__
    return False


def _default_model_path() -> Path:
    from memsuite.memory_systems.embedder import default_model_path

    return default_model_path()
