"""A-MEM adapter: a-mem's ``AgenticMemorySystem`` behind the memsuite contract (README: Systems).

a-mem 0.2.6 (``TESTED_VERSION``; the ``amem`` extra installs it) packages the A-MEM paper's
memory: every memory is a *note* whose content is kept verbatim, with LLM-written keywords, a context
sentence and tags, links to other notes, and a Chroma collection embedding the content plus those
fields. Adding a note makes two json_schema calls (``analyze_content``, then ``process_memory``'s
evolution decision over the five nearest notes, which may link the new note and rewrite the
neighbours' context and tags). No call ever changes or removes a note's content.

Local, offline configuration: one ``AgenticMemorySystem`` per namespace, each with its own Chroma
folder in the adapter's state folder (a-mem keeps one collection named ``memories`` per folder),
Chroma embedding through the run's shared embedder and a-mem's LLM controller replaced by the run's
client (see ``_amem_parts``); Chroma's telemetry off.

Verbs:

- ``store`` is a-mem's ``add_note`` without an LLM: the controller answers with a-mem's own empty
  values, so a note gets no analysis and no evolution (the text is stored and embedded verbatim);
- ``ingest_session`` is ``add_note`` per non-empty turn (``"role: content"``, the session time as
  a-mem's ``YYYYMMDDHHMM`` timestamp) with the LLM: analysis and evolution as the library makes them.
  a-mem swallows a failed call and stores the note with defaults; the adapter counts it in
  ``IngestReport.failures``;
- retrieval, by default (``retrieval="related"``), is the path the A-MEM authors evaluated on LoCoMo:
  ``AgenticMemorySystem.find_related_memories_raw`` (``agentic_memory/memory_system.py``, a-mem 0.2.6),
  the ``k`` nearest notes (``ChromaRetriever.search``, ``agentic_memory/retrievers.py``), each followed
  by up to ``k`` of the notes it links to, every entry with its time, content, context, keywords and
  tags. ``retrieve``'s context is that function's string; its hits are the same entries, in the same
  order, each mapped back to its note id (the adapter records the ids of the ``ChromaRetriever.search``
  call the function makes and walks the links as it does). ``search(k)`` is the first ``k`` distinct
  notes of that walk. ``retrieval="search"`` is a-mem's bare ``AgenticMemorySystem.search`` (the ``k``
  nearest notes, no links): it returns a note's context, keywords and tags but not its content, which
  the adapter reads with a-mem's ``read``, and ``retrieve`` joins the contents. A direct hit's score is
  the cosine of the unit vectors, from Chroma's squared L2 distance; a linked note has the score of the
  hit that links it;
- ``update`` is a-mem's ``update(content=...)`` (re-embedded with the note's old keywords, context and
  tags: a-mem does not analyse an edited note again); ``delete`` is a-mem's ``delete``.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np

from memsuite.baselines.adapters._common import (
    ClientAccount,
    StateFolder,
    adapter_usage,
    installed_version,
    scope_id,
    session_datetime,
)
from memsuite.memory_systems.base import ENTRY, NO_MEMORY, MemorySystem
from memsuite.memory_systems.embedder import Embedder
from memsuite.memory_systems.errors import InvalidInputError, UnknownMemoryError, require
from memsuite.memory_systems.llm.protocol import EndpointClient
from memsuite.memory_systems.records import Hit, IngestReport, MemoryRecord, RetrievalResult, Session, Usage
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

#: The a-mem version this adapter was written and tested against (pinned in the ``amem`` extra).
TESTED_VERSION = "0.2.6"
#: The memsuite extra that installs a-mem.
EXTRA = "amem"
#: The retrieval paths (the ``retrieval`` setting) and the a-mem function each calls.
RETRIEVALS = {
    "related": "a-mem find_related_memories_raw: nearest notes, each with its linked notes",
    "search": "a-mem search: nearest notes",
}
_SAVED = "amem.json"
_VECTORS = "amem_vectors.npy"


def _import_amem() -> Any:
    """Import a-mem (once per process) with Chroma's telemetry off and litellm's model table local.

    a-mem imports litellm, which fetches its model cost table from the network at import unless told
    to use the packaged copy; Chroma reads ``ANONYMIZED_TELEMETRY`` when a client is made.

    Returns:
        The ``_amem_parts`` module.

    Raises:
        MissingDependencyError: a-mem is not installed (names the extra).
    """
    if "agentic_memory" not in sys.modules:
        os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    require("agentic_memory.memory_system", extra=EXTRA, purpose="the A-MEM adapter (a-mem)")
    from memsuite.baselines.adapters import _amem_parts

    return _amem_parts


def _note_time(timestamp: str) -> str | None:
    """A session timestamp as a-mem's note time (``YYYYMMDDHHMM``), or None when it has no date."""
    when = session_datetime(timestamp)
    return when.strftime("%Y%m%d%H%M") if when else None


@register("amem")
class AMemMemory(MemorySystem):
    """A-MEM (a-mem, pinned) over per-namespace Chroma folders, the shared embedder and the run's LLM.

    Args:
        embedder: The shared embedder; default the offline all-MiniLM-L6-v2.
        llm: The LLM client for ``ingest_session`` (a-mem's note analysis and evolution); None allows
            the four verbs only.
        workdir: Folder for the Chroma databases (the run's work dir); default a temporary folder
            removed with the adapter.
        top_k: Default number of hits of :meth:`retrieve`.
        max_tokens: Completion budget of each a-mem call.
        retrieval: ``"related"`` (default): ``find_related_memories_raw``, the nearest notes with their
            linked notes, time and keywords; ``"search"``: a-mem's bare ``search``.

    Raises:
        MissingDependencyError: a-mem is not installed.
    """

    name = "amem"

    def __init__(
        self,
        *,
        embedder: Embedder | None = None,
        llm: EndpointClient | None = None,
        workdir: str | Path | None = None,
        top_k: int = 5,
        max_tokens: int = 1000,
        retrieval: str = "related",
    ) -> None:
        super().__init__(top_k=top_k)
        self.max_tokens = check_k(max_tokens)
        if retrieval not in RETRIEVALS:
            raise InvalidInputError(f"retrieval must be one of {sorted(RETRIEVALS)}, got {retrieval!r}")
        self.retrieval = retrieval
        self.embedder = (embedder or Embedder()).account()  # its own view: exact usage
        self._parts = _import_amem()
        self._state = StateFolder(workdir, prefix="memsuite-amem-")
        self._account = ClientAccount(llm, self.name)
        self._controller = self._parts.ClientController(self._account, self.max_tokens)
        self._embedding = self._parts.SharedEmbeddingFunction(self.embedder)
        self._systems: dict[str, Any] = {}
        self._metadata: dict[str, dict[str, dict[str, Any]]] = {}
        """Caller metadata per scope and note id (a-mem's notes have no field for it)."""

    def params(self) -> dict[str, Any]:
        return {
            "top_k": self.top_k,
            "max_tokens": self.max_tokens,
            "retrieval": self.retrieval,
            "retrieve": RETRIEVALS[self.retrieval],
            "embedder": self.embedder.model_name,
            "a_mem_version": installed_version("a-mem"),
            "a_mem_tested_version": TESTED_VERSION,
            "chromadb_version": installed_version("chromadb"),
            "ingest_session": "a-mem add_note per turn (LLM analysis and evolution)",
            "store": "a-mem add_note without an LLM (verbatim, no analysis or evolution)",
            "llm": self._account.identity(),
        }

    def usage(self) -> Usage:
        return adapter_usage(self._account.usage(), self.embedder.usage, self._usage.wall_s)

    def close(self) -> None:
        """Remove a temporary state folder."""
        self._systems.clear()
        self._state.cleanup()

    # -- helpers ---------------------------------------------------------------------------------

    def _system(self, scope: str) -> Any:
        """The namespace's ``AgenticMemorySystem`` (made on first use, in its own Chroma folder)."""
        system = self._systems.get(scope)
        if system is None:
            from agentic_memory import retrievers
            from agentic_memory.memory_system import AgenticMemorySystem

            # ChromaRetriever builds a SentenceTransformer embedding function from a model name; the
            # shared embedder stands in for it from the start (Chroma records a collection's function).
            with mock.patch.object(
                retrievers, "SentenceTransformerEmbeddingFunction", lambda model_name: self._embedding
            ):
                system = AgenticMemorySystem(
                    model_name=self.embedder.model_name,
                    llm_backend="openai",
                    llm_model=str(self._account.identity().get("model") or "none"),
                    api_key="not-used",  # the controller is replaced below; a-mem's client is never used
                    storage_path=str(self._state.path / "chroma" / scope),
                )
            system.llm_controller.llm = self._controller
            self._systems[scope] = system
        return system

    def _owned(self, memory_id: object, namespace: str) -> tuple[Any, str]:
        """The namespace's system and ``memory_id`` if that note is in it, else raise."""
        check_memory_id(memory_id)
        scope = scope_id(check_namespace(namespace))
        system = self._systems.get(scope)
        if system is None or system.retriever.get_by_id(memory_id) is None:
            raise UnknownMemoryError(f"unknown memory id {memory_id!r} in namespace {namespace!r}")
        return system, memory_id  # type: ignore[return-value]

    def _add(self, scope: str, text: str, *, online: bool, when: str | None = None) -> str:
        self._controller.online = online
        try:
            return self._system(scope).add_note(text, time=when)
        finally:
            self._controller.online = False

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
        ids = []
        with self.timed("ingest"):
            for i, text in enumerate(texts):
                note_id = self._add(scope, text, online=False)
                if metadata is not None and metadata[i]:
                    self._metadata.setdefault(scope, {})[note_id] = dict(metadata[i])
                ids.append(note_id)
        return ids

    def _search(self, query: str, *, k: int, namespace: str) -> list[Hit]:
        scope = scope_id(namespace)
        system = self._systems.get(scope)
        if system is None or system.retriever.count() == 0:
            return []
        if self.retrieval == "related":
            _, entries = self._related(scope, system, query, k)
            distinct: dict[str, Hit] = {}
            for hit in entries:  # a note linked from two hits is one memory, at its first place
                distinct.setdefault(hit.id, hit)
            return list(distinct.values())[:k]
        return self._bare_search(scope, system, query, k)

    def _retrieve(self, question: str, *, k: int, namespace: str) -> RetrievalResult:
        scope = scope_id(namespace)
        system = self._systems.get(scope)
        if self.retrieval == "search" or system is None or system.retriever.count() == 0:
            return super()._retrieve(question, k=k, namespace=namespace)
        context, entries = self._related(scope, system, question, k)
        return RetrievalResult(context or NO_MEMORY, tuple(entries))

    def _bare_search(self, scope: str, system: Any, query: str, k: int) -> list[Hit]:
        """a-mem's ``search``: the ``k`` nearest notes, their contents read with ``read``."""
        hits = []
        for row in system.search(query, k=k):
            note = system.read(row["id"])  # a-mem's search leaves the content out
            if note is not None:
                meta = dict(self._metadata.get(scope, {}).get(row["id"], {}))
                hits.append(Hit(row["id"], note.content, 1.0 - float(row["score"]) / 2, meta))
        return hits

    def _related(self, scope: str, system: Any, query: str, k: int) -> tuple[str, list[Hit]]:
        """a-mem's ``find_related_memories_raw``: its string, and its entries as hits, in order.

        The function returns text only; the ids come from the ``ChromaRetriever.search`` call it makes
        (recorded) and from the links it follows, walked as it walks them. Each hit's text is the note's
        content; its ``entry`` metadata is the function's line for it, and the lines joined are the
        function's string (checked: a mismatch means the library no longer does what is walked here).
        """
        found: list[dict[str, Any]] = []
        search = system.retriever.search

        def recorded(text: str, n: int) -> dict[str, Any]:
            results = search(text, n)
            found.append(results)
            return results

        with mock.patch.object(system.retriever, "search", recorded):
            raw = system.find_related_memories_raw(query, k=k)
        hits: list[Hit] = []
        if found and found[0].get("ids"):
            results = found[0]
            for i, note_id in enumerate(results["ids"][0][:k]):
                if i >= len(results["metadatas"][0]):
                    break
                meta = results["metadatas"][0][i]
                score = 1.0 - float(results["distances"][0][i]) / 2
                entry = (
                    f"talk start time:{meta.get('timestamp', '')}\tmemory content: {meta.get('content', '')}"
                    f"\tmemory context: {meta.get('context', '')}\tmemory keywords: "
                    f"{meta.get('keywords', [])!s}\tmemory tags: {meta.get('tags', [])!s}\n"
                )
                hits.append(self._entry_hit(scope, note_id, str(meta.get("content", "")), score, entry))
                linked = 0
                for link_id in meta.get("links", []):
                    neighbor = system.read(link_id)
                    if neighbor and linked < k:
                        entry = (
                            f"talk start time:{neighbor.timestamp}\tmemory content: {neighbor.content}"
                            f"\tmemory context: {neighbor.context}\tmemory keywords: "
                            f"{neighbor.keywords!s}\tmemory tags: {neighbor.tags!s}\n"
                        )
                        hit = self._entry_hit(scope, link_id, neighbor.content, score, entry, via=note_id)
                        hits.append(hit)
                        linked += 1
        if "".join(hit.metadata[ENTRY] for hit in hits) != raw:
            raise RuntimeError(
                "a-mem's find_related_memories_raw returned other entries than its search and links: "
                f"the adapter is written for a-mem {TESTED_VERSION}"
            )
        return raw, hits

    def _entry_hit(
        self, scope: str, note_id: str, content: str, score: float, entry: str, via: str | None = None
    ) -> Hit:
        meta = dict(self._metadata.get(scope, {}).get(note_id, {}))
        meta[ENTRY] = entry
        if via is not None:
            meta["linked_from"] = via
        return Hit(note_id, content, score, meta)

    def update(self, memory_id: str, text: str, *, namespace: str = "default") -> None:
        system, memory_id = self._owned(memory_id, namespace)
        check_text(text)
        system.update(memory_id, content=text)

    def delete(self, memory_id: str, *, namespace: str = "default") -> None:
        system, memory_id = self._owned(memory_id, namespace)
        system.delete(memory_id)
        self._metadata.get(scope_id(namespace), {}).pop(memory_id, None)

    # -- lifecycle -------------------------------------------------------------------------------

    def records(self, *, namespace: str = "default") -> list[MemoryRecord]:
        scope = scope_id(check_namespace(namespace))
        system = self._systems.get(scope)
        if system is None:
            return []
        rows = system.retriever.collection.get(include=["metadatas"])
        notes = zip(rows["ids"], rows["metadatas"], strict=True)
        meta = self._metadata.get(scope, {})
        return [MemoryRecord(i, m["content"], namespace, dict(meta.get(i, {}))) for i, m in notes]

    def namespaces(self) -> list[str]:
        return [_namespace_of(scope) for scope, system in self._systems.items() if system.retriever.count()]

    def ingest_session(self, session: Session, *, namespace: str = "default") -> IngestReport:
        """Add each non-empty turn as an a-mem note, with a-mem's LLM analysis and evolution.

        Raises:
            InvalidInputError: ``session`` is not a Session, or a bad namespace.
            ConfigError: The adapter has no LLM.
        """
        check_session(session)
        scope = scope_id(check_namespace(namespace))
        self._account.require(self.name, "ingest_session")
        report = IngestReport(session.session_id)
        started = time.perf_counter()
        failures = self._controller.failures
        when = _note_time(session.timestamp)
        with self.timed("ingest"):
            for turn in session.turns:
                if turn.content.strip():
                    self._add(scope, f"{turn.role}: {turn.content}", online=True, when=when)
                    report.added += 1
        report.failures = self._controller.failures - failures
        report.wall_s = time.perf_counter() - started
        return report

    def reset(self, *, namespace: str | None = None) -> None:
        scopes = list(self._systems) if namespace is None else [scope_id(check_namespace(namespace))]
        for scope in scopes:
            system = self._systems.get(scope)
            if system is None:
                continue
            for note_id in system.retriever.get_all_ids():
                system.delete(note_id)
            self._metadata.pop(scope, None)

    # -- persistence -----------------------------------------------------------------------------

    def _save_state(self, folder: Path) -> None:
        """Every note as Chroma holds it (id, embedded text, metadata, vector), per namespace."""
        scopes, vectors = [], []
        for scope, system in self._systems.items():
            rows = system.retriever.collection.get(include=["documents", "metadatas", "embeddings"])
            if not rows["ids"]:
                continue
            scopes.append(
                {
                    "scope": scope,
                    "ids": list(rows["ids"]),
                    "documents": list(rows["documents"]),
                    "metadatas": list(rows["metadatas"]),
                    "metadata": self._metadata.get(scope, {}),
                }
            )
            vectors.append(np.asarray(rows["embeddings"], dtype=np.float32))
        (folder / _SAVED).write_text(json.dumps({"scopes": scopes}), encoding="utf-8")
        dim = self.embedder.dim
        np.save(folder / _VECTORS, np.concatenate(vectors) if vectors else np.zeros((0, dim), np.float32))

    @classmethod
    def _load_state(cls, folder: Path, params: dict[str, Any], **kwargs: Any) -> AMemMemory:
        settings = {key: params[key] for key in ("top_k", "max_tokens")}
        settings["retrieval"] = params.get("retrieval", "related")
        system = cls(**{**settings, **accepted_resources(cls, kwargs)})
        if system.embedder.model_name != params["embedder"]:
            raise InvalidInputError(
                f"{folder} was built with embedder {params['embedder']!r}, not {system.embedder.model_name!r}"
            )
        saved = json.loads((folder / _SAVED).read_text(encoding="utf-8"))
        vectors = np.load(folder / _VECTORS)
        start = 0
        for entry in saved["scopes"]:
            count = len(entry["ids"])
            collection = system._system(entry["scope"]).retriever.collection
            collection.add(
                ids=entry["ids"],
                documents=entry["documents"],
                metadatas=entry["metadatas"],
                embeddings=vectors[start : start + count],
            )
            start += count
            system._metadata[entry["scope"]] = entry["metadata"]
        return system


def _namespace_of(scope: str) -> str:
    """The namespace a :func:`scope_id` was made from (its escaped form is ``ns-`` + UTF-8 hex)."""
    return bytes.fromhex(scope[3:]).decode("utf-8") if scope.startswith("ns-") else scope
