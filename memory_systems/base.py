"""The memory-system contract (README: The contract).

Only the four verbs are abstract (searching is :meth:`MemorySystem._search`: the contract's
:meth:`~MemorySystem.search` checks its inputs once and calls it). Everything around them has a sound
default, so a method added to the contract later breaks no existing system.
"""

from __future__ import annotations

import functools
import inspect
import json
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar

from memsuite.memory_systems.errors import InvalidInputError
from memsuite.memory_systems.persist import atomic_dir, resolve_dir
from memsuite.memory_systems.records import (
    Document,
    Hit,
    IngestReport,
    MemoryRecord,
    RetrievalResult,
    Session,
    Usage,
)
from memsuite.memory_systems.registry import get_factory
from memsuite.memory_systems.store import check_k, check_namespace, check_query, check_session

#: How retrieved memories are joined into one context string (the MEME reference's separator).
CONTEXT_SEPARATOR = "\n\n---\n\n"
#: The context handed to the answer LLM when nothing was retrieved (MEME reference).
NO_MEMORY = "(no memory)"
#: The hit metadata holding the line a library wrote for that hit, where its context is those lines
#: joined rather than the hits' texts (A-MEM's related notes): the driver's budget keeps whole lines.
ENTRY = "entry"
#: Version of the on-disk layout written by :meth:`MemorySystem.save`.
SAVE_FORMAT_VERSION = 1
#: Constructor arguments that are shared objects handed over by a run, not settings of the system.
SHARED_RESOURCES = ("embedder", "llm")


class MemorySystem(ABC):
    """A memory for an LLM agent behind store / search / update / delete.

    Semantics every implementation honours (checked by ``tests/memory_systems/test_contract.py`` for
    every registered system): namespaces isolate; delete removes from every index; update replaces;
    save/load round-trips; bad input raises a :class:`~memsuite.memory_systems.errors.MemsuiteError` and
    changes nothing; ``retrieve`` performs exactly one native retrieval.
    """

    name: ClassVar[str] = "memory_system"
    """Registry name of the system."""
    top_k: int = 5
    """Hits of :meth:`search` and :meth:`retrieve` when the caller passes no ``k``."""
    ranks_by_query: ClassVar[bool] = True
    """Whether :meth:`search` ranks memories by the query and :meth:`retrieve` hands over the best ``k``.
    False for a library whose retrieval is its whole memory (LlamaIndex's fact block puts every fact in
    the prompt): its search returns up to ``k`` memories in the library's own order, and its retrieve
    the library's whole context, whatever ``k``. The contract tests check ranking only where this holds."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Record, for every instance, the arguments its class's constructor was called with."""
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if init is None or getattr(init, "_records_settings", False):
            return

        @functools.wraps(init)
        def recording_init(self: MemorySystem, *args: Any, **kw: Any) -> None:
            if "_settings" not in self.__dict__:  # the outermost constructor's call is the one made
                self._settings = _settings_of(init, self, args, kw)
            init(self, *args, **kw)

        recording_init._records_settings = True  # type: ignore[attr-defined]
        cls.__init__ = recording_init  # type: ignore[method-assign]

    def __init__(self, *, top_k: int = 5) -> None:
        self._usage = Usage()
        self.top_k = check_k(top_k)

    # -- the four verbs --------------------------------------------------------------------------
    @abstractmethod
    def store(
        self,
        items: Sequence[str],
        *,
        namespace: str = "default",
        metadata: Sequence[dict[str, Any]] | None = None,
    ) -> list[str]:
        """Add memories.

        Args:
            items: Memory texts (a list; a bare string is refused).
            namespace: Isolation scope.
            metadata: Optional metadata per item.

        Returns:
            The new memories' ids, in input order.

        Raises:
            InvalidInputError: An item is not a non-empty string; nothing is stored.
        """

    def search(self, query: str, *, k: int | None = None, namespace: str = "default") -> list[Hit]:
        """Up to ``k`` memories of ``namespace``, best first (``k`` default :attr:`top_k`).

        Raises:
            InvalidInputError: ``k`` not a positive int, an empty or over-long query, a bad namespace.
        """
        k = self._checked(query, k, namespace, what="query")
        return self._search(query, k=k, namespace=namespace)

    @abstractmethod
    def _search(self, query: str, *, k: int, namespace: str) -> list[Hit]:
        """Up to ``k`` memories of ``namespace``, best first; the inputs are already checked."""

    def ranked_ids(self, query: str, *, namespace: str = "default") -> list[str]:
        """The ids of the memories :meth:`search` returns with ``k`` = every memory of ``namespace``
        (:meth:`records`), in its order: a benchmark's whole ranking without one hit per memory.

        Raises:
            InvalidInputError: An empty or over-long query, a bad namespace.
            NotImplementedError: The system does not list its records.
        """
        self._checked(query, None, namespace, what="query")
        return self._ranked_ids(query, namespace=namespace)

    def _ranked_ids(self, query: str, *, namespace: str) -> list[str]:
        """:meth:`ranked_ids` after its checks. Default: one search at k = every record. A system
        that ranks from arrays overrides it to skip building a hit per memory."""
        count = len(self.records(namespace=namespace))
        return [hit.id for hit in self._search(query, k=count, namespace=namespace)] if count else []

    @abstractmethod
    def update(self, memory_id: str, text: str, *, namespace: str = "default") -> None:
        """Replace a memory's text; the old text is never returned again.

        Raises:
            UnknownMemoryError: No such id in ``namespace``.
            InvalidInputError: ``text`` is empty or not a string.
        """

    @abstractmethod
    def delete(self, memory_id: str, *, namespace: str = "default") -> None:
        """Remove a memory from the store and from every index.

        Raises:
            UnknownMemoryError: No such id in ``namespace``.
        """

    # -- lifecycle with defaults -----------------------------------------------------------------
    def records(self, *, namespace: str = "default") -> list[MemoryRecord]:
        """All current memories of a namespace (used by the default :meth:`snapshot`)."""
        raise NotImplementedError(f"{type(self).__name__} does not list its records; override snapshot()")

    def ingest_session(self, session: Session, *, namespace: str = "default") -> IngestReport:
        """Process one session natively. Default: store the session's documents as the benchmark laid
        them out (:attr:`Session.documents`; an empty one holds nothing to find and is skipped), else one
        ``"role: content"`` document per non-empty turn."""
        check_session(session)
        started = time.perf_counter()
        given = session.documents if session.documents is not None else turn_documents(session)
        documents = [d for d in given if d.text.strip()]
        with self.timed("ingest"):
            ids = (
                self.store(
                    [d.text for d in documents],
                    namespace=namespace,
                    metadata=[dict(d.metadata) for d in documents],
                )
                if documents
                else []
            )
        return IngestReport(session.session_id, added=len(ids), wall_s=time.perf_counter() - started)

    def finalize(self, *, namespace: str = "default") -> None:  # noqa: B027 - optional hook
        """Called once after a batch of sessions, before questions (MEME protocol). Default: nothing."""

    def prepare_queries(self, queries: Sequence[str], *, namespace: str = "default") -> None:
        """Announce the queries about to be searched or retrieved in ``namespace`` (after
        :meth:`finalize`), so that a system may do their per-query work at once, timed as the phase
        "retrieve". Answers are those of the same calls unannounced, scores up to float rounding (dense
        encodes the queries in one padded batch); only their cost moves.

        A benchmark that knows its questions up front calls it once per unit: asked one at a time, a
        small per-query step (dense: one forward pass per question) costs far more than one batched
        call over the same queries.

        Raises:
            InvalidInputError: ``queries`` not a list of queries (:meth:`search`), a bad namespace.
        """
        if isinstance(queries, str) or not isinstance(queries, Sequence):
            raise InvalidInputError(f"queries must be a list of strings, got {type(queries).__name__}")
        for i, query in enumerate(queries):
            check_query(query, what=f"query {i}")
        check_namespace(namespace)
        with self.timed("retrieve"):
            self._prepare_queries(list(queries), namespace=namespace)

    def _prepare_queries(self, queries: list[str], *, namespace: str) -> None:  # noqa: B027 - optional
        """:meth:`prepare_queries` after its checks. Default: nothing (each query does its own work)."""

    def retrieve(self, question: str, *, k: int | None = None, namespace: str = "default") -> RetrievalResult:
        """The context for the answer LLM and the hits behind it (``k`` default :attr:`top_k`), timed
        as the phase "retrieve".

        Raises:
            InvalidInputError: ``k`` not a positive int, an empty or over-long question, a bad namespace.
        """
        k = self._checked(question, k, namespace, what="question")
        with self.timed("retrieve"):
            return self._retrieve(question, k=k, namespace=namespace)

    def _retrieve(self, question: str, *, k: int, namespace: str) -> RetrievalResult:
        """:meth:`retrieve` after its checks. Default: one search, the hits joined by
        :data:`CONTEXT_SEPARATOR`, or :data:`NO_MEMORY` when nothing was found."""
        hits = self._search(question, k=k, namespace=namespace)
        return RetrievalResult(
            CONTEXT_SEPARATOR.join(hit.text for hit in hits) if hits else NO_MEMORY, tuple(hits)
        )

    def _checked(self, text: object, k: int | None, namespace: object, *, what: str) -> int:
        """The checked ``k`` (:attr:`top_k` when None), after checking ``text`` and ``namespace``."""
        check_query(text, what=what)
        check_namespace(namespace)
        return check_k(self.top_k if k is None else k)

    def snapshot(self, *, namespace: str = "default") -> str:
        """The whole memory of a namespace as text, one memory per block."""
        return "\n\n".join(record.text for record in self.records(namespace=namespace))

    def namespaces(self) -> list[str]:
        """Namespaces holding memories (used by the default :meth:`reset`)."""
        raise NotImplementedError(f"{type(self).__name__} does not list its namespaces; override reset()")

    def reset(self, *, namespace: str | None = None) -> None:
        """Forget one namespace, or everything when ``namespace`` is None. Default: delete every record
        :meth:`records` lists, in ``namespace`` or in each of :meth:`namespaces`."""
        for scope in [namespace] if namespace is not None else self.namespaces():
            for record in self.records(namespace=scope):
                self.delete(record.id, namespace=scope)

    def usage(self) -> Usage:
        """Resource use so far (LLM calls and tokens, embeddings, wall time per phase)."""
        return self._usage

    def settings(self) -> dict[str, Any]:
        """The arguments the system was constructed with, defaults filled in (JSON-able values only;
        shared resources such as the embedder and the LLM client are left out)."""
        return dict(self.__dict__.get("_settings", {}))

    def params(self) -> dict[str, Any]:
        """JSON-able construction parameters: recorded in run headers and saved stores (``load`` hands
        them to :meth:`_load_state`). Default: :meth:`settings`."""
        return self.settings()

    @contextmanager
    def timed(self, phase: str) -> Iterator[None]:
        """Add the wall time of the block to ``usage().wall_s[phase]`` (outermost block only)."""
        if getattr(self, "_timing", False):
            yield
            return
        self._timing = True
        started = time.perf_counter()
        try:
            yield
        finally:
            self._timing = False
            self._usage.wall_s[phase] = self._usage.wall_s.get(phase, 0.0) + time.perf_counter() - started

    # -- persistence -----------------------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        """Write the whole store to folder ``path`` atomically (a failed save keeps the old one)."""
        with atomic_dir(Path(path)) as folder:
            header = {"system": self.name, "format_version": SAVE_FORMAT_VERSION, "params": self.params()}
            (folder / "memsuite.json").write_text(json.dumps(header, indent=2), encoding="utf-8")
            self._save_state(folder)

    @classmethod
    def load(cls, path: str | Path, **kwargs: Any) -> MemorySystem:
        """Read a store written by :meth:`save`. ``kwargs`` supply what is not saved (an embedder).

        ``MemorySystem.load(path)`` opens any saved store: the class is looked up in the registry by
        the name the store records. A subclass's ``load`` opens only its own stores.
        """
        folder = resolve_dir(Path(path))
        header = json.loads((folder / "memsuite.json").read_text(encoding="utf-8"))
        stored = header.get("system")
        target = cls
        if cls is MemorySystem:
            target = get_factory(str(stored))
            if not (isinstance(target, type) and issubclass(target, MemorySystem)):
                raise InvalidInputError(f"{folder}: {stored!r} is registered as a function, not a class")
        if stored != target.name:
            raise InvalidInputError(f"{folder} holds a '{stored}' store, not '{target.name}'")
        return target._load_state(folder, header["params"], **kwargs)

    def _save_state(self, folder: Path) -> None:
        raise NotImplementedError(f"{type(self).__name__} does not implement save()")

    @classmethod
    def _load_state(cls, folder: Path, params: dict[str, Any], **kwargs: Any) -> MemorySystem:
        raise NotImplementedError(f"{cls.__name__} does not implement load()")


def _settings_of(init: Any, system: MemorySystem, args: tuple, kwargs: dict[str, Any]) -> dict[str, Any]:
    """The JSON-able arguments of one constructor call, defaults filled in, shared resources left out."""
    try:
        bound = inspect.signature(init).bind(system, *args, **kwargs)
    except TypeError:
        return {}  # the call itself fails on these arguments and says why
    bound.apply_defaults()
    values: dict[str, Any] = {}
    for name, parameter in list(inspect.signature(init).parameters.items())[1:]:
        given = bound.arguments.get(name)
        if parameter.kind is inspect.Parameter.VAR_KEYWORD:
            values.update(given or {})
        elif parameter.kind is not inspect.Parameter.VAR_POSITIONAL:
            values[name] = given
    settings = {}
    for name, value in values.items():
        if name in SHARED_RESOURCES:
            continue
        try:
            settings[name] = json.loads(json.dumps(value))
        except (TypeError, ValueError):
            continue  # an object, not a setting: it cannot be saved, so load() needs it passed again
    return settings


def turn_documents(session: Session) -> tuple[Document, ...]:
    """One ``"role: content"`` document per non-empty turn: the layout when a benchmark sets none."""
    return tuple(
        Document(f"{turn.role}: {turn.content}", dict(turn.metadata), turn=index)
        for index, turn in enumerate(session.turns)
        if turn.content.strip()
    )
