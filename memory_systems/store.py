"""The record store every corpus-backed system keeps: validated, namespaced, ordered, persistable."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memsuite.memory_systems.errors import InvalidInputError, UnknownMemoryError
from memsuite.memory_systems.persist import read_jsonl, write_jsonl
from memsuite.memory_systems.records import MemoryRecord, Session


def check_namespace(namespace: object) -> str:
    """Return ``namespace`` if it is a non-empty string, else raise :class:`InvalidInputError`."""
    if not isinstance(namespace, str) or not namespace:
        raise InvalidInputError(f"namespace must be a non-empty string, got {namespace!r}")
    return namespace


def check_session(session: object) -> Session:
    """Return ``session`` if it is a :class:`Session`, else raise (what ``ingest_session`` takes)."""
    if not isinstance(session, Session):
        raise InvalidInputError(f"ingest_session takes a Session, got {type(session).__name__}")
    return session


def check_text(text: object, *, what: str = "text") -> str:
    """Return ``text`` if it is a string with some non-blank content, else raise."""
    if not isinstance(text, str):
        raise InvalidInputError(f"{what} must be a str, got {type(text).__name__}: {text!r:.80}")
    if not text.strip():
        raise InvalidInputError(f"{what} is empty")
    return text


#: Characters a query may hold: a question, not a document (a longer one is a context passed by mistake).
MAX_QUERY_CHARS = 32_000


def check_query(query: object, *, what: str = "query") -> str:
    """Return ``query`` if it is non-blank text of at most :data:`MAX_QUERY_CHARS` characters."""
    check_text(query, what=what)
    if len(query) > MAX_QUERY_CHARS:  # type: ignore[arg-type]
        raise InvalidInputError(
            f"{what} is {len(query):,} characters, over the {MAX_QUERY_CHARS:,} a query may hold"  # type: ignore[arg-type]
        )
    return query  # type: ignore[return-value]


def check_texts(items: object) -> list[str]:
    """Validate a batch for ``store``: a list/tuple of non-empty strings (a bare str is refused)."""
    if isinstance(items, str) or not isinstance(items, Sequence):
        raise InvalidInputError(
            f"store() takes a list of strings, got {type(items).__name__}; wrap a single text as [text]"
        )
    return [check_text(item, what=f"item {i}") for i, item in enumerate(items)]


def check_k(k: object, *, name: str = "k") -> int:
    """Return ``k`` if it is a positive int (``name``: the setting it is, for the message)."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InvalidInputError(f"{name} must be a positive int, got {k!r}")
    return k


def check_memory_id(memory_id: object) -> str:
    """Return ``memory_id`` if it is a string."""
    if not isinstance(memory_id, str) or not memory_id:
        raise InvalidInputError(f"memory id must be a non-empty str, got {memory_id!r}")
    return memory_id


class RecordStore:
    """Memories per namespace, in insertion order, with ids unique across namespaces.

    Ids are decimal strings of a counter that never goes back, so a deleted id is never reused and an
    index keyed by ``int(id)`` (faiss) stays consistent.
    """

    def __init__(self) -> None:
        self._by_namespace: dict[str, dict[str, MemoryRecord]] = {}
        self._next_id = 0

    def add(
        self, texts: object, namespace: str, metadata: Sequence[dict[str, Any]] | None = None
    ) -> list[MemoryRecord]:
        """Validate the whole batch first, then add it; returns the new records."""
        checked = check_texts(texts)
        check_namespace(namespace)
        if metadata is not None and len(metadata) != len(checked):
            raise InvalidInputError(f"metadata has {len(metadata)} entries for {len(checked)} texts")
        bucket = self._by_namespace.setdefault(namespace, {})
        added = []
        for i, text in enumerate(checked):
            record = MemoryRecord(str(self._next_id), text, namespace, dict(metadata[i]) if metadata else {})
            self._next_id += 1
            bucket[record.id] = record
            added.append(record)
        return added

    def get(self, memory_id: object, namespace: str) -> MemoryRecord:
        """Return a record or raise :class:`UnknownMemoryError` naming id and namespace."""
        check_memory_id(memory_id)
        check_namespace(namespace)
        record = self._by_namespace.get(namespace, {}).get(memory_id)  # type: ignore[arg-type]
        if record is None:
            raise UnknownMemoryError(f"unknown memory id {memory_id!r} in namespace {namespace!r}")
        return record

    def replace(self, memory_id: object, text: object, namespace: str) -> MemoryRecord:
        """Replace a record's text in place (its position is kept); returns the old record."""
        old = self.get(memory_id, namespace)
        new_text = check_text(text)
        self._by_namespace[namespace][old.id] = MemoryRecord(old.id, new_text, namespace, old.metadata)
        return old

    def remove(self, memory_id: object, namespace: str) -> MemoryRecord:
        """Remove a record; returns it."""
        record = self.get(memory_id, namespace)
        del self._by_namespace[namespace][record.id]
        return record

    def list(self, namespace: str) -> list[MemoryRecord]:
        """All records of a namespace in insertion order."""
        return list(self._by_namespace.get(check_namespace(namespace), {}).values())

    def count(self, namespace: str) -> int:
        """How many records a namespace holds."""
        return len(self._by_namespace.get(check_namespace(namespace), {}))

    def namespaces(self) -> list[str]:
        return [ns for ns, bucket in self._by_namespace.items() if bucket]

    def clear(self, namespace: str | None = None) -> None:
        """Forget one namespace, or everything when ``namespace`` is None."""
        if namespace is None:
            self._by_namespace.clear()
        else:
            self._by_namespace.pop(check_namespace(namespace), None)

    def dump(self, path: Path) -> None:
        """Write all records as JSON lines; the first line holds the id counter."""
        rows: list[dict[str, Any]] = [{"next_id": self._next_id}]
        rows.extend(r.to_dict() for bucket in self._by_namespace.values() for r in bucket.values())
        write_jsonl(path, rows)

    @classmethod
    def load(cls, path: Path) -> RecordStore:
        store = cls()
        rows = read_jsonl(path)
        store._next_id = int(next(rows)["next_id"])
        for row in rows:
            record = MemoryRecord.from_dict(row)
            store._by_namespace.setdefault(record.namespace, {})[record.id] = record
        return store
