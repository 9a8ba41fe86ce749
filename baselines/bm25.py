"""BM25 over MEME chunks with bm25s (DESIGN.md §4 BM25).

bm25s indexes are immutable, so the corpus is kept per namespace and the index rebuilt lazily on the
first search after a change. Tokenisation is ``bm25s.tokenize`` with its defaults (lower-case, no stop
words, no stemmer) for corpus and query alike, method "lucene", k = min(top_k, number of chunks): the
retrieved context is then byte-identical to the MEME reference implementation's.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import bm25s
import numpy as np

from memory_systems.base import MemorySystem
from memory_systems.records import Hit, MemoryRecord
from memory_systems.registry import register
from memory_systems.store import RecordStore, check_k, check_namespace, check_text


class _Index:
    """A built bm25s index over one namespace's records, in record order."""

    def __init__(self, records: list[MemoryRecord]) -> None:
        self.records = records
        self.retriever = bm25s.BM25(method="lucene")
        tokens = bm25s.tokenize([r.text for r in records], show_progress=False)
        self.retriever.index(tokens, show_progress=False)

    def search(self, query: str, k: int) -> list[Hit]:
        k = min(k, len(self.records))
        query_tokens = bm25s.tokenize([query], show_progress=False)
        # A query whose every token is unknown to the corpus scores every document 0 (bm25s
        # raises on an empty query instead): nothing matches, so nothing is returned.
        known = set(self.retriever.vocab_dict)
        if not any(token in known for token in query_tokens.vocab):
            return []
        docs, scores = self.retriever.retrieve(query_tokens, k=k, show_progress=False, n_threads=1)
        hits = []
        for doc, score in zip(np.asarray(docs[0]), np.asarray(scores[0]), strict=True):
            record = self.records[int(doc)]
            hits.append(Hit(record.id, record.text, float(score), record.metadata))
        return hits


@register("bm25")
class BM25Memory(MemorySystem):
    """Lexical memory: bm25s (lucene) over stored texts; sessions stored as MEME chunks.

    Args:
        top_k: Default number of hits of :meth:`retrieve` when the caller passes no ``k``.
    """

    name = "bm25"

    def __init__(self, *, top_k: int = 5) -> None:
        super().__init__()
        self.top_k = check_k(top_k)
        self._records = RecordStore()
        self._indexes: dict[str, _Index] = {}

    def params(self) -> dict[str, Any]:
        return {"top_k": self.top_k, "method": "lucene", "bm25s_version": bm25s.__version__}

    def store(
        self,
        items: Sequence[str],
        *,
        namespace: str = "default",
        metadata: Sequence[dict[str, Any]] | None = None,
    ) -> list[str]:
        added = self._records.add(items, namespace, metadata)
        self._indexes.pop(namespace, None)
        return [r.id for r in added]

    def search(self, query: str, *, k: int | None = None, namespace: str = "default") -> list[Hit]:
        check_text(query, what="query")
        k = check_k(self.top_k if k is None else k)
        records = self._records.list(namespace)
        if not records:
            return []
        index = self._indexes.get(namespace)
        if index is None:
            index = self._indexes[namespace] = _Index(records)
        return index.search(query, k)

    def retrieve(self, question: str, *, k: int | None = None, namespace: str = "default") -> str:
        return super().retrieve(question, k=self.top_k if k is None else k, namespace=namespace)

    def update(self, memory_id: str, text: str, *, namespace: str = "default") -> None:
        self._records.replace(memory_id, text, namespace)
        self._indexes.pop(namespace, None)

    def delete(self, memory_id: str, *, namespace: str = "default") -> None:
        self._records.remove(memory_id, namespace)
        self._indexes.pop(namespace, None)

    def records(self, *, namespace: str = "default") -> list[MemoryRecord]:
        return self._records.list(namespace)

    def reset(self, *, namespace: str | None = None) -> None:
        if namespace is not None:
            check_namespace(namespace)
        self._records.clear(namespace)
        if namespace is None:
            self._indexes.clear()
        else:
            self._indexes.pop(namespace, None)

    def _save_state(self, folder: Path) -> None:
        # The index is rebuilt on load: bm25s indexing is deterministic, so results are identical.
        self._records.dump(folder / "records.jsonl")

    @classmethod
    def _load_state(cls, folder: Path, params: dict[str, Any], **kwargs: Any) -> BM25Memory:
        system = cls(top_k=kwargs.get("top_k", params["top_k"]))
        system._records = RecordStore.load(folder / "records.jsonl")
        return system
