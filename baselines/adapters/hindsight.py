"""Hindsight adapter: Hindsight's own server (``hindsight-api``) behind the memsuite contract.

hindsight-api-slim 1.1.0 (``TESTED_VERSION``) cannot share the project's venv (it needs
protobuf>=7.35, mem0ai needs <7), so it runs in a venv of its own that ``make hindsight`` builds
(``.venv-hindsight``, every package pinned in ``requirements/hindsight.txt``;
``MEMSUITE_HINDSIGHT_PYTHON`` names another Python). Hindsight is a server on PostgreSQL with pgvector:
the adapter starts both (``_hindsight_service.py``; PostgreSQL as the system user ``make hindsight``
creates when memsuite runs as root) and speaks Hindsight's HTTP API to it, each request with a
deadline. Its LLM and embedding calls go to a loopback endpoint: the run's LLM client and the shared
embedder (docs/libraries.md).

Verbs (one bank per namespace; a memory is one Hindsight document, its memsuite id the
``document_id``):

- ``ingest_session`` retains the session as one document (``"role: content"`` lines, the session's
  date as its timestamp) with Hindsight's default extraction (``concise``: the LLM extracts facts);
- ``store`` retains each text as its own document under the bank's strategy ``memsuite_store``
  (``retain_extraction_mode: chunks``: each chunk stored as one fact as it is, no LLM call);
- ``search`` is ``recall`` (``budget`` mid, ``max_tokens`` the run's ``context_tokens`` where set,
  else Hindsight's 4,096): the facts it returns, grouped by document in the order of each document's
  best fact, one hit per document, its text that document's recalled facts one a line (a hit is what
  Hindsight extracted, not the stored text), the first ``k`` documents;
- ``update`` retains the new text under the same ``document_id`` with ``update_mode="replace"``;
  ``delete`` is ``DELETE .../documents/{id}`` (its facts with it).

``records`` lists the retained documents (memsuite's memories: ids, texts); ``snapshot`` is what
Hindsight holds, the text of every fact it keeps for the namespace (``GET .../memories/list``), so a
stage table reads what Hindsight's extraction and retain stored, not the text it was handed.

``save`` writes each namespace's memories (id, text, metadata, how they were added); ``load`` stores
their texts again (chunks mode, no LLM), so what an LLM extracted from a session is not restored.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
import uuid
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memsuite.baselines.adapters import _hindsight_service as service
from memsuite.baselines.adapters._common import (
    ClientAccount,
    adapter_usage,
    check_context_tokens,
    scope_id,
    session_datetime,
)
from memsuite.baselines.adapters._hindsight_service import HindsightError, Server, bank_path
from memsuite.memory_systems.base import MemorySystem
from memsuite.memory_systems.embedder import Embedder
from memsuite.memory_systems.errors import InvalidInputError, MissingDependencyError, UnknownMemoryError
from memsuite.memory_systems.llm.protocol import EndpointClient
from memsuite.memory_systems.records import Hit, IngestReport, MemoryRecord, Session, Usage
from memsuite.memory_systems.registry import accepted_resources, register
from memsuite.memory_systems.store import (
    check_k,
    check_memory_id,
    check_namespace,
    check_session,
    check_texts,
)

__all__ = ["HindsightError", "HindsightMemory"]

logger = logging.getLogger(__name__)

#: The hindsight-api-slim version this adapter was written and tested against (pinned by ``make hindsight``).
TESTED_VERSION = "1.1.0"
#: The make target that builds Hindsight's venv.
MAKE_TARGET = "hindsight"
#: The system user PostgreSQL runs as when memsuite runs as root (initdb refuses root).
PG_USER = "memsuite-pg"
#: The retain strategy ``store`` uses: chunks stored as they are, no LLM call.
STORE_STRATEGY = "memsuite_store"
#: recall's own default ``max_tokens`` (``RecallRequest``), used when no context budget is set.
RECALL_MAX_TOKENS = 4096
#: Facts per page when ``snapshot`` lists a bank's facts.
LIST_PAGE = 500
_ROOT = Path(__file__).resolve().parents[2]
_SAVED = "hindsight_memories.json"


def hindsight_python() -> Path:
    """The Python of Hindsight's venv (``MEMSUITE_HINDSIGHT_PYTHON``, else ``.venv-hindsight``).

    Raises:
        MissingDependencyError: It does not exist (names the make target).
    """
    python = Path(os.environ.get("MEMSUITE_HINDSIGHT_PYTHON") or _ROOT / ".venv-hindsight" / "bin" / "python")
    if not python.exists():
        raise MissingDependencyError(
            f"the Hindsight adapter runs Hindsight in its own venv, and {python} does not exist: build it "
            f"with `make {MAKE_TARGET}` (or set MEMSUITE_HINDSIGHT_PYTHON to a Python with "
            f"hindsight-api-slim=={TESTED_VERSION})"
        )
    return python


def postgres_bin(python: Path) -> Path:
    """The PostgreSQL ``bin`` folder ``make hindsight`` unpacked beside that Python's venv.

    Raises:
        MissingDependencyError: Not unpacked.
    """
    found = sorted((python.parent.parent / "pg0" / ".pg0" / "installation").glob("*/bin/postgres"))
    if not found:
        raise MissingDependencyError(
            f"Hindsight's PostgreSQL is not unpacked under {python.parent.parent / 'pg0'}: "
            f"run `make {MAKE_TARGET}`"
        )
    return found[-1].parent


def site_packages() -> list[str]:
    """The site-packages folders of Hindsight's venv ([] when it is not built)."""
    try:
        python = hindsight_python()
    except MissingDependencyError:
        return []
    return [str(p) for p in (python.parent.parent / "lib").glob("python3*/site-packages")]


def venv_versions() -> dict[str, str]:
    """hindsight-api-slim's version in its venv and the venv's folder ({} when not built)."""
    import importlib.metadata

    found = next(
        iter(importlib.metadata.distributions(name="hindsight-api-slim", path=site_packages())), None
    )
    if found is None:
        return {}
    return {"hindsight-api-slim": found.version, "hindsight_venv": str(hindsight_python().parent.parent)}


@register("hindsight")
class HindsightMemory(MemorySystem):
    """Hindsight (hindsight-api-slim, pinned, in its own venv) as a server on an embedded PostgreSQL.

    Args:
        embedder: The shared embedder; default the offline all-MiniLM-L6-v2.
        llm: The LLM client Hindsight's extraction calls go through; None allows everything but
            ``ingest_session``.
        top_k: Default number of hits of :meth:`retrieve`.
        max_tokens: Completion budget of each Hindsight LLM call.
        call_timeout_s: Deadline of each request to Hindsight's server (a retain makes LLM calls, each
            with the client's own timeout and retries): past it the server is killed and the call
            raises :class:`SystemTimeoutError`, failing the unit by name.
        startup_timeout_s: Deadline of the server's start (PostgreSQL, the API and its migrations).
        context_tokens: A run's context budget in cl100k tokens: recall's ``max_tokens``.

    Raises:
        MissingDependencyError: Hindsight's venv or its PostgreSQL does not exist.
    """

    name = "hindsight"

    def __init__(
        self,
        *,
        embedder: Embedder | None = None,
        llm: EndpointClient | None = None,
        top_k: int = 5,
        max_tokens: int = 2000,
        call_timeout_s: float = 900.0,
        startup_timeout_s: float = 180.0,
        context_tokens: int | None = None,
    ) -> None:
        super().__init__(top_k=top_k)
        self.max_tokens = check_k(max_tokens)
        self.context_tokens = check_context_tokens(context_tokens)
        for name, value in (("call_timeout_s", call_timeout_s), ("startup_timeout_s", startup_timeout_s)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
                raise InvalidInputError(f"{name} must be positive, got {value!r}")
        self.call_timeout_s = float(call_timeout_s)
        self.startup_timeout_s = float(startup_timeout_s)
        self.embedder = (embedder or Embedder()).account()
        python = hindsight_python()
        pg_bin = postgres_bin(python)
        self._account = ClientAccount(llm, self.name)
        self._key = (str(python), self.embedder.model_name)

        def start() -> Server:
            return Server(
                python,
                pg_bin,
                PG_USER if os.geteuid() == 0 else None,
                self.embedder,
                startup_s=self.startup_timeout_s,
                llm_timeout_s=self.call_timeout_s,
            )

        self._server = service.acquire(self._key, start)
        # the server is given back when the adapter is collected, if close() was not called
        self._release = weakref.finalize(self, service.release, self._key, self._server)
        self._prefix = f"ms{uuid.uuid4().hex[:12]}"
        """This adapter's banks' prefix: a shared server holds the banks of other adapters too."""
        self._lock = threading.Lock()
        self._records: dict[str, dict[str, MemoryRecord]] = {}
        """Per scope, memory id (Hindsight's document_id) -> the record."""
        try:
            self._versions = self._server_versions()
        except BaseException:
            self.close()
            raise
        if self._versions.get("hindsight-api-slim") != TESTED_VERSION:
            self.close()
            raise MissingDependencyError(
                f"{python} has hindsight-api-slim {self._versions.get('hindsight-api-slim')}; the adapter "
                f"needs {TESTED_VERSION} (`make {MAKE_TARGET}`)"
            )

    def _server_versions(self) -> dict[str, str]:
        status, reply = self._call("GET", "/v1/version", None, verb="start")
        versions = venv_versions()
        if status == 200 and isinstance(reply, dict) and reply.get("api_version"):
            versions["hindsight-api-slim"] = str(reply["api_version"])
        return versions

    def params(self) -> dict[str, Any]:
        return {
            "top_k": self.top_k,
            "max_tokens": self.max_tokens,
            "call_timeout_s": self.call_timeout_s,
            "startup_timeout_s": self.startup_timeout_s,
            "context_tokens": self.context_tokens,
            "embedder": self.embedder.model_name,
            "hindsight_version": self._versions.get("hindsight-api-slim"),
            "hindsight_tested_version": TESTED_VERSION,
            "venv": self._versions.get("hindsight_venv"),
            "search": f"recall, budget mid, max_tokens {self.context_tokens or RECALL_MAX_TOKENS}",
            "ingest_session": "retain (the session as one document), extraction concise",
            "store": f"retain, strategy {STORE_STRATEGY} (extraction mode chunks, no LLM)",
            "reranker": "rrf",
            "llm": self._account.identity(),
        }

    def usage(self) -> Usage:
        return adapter_usage(self._account.usage(), self.embedder.usage, self._usage.wall_s)

    def close(self) -> None:
        """Delete this adapter's banks and give the server back (the last user stops it)."""
        if not self._release.alive:
            return
        if self._server.alive:
            for scope in list(self._records):
                try:
                    self._call("DELETE", bank_path(self._bank(scope)), None, verb="close")
                except Exception:
                    break
        self._records.clear()
        self._release()

    # -- helpers ---------------------------------------------------------------------------------

    def _bank(self, scope: str) -> str:
        return f"{self._prefix}-{scope}"

    def _call(self, method: str, path: str, body: dict[str, Any] | None, *, verb: str) -> tuple[int, Any]:
        with self._server.serving(self._account, self.embedder, self.max_tokens):
            return self._server.call(method, path, body, timeout_s=self.call_timeout_s, verb=verb)

    def _ok(self, method: str, path: str, body: dict[str, Any] | None, *, verb: str) -> Any:
        status, reply = self._call(method, path, body, verb=verb)
        if status >= 400:
            detail = reply.get("detail") if isinstance(reply, dict) else reply
            raise HindsightError(f"Hindsight: {method} {path} answered {status}: {str(detail)[:1000]}")
        return reply

    def _ensure_bank(self, scope: str, *, verb: str) -> str:
        bank = self._bank(scope)
        if scope not in self._records:
            self._ok("PUT", bank_path(bank), {}, verb=verb)
            updates = {"retain_strategies": {STORE_STRATEGY: {"retain_extraction_mode": "chunks"}}}
            self._ok("PATCH", bank_path(bank, "config"), {"updates": updates}, verb=verb)
            self._records[scope] = {}
        return bank

    def _retain(self, scope: str, items: list[dict[str, Any]], *, verb: str) -> None:
        bank = self._ensure_bank(scope, verb=verb)
        self._ok("POST", bank_path(bank, "memories"), {"items": items, "async": False}, verb=verb)

    def _owned(self, memory_id: object, namespace: str) -> tuple[str, MemoryRecord]:
        check_memory_id(memory_id)
        scope = scope_id(check_namespace(namespace))
        record = self._records.get(scope, {}).get(memory_id)  # type: ignore[arg-type]
        if record is None:
            raise UnknownMemoryError(f"unknown memory id {memory_id!r} in namespace {namespace!r}")
        return scope, record

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
        ids = [uuid.uuid4().hex for _ in texts]
        with self._lock, self.timed("ingest"):
            self._store(scope, namespace, ids, texts, metadata, verb="store")
        return ids

    def _store(
        self,
        scope: str,
        namespace: str,
        ids: list[str],
        texts: list[str],
        metadata: Sequence[dict[str, Any]] | None,
        *,
        verb: str,
    ) -> None:
        items = [
            {"content": text, "document_id": memory_id, "strategy": STORE_STRATEGY, "timestamp": "unset"}
            for memory_id, text in zip(ids, texts, strict=True)
        ]
        self._retain(scope, items, verb=verb)
        for i, (memory_id, text) in enumerate(zip(ids, texts, strict=True)):
            meta = dict(metadata[i]) if metadata is not None else {}
            self._records[scope][memory_id] = MemoryRecord(memory_id, text, namespace, meta)

    def _search(self, query: str, *, k: int, namespace: str) -> list[Hit]:
        scope = scope_id(namespace)
        records = self._records.get(scope)
        if not records:
            return []
        body = {"query": query, "budget": "mid", "max_tokens": self.context_tokens or RECALL_MAX_TOKENS}
        with self._lock:
            reply = self._ok("POST", bank_path(self._bank(scope), "memories", "recall"), body, verb="search")
        facts: dict[str, list[dict[str, Any]]] = {}
        for fact in reply.get("results") or []:
            if fact.get("document_id") in records:  # facts of no memory of this adapter are not its hits
                facts.setdefault(fact["document_id"], []).append(fact)
        hits = []
        for rank, (memory_id, found) in enumerate(list(facts.items())[:k]):
            meta = {**records[memory_id].metadata, "fact_ids": [f["id"] for f in found]}
            text = "\n".join(str(f.get("text") or "") for f in found)
            hits.append(Hit(memory_id, text, 1.0 / (1 + rank), meta))
        return hits

    def update(self, memory_id: str, text: str, *, namespace: str = "default") -> None:
        scope, record = self._owned(memory_id, namespace)
        (text,) = check_texts([text])
        item = {
            "content": text,
            "document_id": memory_id,
            "strategy": STORE_STRATEGY,
            "timestamp": "unset",
            "update_mode": "replace",
        }
        with self._lock, self.timed("ingest"):
            self._retain(scope, [item], verb="update")
        self._records[scope][memory_id] = MemoryRecord(memory_id, text, namespace, record.metadata)

    def delete(self, memory_id: str, *, namespace: str = "default") -> None:
        scope, _ = self._owned(memory_id, namespace)
        with self._lock:
            self._ok("DELETE", bank_path(self._bank(scope), "documents", memory_id), None, verb="delete")
        del self._records[scope][memory_id]

    # -- lifecycle -------------------------------------------------------------------------------

    def records(self, *, namespace: str = "default") -> list[MemoryRecord]:
        return list(self._records.get(scope_id(check_namespace(namespace)), {}).values())

    def snapshot(self, *, namespace: str = "default") -> str:
        """Every fact Hindsight keeps for the namespace (its memory units, ``memories/list``), one a
        block, by the order its documents were retained in, then by text: Hindsight orders facts by
        time with ties broken by random ids, so its own order would differ between equal memories."""
        scope = scope_id(check_namespace(namespace))
        records = self._records.get(scope)
        if not records:
            return ""
        items: list[dict[str, Any]] = []
        path = bank_path(self._bank(scope), "memories", "list")
        with self._lock:
            while True:
                page = f"{path}?limit={LIST_PAGE}&offset={len(items)}"
                found = self._ok("GET", page, None, verb="snapshot").get("items") or []
                items += found
                if len(found) < LIST_PAGE:
                    break
        order = {memory_id: place for place, memory_id in enumerate(records)}
        texts = [str(item.get("text") or "") for item in items]
        places = [order.get(item.get("document_id"), len(order)) for item in items]
        return "\n\n".join(text for _, text in sorted(zip(places, texts, strict=True)))

    def namespaces(self) -> list[str]:
        return [r.namespace for records in self._records.values() for r in list(records.values())[:1]]

    def reset(self, *, namespace: str | None = None) -> None:
        """Delete the namespace's bank (every bank of this adapter when None)."""
        scopes = list(self._records) if namespace is None else [scope_id(check_namespace(namespace))]
        with self._lock:
            for scope in scopes:
                if scope in self._records:
                    self._ok("DELETE", bank_path(self._bank(scope)), None, verb="reset")
                    del self._records[scope]

    def ingest_session(self, session: Session, *, namespace: str = "default") -> IngestReport:
        """Retain the session as one document, Hindsight's LLM extracting its facts.

        A retain that fails is counted in the report's failures and its document deleted again.

        Raises:
            InvalidInputError: ``session`` is not a Session, or a bad namespace.
            ConfigError: The adapter has no LLM.
        """
        check_session(session)
        scope = scope_id(check_namespace(namespace))
        self._account.require(self.name, "ingest_session")
        report = IngestReport(session.session_id)
        started = time.perf_counter()
        text = "\n".join(f"{t.role}: {t.content}" for t in session.turns if t.content.strip())
        if text:
            memory_id = uuid.uuid4().hex
            when = session_datetime(session.timestamp)
            item = {
                "content": text,
                "document_id": memory_id,
                "timestamp": when.isoformat() if when else "unset",
            }
            with self._lock, self.timed("ingest"):
                failures = self._server.loopback.failures
                bank = self._bank(scope)
                try:
                    self._retain(scope, [item], verb="ingest_session")
                except HindsightError as error:
                    logger.info("hindsight retain failed: %s", error)
                    report.failures = max(1, self._server.loopback.failures - failures)
                    self._call("DELETE", bank_path(bank, "documents", memory_id), None, verb="ingest_session")
                    report.wall_s = time.perf_counter() - started
                    return report
                report.failures = self._server.loopback.failures - failures
            meta = {"session_id": session.session_id}
            self._records[scope][memory_id] = MemoryRecord(memory_id, text, namespace, meta)
            report.added = 1
        report.wall_s = time.perf_counter() - started
        return report

    # -- persistence -----------------------------------------------------------------------------

    def _save_state(self, folder: Path) -> None:
        saved = [
            {"namespace": r.namespace, "id": r.id, "text": r.text, "metadata": r.metadata}
            for records in self._records.values()
            for r in records.values()
        ]
        (folder / _SAVED).write_text(json.dumps({"memories": saved}), encoding="utf-8")

    @classmethod
    def _load_state(cls, folder: Path, params: dict[str, Any], **kwargs: Any) -> HindsightMemory:
        keys = ("top_k", "max_tokens", "call_timeout_s", "startup_timeout_s", "context_tokens")
        settings = {key: params[key] for key in keys if key in params}
        system = cls(**{**settings, **accepted_resources(cls, kwargs)})
        if system.embedder.model_name != params["embedder"]:
            system.close()
            raise InvalidInputError(
                f"{folder} was built with embedder {params['embedder']!r}, not {system.embedder.model_name!r}"
            )
        by_scope: dict[str, list[dict[str, Any]]] = {}
        for memory in json.loads((folder / _SAVED).read_text(encoding="utf-8"))["memories"]:
            by_scope.setdefault(scope_id(memory["namespace"]), []).append(memory)
        for scope, memories in by_scope.items():  # one retain per namespace
            system._store(
                scope,
                memories[0]["namespace"],
                [m["id"] for m in memories],
                [m["text"] for m in memories],
                [m["metadata"] for m in memories],
                verb="load",
            )
        return system
