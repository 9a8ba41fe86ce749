"""llamaindex_memory adapter: LlamaIndex's ``Memory`` with its fact-extraction block (docs/libraries.md).

llama-index-core is pinned (``TESTED_VERSION``; the ``llamaindex`` extra installs it) and
:meth:`LlamaIndexMemory.params` records the installed version. Each namespace is one LlamaIndex
``Memory`` (its ``session_id``) over one SQLite chat store in the adapter's state folder, with one
``FactExtractionMemoryBlock``, the run's LLM client (see ``_llamaindex_parts``) and an offline cl100k
tokenizer. No embedding model: the fact block has no index.

How the library remembers, and what the verbs map to:

- ``ingest_session`` puts the session's turns into the ``Memory``. Its short-term queue keeps the
  latest ``token_limit * chat_history_token_ratio`` tokens; older messages are flushed in batches of
  ``token_flush_size`` tokens to the fact block, which asks the LLM for ``<fact>`` XML and appends the
  facts it does not hold word for word; past ``max_facts`` a condense call replaces the whole list.
  ``token_limit`` is set low (1,000; the library's default is 30,000) so that sessions reach the
  block at all; the flush size is the library's 10 %. A failed call is counted in
  ``IngestReport.failures`` (the batch it was for is archived without facts, as the library does).
- A memory is one fact of the block. Facts have no ids in the library; the adapter gives each held
  text an id. ``store`` appends texts the block does not hold (the library's exact-text dedupe),
  ``update`` replaces a fact's text in place, ``delete`` removes it: the block's ``facts`` list is
  its public state, and the library itself never edits a fact it holds.
- Retrieval is the library's ``Memory.aget`` (``llama_index/core/memory/memory.py``, llama-index-core
  0.14.25): the fact block's facts (``FactExtractionMemoryBlock._aget``,
  ``memory/memory_blocks/fact.py``) rendered by the library's memory template, then the short-term
  messages, whatever ``k``. The library does not rank by the query (``ranks_by_query`` False). Where
  it must keep less, it keeps the newest: ``Memory._manage_queue`` evicts the oldest messages first,
  and a changed value is appended after the fact it changes. So the hits, and ``search(k)``, are the
  facts that call returned, newest first (never the block's oldest ``k``).
- ``context_tokens`` (a run's context budget), when given, is ``Memory``'s ``token_limit``: the
  library's own limit on the short-term queue and the memory blocks together, so the library chooses
  what it keeps (its queue ``0.7 * token_limit`` tokens, the rest flushed to the fact block). The fact
  block has the library's default priority 0, which ``Memory._truncate_memory_blocks`` never
  truncates: the library itself may hand over more than the limit, and the caller cuts the hits in
  their order.
- ``snapshot`` is the facts and the short-term messages: both are what the memory holds.

The library is async; each adapter owns one event loop and runs every call on it, so the adapter
must not be used from inside a running event loop.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memsuite.baselines.adapters._common import (
    ClientAccount,
    LibraryLLMError,
    StateFolder,
    adapter_usage,
    check_context_tokens,
    installed_version,
    scope_id,
)
from memsuite.memory_systems.base import NO_MEMORY, MemorySystem
from memsuite.memory_systems.errors import InvalidInputError, UnknownMemoryError, require
from memsuite.memory_systems.llm.protocol import EndpointClient
from memsuite.memory_systems.records import (
    Hit,
    IngestReport,
    MemoryRecord,
    RetrievalResult,
    Session,
    Usage,
)
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

#: The llama-index-core version this adapter was written and tested against (``llamaindex`` extra).
TESTED_VERSION = "0.14.25"
#: The memsuite extra that installs llama-index-core.
EXTRA = "llamaindex"
_CHAT_DB = "chat.sqlite"
_STATE = "memory.json"
_BLOCK = "ExtractedFacts"


class _Scope:
    """One namespace: its ``Memory``, its fact block and the ids the adapter gave the block's facts."""

    def __init__(self, namespace: str, memory: Any, block: Any) -> None:
        self.namespace = namespace
        self.memory = memory
        self.block = block
        self.ids: dict[str, str] = {}  # fact text -> id

    def sync(self) -> None:
        """Give every held fact an id (a new text a new one) and forget the ids of facts gone."""
        held = set(self.block.facts)
        self.ids = {text: mid for text, mid in self.ids.items() if text in held}
        for text in self.block.facts:
            self.ids.setdefault(text, uuid.uuid4().hex)

    def text_of(self, memory_id: str) -> str | None:
        return next((text for text, mid in self.ids.items() if mid == memory_id), None)


@register("llamaindex_memory")
class LlamaIndexMemory(MemorySystem):
    """LlamaIndex ``Memory`` with a ``FactExtractionMemoryBlock``, on the run's LLM client.

    Args:
        llm: The LLM client for ``ingest_session``; None allows the four verbs only.
        workdir: Folder for the SQLite chat store (the run's work dir); default a temporary folder
            removed with the adapter.
        top_k: Default number of hits of :meth:`search`.
        token_limit: ``Memory``'s token limit (short-term queue and memory blocks together).
        context_tokens: A context budget in cl100k tokens; when given it is ``Memory``'s
            ``token_limit`` (in place of ``token_limit``).
        max_facts: The fact block's ``max_facts`` (past it, a condense call; the library's default 50).
        max_tokens: Completion budget of each call.

    Raises:
        MissingDependencyError: llama-index-core is not installed (names the ``llamaindex`` extra).
    """

    name = "llamaindex_memory"
    ranks_by_query = False

    def __init__(
        self,
        *,
        llm: EndpointClient | None = None,
        workdir: str | Path | None = None,
        top_k: int = 5,
        token_limit: int = 1000,
        max_facts: int = 50,
        max_tokens: int = 2000,
        context_tokens: int | None = None,
    ) -> None:
        super().__init__(top_k=top_k)
        self.context_tokens = check_context_tokens(context_tokens)
        self.token_limit = check_k(token_limit if self.context_tokens is None else self.context_tokens)
        self.max_facts = check_k(max_facts)
        self.max_tokens = check_k(max_tokens)
        require("llama_index.core.memory", extra=EXTRA, purpose="the llamaindex_memory adapter")
        from llama_index.core.storage.chat_store.sql import SQLAlchemyChatStore

        from memsuite.baselines.adapters import _llamaindex_parts

        self._parts = _llamaindex_parts
        self._account = ClientAccount(llm, self.name)
        self._llm = _llamaindex_parts.ClientLLM(self._account, self.max_tokens)
        self._tokenizer = _llamaindex_parts.tokenizer()
        self._state = StateFolder(workdir, prefix="memsuite-llamaindex-")
        self._chat_store = SQLAlchemyChatStore(
            table_name="llama_index_memory",
            async_database_uri=f"sqlite+aiosqlite:///{self._state.path / _CHAT_DB}",
        )
        self._loop = asyncio.new_event_loop()
        self._scopes: dict[str, _Scope] = {}
        self._finalizer = weakref.finalize(self, _shutdown, self._loop, self._chat_store, self._state)

    def params(self) -> dict[str, Any]:
        return {
            "top_k": self.top_k,
            "token_limit": self.token_limit,
            "context_tokens": self.context_tokens,
            "max_facts": self.max_facts,
            "max_tokens": self.max_tokens,
            "llama_index_core_version": installed_version("llama-index-core"),
            "llama_index_core_tested_version": TESTED_VERSION,
            "ingest_session": "Memory short-term queue flushed to FactExtractionMemoryBlock (<fact> XML)",
            "retrieve": "Memory.aget: the fact block and the short-term messages; facts newest first",
            "llm": self._account.identity(),
        }

    def usage(self) -> Usage:
        return adapter_usage(self._account.usage(), Usage(), self._usage.wall_s)  # no embedder

    def close(self) -> None:
        """Close the chat store and the event loop; remove a temporary state folder."""
        self._finalizer()

    # -- helpers ---------------------------------------------------------------------------------

    def _run(self, coroutine: Any) -> Any:
        return self._loop.run_until_complete(coroutine)

    def _scope(self, namespace: str, *, create: bool = True) -> _Scope | None:
        scope = scope_id(check_namespace(namespace))
        found = self._scopes.get(scope)
        if found is None and create:
            from llama_index.core.memory import FactExtractionMemoryBlock, Memory

            block = FactExtractionMemoryBlock(name=_BLOCK, llm=self._llm, max_facts=self.max_facts)
            memory = Memory.from_defaults(
                session_id=scope,
                token_limit=self.token_limit,
                token_flush_size=max(1, self.token_limit // 10),
                memory_blocks=[block],
                tokenizer_fn=self._tokenizer,
                chat_store=self._chat_store,
            )
            found = self._scopes[scope] = _Scope(namespace, memory, block)
        return found

    def _owned(self, memory_id: object, namespace: str) -> tuple[_Scope, str]:
        """The scope and text of fact ``memory_id`` of ``namespace``, or :class:`UnknownMemoryError`."""
        check_memory_id(memory_id)
        scope = self._scope(namespace, create=False)
        text = scope.text_of(memory_id) if scope is not None else None  # type: ignore[arg-type]
        if scope is None or text is None:
            raise UnknownMemoryError(f"unknown memory id {memory_id!r} in namespace {namespace!r}")
        return scope, text

    def _short_term(self, scope: _Scope) -> list[Any]:
        from llama_index.core.storage.chat_store.sql import MessageStatus

        return self._run(scope.memory.aget_all(status=MessageStatus.ACTIVE))

    # -- the four verbs --------------------------------------------------------------------------

    def store(
        self,
        items: Sequence[str],
        *,
        namespace: str = "default",
        metadata: Sequence[dict[str, Any]] | None = None,
    ) -> list[str]:
        texts = check_texts(items)
        if metadata is not None and len(metadata) != len(texts):
            raise InvalidInputError(f"metadata has {len(metadata)} entries for {len(texts)} texts")
        scope = self._scope(namespace)
        with self.timed("ingest"):
            for text in texts:
                if text not in scope.block.facts:
                    scope.block.facts.append(text)
            scope.sync()
        return [scope.ids[text] for text in texts]

    def _get(self, scope: _Scope, query: str) -> tuple[str, list[Hit]]:
        """The library's ``Memory.aget``: its context, and the facts it holds, newest first."""
        messages = self._run(scope.memory.aget(input=query))
        context = "\n\n".join(_message_text(m) for m in messages if _message_text(m).strip())
        rendered = "".join(m.content or "" for m in messages if _role(m) == "system")
        shown = [text for text in scope.block._parse_facts_xml(rendered) if text in scope.ids]
        # Scores count down from 1 so that a reader of the hits sees their order.
        hits = [
            Hit(scope.ids[text], text, 1.0 / (1 + rank))
            for rank, text in enumerate(reversed(list(dict.fromkeys(shown))))
        ]
        return context, hits

    def _search(self, query: str, *, k: int, namespace: str) -> list[Hit]:
        scope = self._scope(namespace, create=False)
        if scope is None:
            return []
        return self._get(scope, query)[1][:k]

    def _retrieve(self, question: str, *, k: int, namespace: str) -> RetrievalResult:
        scope = self._scope(namespace, create=False)
        if scope is None:
            return RetrievalResult(NO_MEMORY, ())
        context, hits = self._get(scope, question)
        return RetrievalResult(context or NO_MEMORY, tuple(hits))

    def update(self, memory_id: str, text: str, *, namespace: str = "default") -> None:
        scope, old = self._owned(memory_id, namespace)
        new = check_text(text)
        facts = scope.block.facts
        facts[facts.index(old)] = new
        # A text held twice is one fact (the library's dedupe): keep the updated one's place.
        scope.block.facts = [f for i, f in enumerate(facts) if f != new or i == facts.index(new)]
        del scope.ids[old]
        scope.ids[new] = memory_id
        scope.sync()

    def delete(self, memory_id: str, *, namespace: str = "default") -> None:
        scope, text = self._owned(memory_id, namespace)
        scope.block.facts.remove(text)
        scope.sync()

    # -- lifecycle -------------------------------------------------------------------------------

    def records(self, *, namespace: str = "default") -> list[MemoryRecord]:
        scope = self._scope(namespace, create=False)
        if scope is None:
            return []
        return [MemoryRecord(scope.ids[text], text, namespace) for text in scope.block.facts]

    def snapshot(self, *, namespace: str = "default") -> str:
        scope = self._scope(namespace, create=False)
        if scope is None:
            return ""
        lines = list(scope.block.facts)
        lines += [_message_text(m) for m in self._short_term(scope) if _message_text(m).strip()]
        return "\n\n".join(lines)

    def namespaces(self) -> list[str]:
        return [scope.namespace for scope in self._scopes.values()]

    def reset(self, *, namespace: str | None = None) -> None:
        names = [scope_id(check_namespace(namespace))] if namespace is not None else list(self._scopes)
        for name in names:
            scope = self._scopes.pop(name, None)
            if scope is not None:
                self._run(scope.memory.areset())

    def ingest_session(self, session: Session, *, namespace: str = "default") -> IngestReport:
        """Put the session's turns into the namespace's ``Memory`` (the library flushes and extracts).

        Raises:
            InvalidInputError: ``session`` is not a Session, or a bad namespace.
            ConfigError: The adapter has no LLM.
        """
        from llama_index.core.base.llms.types import ChatMessage

        check_session(session)
        check_namespace(namespace)
        self._account.require(self.name, "ingest_session")
        report = IngestReport(session.session_id)
        started = time.perf_counter()
        messages = [
            ChatMessage(role="assistant" if turn.role == "assistant" else "user", content=turn.content)
            for turn in session.turns
            if turn.content.strip()
        ]
        with self.timed("ingest"):
            if messages:
                scope = self._scope(namespace)
                before = set(scope.block.facts)
                try:
                    self._run(scope.memory.aput_messages(messages))
                except LibraryLLMError as exc:
                    logger.warning(
                        "%s: fact extraction failed for session %s (counted): %s",
                        self.name,
                        session.session_id,
                        exc,
                    )
                    report.failures += 1
                scope.sync()
                after = set(scope.block.facts)
                report.added, report.deleted = len(after - before), len(before - after)
        report.wall_s = time.perf_counter() - started
        return report

    # -- persistence -----------------------------------------------------------------------------

    def _save_state(self, folder: Path) -> None:
        state = {
            name: {
                "namespace": scope.namespace,
                "facts": [[scope.ids[text], text] for text in scope.block.facts],
                "short_term": [
                    {"role": str(getattr(m.role, "value", m.role)), "content": m.content or ""}
                    for m in self._short_term(scope)
                ],
            }
            for name, scope in self._scopes.items()
        }
        (folder / _STATE).write_text(json.dumps(state, ensure_ascii=False), encoding="utf-8")

    @classmethod
    def _load_state(cls, folder: Path, params: dict[str, Any], **kwargs: Any) -> LlamaIndexMemory:
        from llama_index.core.base.llms.types import ChatMessage

        keys = ("top_k", "token_limit", "max_facts", "max_tokens")
        settings = {key: params[key] for key in keys} | {"context_tokens": params.get("context_tokens")}
        system = cls(**{**settings, **accepted_resources(cls, kwargs)})
        state = json.loads((folder / _STATE).read_text(encoding="utf-8"))
        for saved in state.values():
            scope = system._scope(saved["namespace"])
            scope.block.facts = [text for _, text in saved["facts"]]
            scope.ids = {text: mid for mid, text in saved["facts"]}
            messages = [ChatMessage(role=m["role"], content=m["content"]) for m in saved["short_term"]]
            system._run(scope.memory.aset(messages))
        return system


def _role(message: Any) -> str:
    return str(getattr(message.role, "value", message.role))


def _message_text(message: Any) -> str:
    """A LlamaIndex message as context text: the memory block as the library renders it, else
    ``role: content``."""
    text = message.content or ""
    return text if _role(message) == "system" else f"{_role(message)}: {text}"


def _shutdown(loop: asyncio.AbstractEventLoop, chat_store: Any, state: StateFolder) -> None:
    """Dispose of the chat store's engine, close the event loop, remove a temporary state folder."""
    try:
        engine = getattr(chat_store, "_async_engine", None)
        if engine is not None and not loop.is_closed():
            loop.run_until_complete(engine.dispose())
    finally:
        loop.close()
        state.cleanup()
