"""langmem adapter: LangChain's LangMem memory manager over langgraph's in-memory store (docs/libraries.md).

langmem is pinned (``TESTED_VERSION``; the ``langmem`` extra installs it with trustcall, langgraph and
langchain-core) and :meth:`LangMemMemory.params` records the installed versions. No server: memories
live in langgraph's ``InMemoryStore``, indexed with the run's shared embedder (``index={"dims",
"embed"}``, langmem's documented local setup; the whole stored value is embedded, the store's default).

A memory is one store item under ``("memories", <namespace>)`` with langmem's own value layout
(``{"kind": "Memory", "content": {"content": text}}``); its id is the item's key.

- ``ingest_session`` is langmem's ``create_memory_store_manager`` (``langmem/knowledge/extraction.py``,
  langmem 0.0.30; its ``MemoryStoreManager.invoke``, ``enable_deletes=True``, its default): it
  searches the store with the session's last message (no LLM), shows the best
  ``query_limit`` memories to one trustcall tool-calling request that answers with ``Memory`` (new),
  ``PatchDoc`` (a JSON patch of a shown memory) and ``RemoveDoc`` (delete a shown memory) calls, and
  writes the result to the store. The report is the store's difference (keys added, changed, gone).
  Every failed call is counted in ``IngestReport.failures`` (also one trustcall recovered from by
  asking again), and so is a session the manager gave up on: a reply trustcall cannot use, or its
  re-asks running into the recursion limit (:data:`RECURSION_LIMIT` steps); any other exception is a
  bug and propagates.
- ``store`` puts items in the same layout without an LLM; ``search`` is the store's semantic search
  (``InMemoryStore.search``, ``langgraph/store/memory/__init__.py``), as the manager's own search;
  ``update`` puts the new text under the same key; ``delete`` deletes the key.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memsuite.baselines.adapters._common import (
    ClientAccount,
    LibraryLLMError,
    adapter_usage,
    installed_version,
    scope_id,
)
from memsuite.memory_systems.base import MemorySystem
from memsuite.memory_systems.embedder import Embedder
from memsuite.memory_systems.errors import InvalidInputError, UnknownMemoryError, require
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

#: The langmem version this adapter was written and tested against (pinned in the ``langmem`` extra).
TESTED_VERSION = "0.0.30"
#: The memsuite extra that installs langmem.
EXTRA = "langmem"
#: The first element of every namespace tuple (langmem's default ``("memories", "{langgraph_user_id}")``).
ROOT = "memories"
_ITEMS = "items.json"
#: Items listed per page when reading a whole namespace.
_PAGE = 1000
#: LangGraph steps one manager invocation may take. trustcall's update path re-asks after a failed
#: call with no attempt limit of its own, and LangGraph's default limit is 10,007 steps: a dead
#: endpoint would be asked ten thousand times per session. A clean run takes well under 25.
RECURSION_LIMIT = 25


def _import_parts() -> Any:
    require("langmem", extra=EXTRA, purpose="the langmem adapter")
    require("langgraph.store.memory", extra=EXTRA, purpose="the langmem adapter's store")
    from memsuite.baselines.adapters import _langmem_parts

    return _langmem_parts


def _text(value: dict[str, Any]) -> str:
    """The memory text of a stored value (langmem's ``Memory`` schema: ``content.content``)."""
    content = value.get("content")
    if isinstance(content, dict) and isinstance(content.get("content"), str):
        return content["content"]
    return json.dumps(content, ensure_ascii=False)


def _value(text: str) -> dict[str, Any]:
    return {"kind": "Memory", "content": {"content": text}}


@register("langmem")
class LangMemMemory(MemorySystem):
    """langmem's memory store manager over langgraph's ``InMemoryStore`` and the run's LLM client.

    Args:
        embedder: The shared embedder; default the offline all-MiniLM-L6-v2.
        llm: The LLM client for ``ingest_session``; None allows the four verbs only.
        top_k: Default number of hits of :meth:`retrieve`.
        query_limit: Memories the manager shows the model per session (langmem's default 5).
        max_tokens: Completion budget of each call.

    Raises:
        MissingDependencyError: langmem is not installed (names the ``langmem`` extra).
    """

    name = "langmem"

    def __init__(
        self,
        *,
        embedder: Embedder | None = None,
        llm: EndpointClient | None = None,
        top_k: int = 5,
        query_limit: int = 5,
        max_tokens: int = 2000,
    ) -> None:
        super().__init__(top_k=top_k)
        self.query_limit = check_k(query_limit)
        self.max_tokens = check_k(max_tokens)
        parts = _import_parts()
        from langgraph.store.memory import InMemoryStore
        from langmem import create_memory_store_manager

        self.embedder = (embedder or Embedder()).account()  # its own view: exact usage
        self._account = ClientAccount(llm, self.name)
        self._store = InMemoryStore(
            index={"dims": self.embedder.dim, "embed": parts.embed_function(self.embedder)}
        )
        self._manager = create_memory_store_manager(
            parts.ClientChatModel(self._account, self.max_tokens),
            namespace=(ROOT, "{langgraph_user_id}"),
            store=self._store,
            query_limit=self.query_limit,
            enable_deletes=True,
        )

    def params(self) -> dict[str, Any]:
        return {
            "top_k": self.top_k,
            "query_limit": self.query_limit,
            "max_tokens": self.max_tokens,
            "embedder": self.embedder.model_name,
            "langmem_version": installed_version("langmem"),
            "langmem_tested_version": TESTED_VERSION,
            "trustcall_version": installed_version("trustcall"),
            "langgraph_version": installed_version("langgraph"),
            "langchain_core_version": installed_version("langchain-core"),
            "ingest_session": "langmem memory store manager (Memory / PatchDoc / RemoveDoc tool calls)",
            "search": "langgraph InMemoryStore semantic search",
            "llm": self._account.identity(),
        }

    def usage(self) -> Usage:
        return adapter_usage(self._account.usage(), self.embedder.usage, self._usage.wall_s)

    # -- helpers ---------------------------------------------------------------------------------

    def _items(self, scope: str) -> list[Any]:
        """Every item of a scope, in the store's order."""
        items, offset = [], 0
        while True:
            page = self._store.search((ROOT, scope), limit=_PAGE, offset=offset)
            items.extend(page)
            if len(page) < _PAGE:
                return items
            offset += _PAGE

    def _owned(self, memory_id: object, namespace: str) -> tuple[str, str]:
        """(scope, key) of memory ``memory_id`` of ``namespace``, or :class:`UnknownMemoryError`."""
        check_memory_id(memory_id)
        scope = scope_id(check_namespace(namespace))
        if self._store.get((ROOT, scope), memory_id) is None:  # type: ignore[arg-type]
            raise UnknownMemoryError(f"unknown memory id {memory_id!r} in namespace {namespace!r}")
        return scope, memory_id  # type: ignore[return-value]

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
        metas = [dict(m) for m in metadata] if metadata is not None else [{} for _ in texts]
        json.dumps(metas)  # refuse unserialisable metadata before anything is written
        ids = []
        with self.timed("ingest"):
            self.embedder.encode(texts)  # one batch now; the store's per-item embeds hit the cache
            for text, meta in zip(texts, metas, strict=True):
                key = str(uuid.uuid4())
                self._store.put((ROOT, scope), key, {**_value(text), **({"metadata": meta} if meta else {})})
                ids.append(key)
        return ids

    def _search(self, query: str, *, k: int, namespace: str) -> list[Hit]:
        found = self._store.search((ROOT, scope_id(namespace)), query=query, limit=k)
        return [
            Hit(item.key, _text(item.value), float(item.score or 0.0), dict(item.value.get("metadata") or {}))
            for item in found
        ]

    def update(self, memory_id: str, text: str, *, namespace: str = "default") -> None:
        scope, key = self._owned(memory_id, namespace)
        value = dict(self._store.get((ROOT, scope), key).value)
        value["content"] = {"content": check_text(text)}
        self._store.put((ROOT, scope), key, value)

    def delete(self, memory_id: str, *, namespace: str = "default") -> None:
        scope, key = self._owned(memory_id, namespace)
        self._store.delete((ROOT, scope), key)

    # -- lifecycle -------------------------------------------------------------------------------

    def records(self, *, namespace: str = "default") -> list[MemoryRecord]:
        scope = scope_id(check_namespace(namespace))
        return [
            MemoryRecord(item.key, _text(item.value), namespace, dict(item.value.get("metadata") or {}))
            for item in self._items(scope)
        ]

    def _scopes(self) -> list[str]:
        return [ns[1] for ns in self._store.list_namespaces(prefix=(ROOT,), max_depth=2) if len(ns) == 2]

    def reset(self, *, namespace: str | None = None) -> None:
        scopes = self._scopes() if namespace is None else [scope_id(check_namespace(namespace))]
        for scope in scopes:
            for item in self._items(scope):
                self._store.delete((ROOT, scope), item.key)

    def ingest_session(self, session: Session, *, namespace: str = "default") -> IngestReport:
        """Run langmem's memory store manager over the session.

        Raises:
            InvalidInputError: ``session`` is not a Session, or a bad namespace.
            ConfigError: The adapter has no LLM.
        """
        check_session(session)
        scope = scope_id(check_namespace(namespace))
        self._account.require(self.name, "ingest_session")
        report = IngestReport(session.session_id)
        started = time.perf_counter()
        messages = _messages(session)
        with self.timed("ingest"):
            if len(messages) > 1:
                before = {item.key: _text(item.value) for item in self._items(scope)}
                failed_before, raised = self._account.usage().llm_failures, False
                try:
                    # The async path: langmem 0.0.30's sync invoke runs every store search twice
                    # (once into a list it then overwrites), each embedding its query anew.
                    asyncio.run(
                        self._manager.ainvoke(
                            {"messages": messages},
                            config={
                                "configurable": {"langgraph_user_id": scope},
                                "recursion_limit": RECURSION_LIMIT,
                            },
                        )
                    )
                except _library_failures() as exc:
                    logger.warning(
                        "%s: the memory manager failed for session %s (counted): %s: %s",
                        self.name,
                        session.session_id,
                        type(exc).__name__,
                        str(exc)[:300],
                    )
                    raised = True
                # Every failed call counts, also one trustcall recovered from by asking again.
                failed_calls = self._account.usage().llm_failures - failed_before
                report.failures = max(failed_calls, int(raised))
                after = {item.key: _text(item.value) for item in self._items(scope)}
                report.added = len(after.keys() - before.keys())
                report.deleted = len(before.keys() - after.keys())
                report.updated = sum(1 for key in after.keys() & before.keys() if after[key] != before[key])
        report.wall_s = time.perf_counter() - started
        return report

    # -- persistence -----------------------------------------------------------------------------

    def _save_state(self, folder: Path) -> None:
        dump = {
            scope: [{"key": i.key, "value": i.value} for i in self._items(scope)] for scope in self._scopes()
        }
        (folder / _ITEMS).write_text(json.dumps(dump, ensure_ascii=False), encoding="utf-8")

    @classmethod
    def _load_state(cls, folder: Path, params: dict[str, Any], **kwargs: Any) -> LangMemMemory:
        settings = {key: params[key] for key in ("top_k", "query_limit", "max_tokens")}
        system = cls(**{**settings, **accepted_resources(cls, kwargs)})
        if system.embedder.model_name != params["embedder"]:
            raise InvalidInputError(
                f"{folder} was built with embedder {params['embedder']!r}, not {system.embedder.model_name!r}"
            )
        dump = json.loads((folder / _ITEMS).read_text(encoding="utf-8"))
        for scope, items in dump.items():
            system.embedder.encode([_text(item["value"]) for item in items] or ["-"])
            for item in items:
                system._store.put((ROOT, scope), item["key"], item["value"])
        return system


def _messages(session: Session) -> list[Any]:
    """A session as LangChain messages: a dated system line, then the turns (others as named users)."""
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

    messages: list[Any] = [SystemMessage(content=f"Session date: {session.timestamp}")]
    for turn in session.turns:
        if not turn.content.strip():
            continue
        if turn.role == "assistant":
            messages.append(AIMessage(content=turn.content))
        elif turn.role == "user":
            messages.append(HumanMessage(content=turn.content))
        else:
            messages.append(HumanMessage(content=turn.content, name=turn.role))
    return messages


def _library_failures() -> tuple[type[BaseException], ...]:
    """What the manager raises when the LLM's work is unusable: counted, never a crash.

    A failed call (:class:`LibraryLLMError`, already counted by the client); trustcall's re-asks
    after a failed call or an invalid reply ending at LangGraph's recursion limit; a reply that does
    not validate into langmem's schemas (pydantic).
    """
    from langgraph.errors import GraphRecursionError
    from pydantic import ValidationError

    return (LibraryLLMError, GraphRecursionError, ValidationError)
