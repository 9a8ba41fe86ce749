"""``flat_bm25``: LongMemEval's official lexical baseline, reproduced exactly.

LongMemEval's retrieval code (``src/retrieval/run_retrieval.py``, retriever ``flat-bm25``) builds a
``rank_bm25.BM25Okapi`` over the question's corpus with each document split on single spaces (no
lowercasing, no other tokenisation), scores the question split the same way, and ranks by numpy's
``argsort`` of the scores, reversed (ties therefore in that order). This system does exactly that over
the memories of a namespace, in corpus order -- by the ``corpus_index`` metadata the LongMemEval
protocol gives each document, else in insertion order -- so its ranking matches the official one
document for document, ties included, whatever order the sessions were ingested in.

It indexes what it is given as is, empty documents included (the official corpus holds sessions
without user text, and they count in BM25's document statistics); every other system skips them.
The BM25 model is rebuilt on the first search after a change. Needs ``rank_bm25`` (the ``longmemeval``
extra).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from memsuite.memory_systems.base import MemorySystem
from memsuite.memory_systems.errors import require
from memsuite.memory_systems.records import Hit, IngestReport, MemoryRecord, Session
from memsuite.memory_systems.registry import register
from memsuite.memory_systems.store import RecordStore, check_namespace, check_session

#: Marks a blank document inside the record store, which holds only texts with content.
_BLANK = "\x00"


@register("flat_bm25")
class FlatBM25Memory(MemorySystem):
    """rank_bm25's BM25Okapi over space-split documents, ranked by reversed ``np.argsort``."""

    name = "flat_bm25"

    def __init__(self) -> None:
        super().__init__()
        self._records = RecordStore()
        self._models: dict[str, tuple[Any, list[MemoryRecord]]] = {}

    def store(
        self,
        items: Sequence[str],
        *,
        namespace: str = "default",
        metadata: Sequence[dict[str, Any]] | None = None,
    ) -> list[str]:
        ids = [r.id for r in self._records.add(items, namespace, metadata)]
        self._models.pop(namespace, None)
        return ids

    def ingest_session(self, session: Session, *, namespace: str = "default") -> IngestReport:
        """Store the session's documents in order, empty ones included (module docstring); without a
        layout, one document per turn."""
        check_session(session)
        check_namespace(namespace)
        documents = session.documents
        if documents is None:
            return super().ingest_session(session, namespace=namespace)
        started = time.perf_counter()
        with self.timed("ingest"):
            texts = [d.text if d.text.strip() else _BLANK + d.text for d in documents]
            ids = (
                self.store(texts, namespace=namespace, metadata=[dict(d.metadata) for d in documents])
                if texts
                else []
            )
        return IngestReport(session.session_id, added=len(ids), wall_s=time.perf_counter() - started)

    def _search(self, query: str, *, k: int, namespace: str) -> list[Hit]:
        model, records = self._model(namespace)
        if model is None:
            return []
        scores = model.get_scores(query.split(" "))
        order = np.argsort(scores)[::-1][:k]
        return [
            Hit(records[i].id, _text(records[i]), float(scores[i]), dict(records[i].metadata)) for i in order
        ]

    def _model(self, namespace: str) -> tuple[Any, list[MemoryRecord]]:
        if namespace not in self._models:
            records = self._records.list(namespace)
            if not records:
                return None, []
            if all("corpus_index" in (r.metadata or {}) for r in records):
                records = sorted(records, key=lambda r: r.metadata["corpus_index"])
            rank_bm25 = require("rank_bm25", extra="longmemeval", purpose="the flat_bm25 system")
            model = rank_bm25.BM25Okapi([_text(r).split(" ") for r in records])
            self._models[namespace] = (model, records)
        return self._models[namespace]

    def update(self, memory_id: str, text: str, *, namespace: str = "default") -> None:
        self._records.replace(memory_id, text, namespace)
        self._models.pop(namespace, None)

    def delete(self, memory_id: str, *, namespace: str = "default") -> None:
        self._records.remove(memory_id, namespace)
        self._models.pop(namespace, None)

    def records(self, *, namespace: str = "default") -> list[MemoryRecord]:
        return [MemoryRecord(r.id, _text(r), r.namespace, r.metadata) for r in self._records.list(namespace)]

    def namespaces(self) -> list[str]:
        return self._records.namespaces()

    def reset(self, *, namespace: str | None = None) -> None:
        self._records.clear(namespace)
        if namespace is None:
            self._models.clear()
        else:
            self._models.pop(namespace, None)

    def _save_state(self, folder: Path) -> None:
        self._records.dump(folder / "records.jsonl")

    @classmethod
    def _load_state(cls, folder: Path, params: dict[str, Any], **kwargs: Any) -> FlatBM25Memory:
        system = cls()
        system._records = RecordStore.load(folder / "records.jsonl")
        return system


def _text(record: MemoryRecord) -> str:
    return record.text[1:] if record.text.startswith(_BLANK) else record.text
