"""Dense vector memory: faiss over sentence embeddings (MEME paper's dense).

Exact search by default: ``IndexIDMap2`` over ``IndexFlatIP`` on unit vectors (inner product =
cosine); HNSW as an option. Sessions are stored as MEME chunks, like BM25.

A memory longer than the embedding window is split into overlapping token windows, each embedded
separately; a memory scores as its best window. The MEME reference splits only above 8,000 tokens
(text-embedding-3-small's limit); all-MiniLM-L6-v2 reads just 256 word pieces and silently truncates
the rest, so the default window here is 200 cl100k tokens. Set ``window_tokens=8000`` for the
reference's behaviour with a long-context embedder.

Embedding is deferred: ``store`` keeps the new memories' texts pending and the first call that needs
vectors (``search``, ``update``, ``delete``, ``finalize``, ``save``) embeds everything pending in one
batched call. A benchmark feeds memories one session (~20 turns) at a time; embedding each session
on its own padded every batch to that session's longest turn and ran at 70 % of one
``SentenceTransformer.encode`` over the same texts (perf/bench_locomo.py). Vectors equal the
per-session ones up to float rounding of the padded batch.

Queries announced through ``prepare_queries`` are encoded the same way, in one batched call; their
vectors are kept for the namespace's searches until it is reset. One forward pass per question cost a
benchmark that asks its questions one by one (and ranks the whole chat besides retrieving) several
times the documents' own encoding on a crowded CPU (perf/bench_realtalk.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import faiss
import numpy as np

from memsuite.memory_systems.base import MemorySystem
from memsuite.memory_systems.embedder import Embedder
from memsuite.memory_systems.errors import InvalidInputError
from memsuite.memory_systems.records import Hit, MemoryRecord, Usage
from memsuite.memory_systems.registry import register
from memsuite.memory_systems.store import RecordStore, check_namespace, check_text
from memsuite.memory_systems.tokens import fits_in_tokens, split_by_tokens
from memsuite.memory_systems.vector_index import INDEX_KINDS, VectorIndex, load_indexes, save_indexes


@register("dense")
class DenseMemory(MemorySystem):
    """Vector memory: faiss exact inner-product search over normalised embeddings.

    Args:
        embedder: The embedder to use; default the offline all-MiniLM-L6-v2 without disk cache.
        top_k: Default number of hits of :meth:`retrieve`.
        index: "flat" (exact, default) or "hnsw" (approximate).
        hnsw_m: HNSW graph degree.
        window_tokens: Longest text embedded as one vector, in cl100k tokens.
        window_overlap: Tokens shared by consecutive windows.
    """

    name = "dense"

    def __init__(
        self,
        *,
        embedder: Embedder | None = None,
        top_k: int = 5,
        index: str = "flat",
        hnsw_m: int = 32,
        window_tokens: int = 200,
        window_overlap: int = 40,
    ) -> None:
        super().__init__(top_k=top_k)
        if index not in INDEX_KINDS:
            raise InvalidInputError(f"dense index must be one of {INDEX_KINDS}, got {index!r}")
        if not 0 <= window_overlap < window_tokens:
            raise InvalidInputError(
                f"need 0 <= window_overlap < window_tokens, got {window_overlap}, {window_tokens}"
            )
        self.embedder = (embedder or Embedder()).account()  # its own view: exact usage
        self.index_kind, self.hnsw_m = index, hnsw_m
        self.window_tokens, self.window_overlap = window_tokens, window_overlap
        self._records = RecordStore()
        self._indexes: dict[str, VectorIndex] = {}
        # Namespace -> records stored but not embedded yet (see the module docstring).
        self._pending: dict[str, list[MemoryRecord]] = {}
        # Namespace -> query text -> its vector, for the queries announced by prepare_queries.
        self._query_vectors: dict[str, dict[str, np.ndarray]] = {}

    def params(self) -> dict[str, Any]:
        return {
            "top_k": self.top_k,
            "index": self.index_kind,
            "hnsw_m": self.hnsw_m,
            "window_tokens": self.window_tokens,
            "window_overlap": self.window_overlap,
            "embedder": self.embedder.model_name,
            "faiss_version": faiss.__version__,
        }

    def usage(self) -> Usage:
        usage = self._usage
        usage.embedding_calls = self.embedder.usage.embedding_calls
        usage.embedded_texts = self.embedder.usage.embedded_texts
        return usage

    def _index(self, namespace: str) -> VectorIndex:
        index = self._indexes.get(namespace)
        if index is None:
            index = self._indexes[namespace] = VectorIndex(self.embedder.dim, self.index_kind, self.hnsw_m)
        return index

    def _embed_windows(self, texts: list[str]) -> tuple[np.ndarray, list[int]]:
        """All windows of all texts encoded in one batched call, and the window count per text."""
        windows = [
            [t]
            if fits_in_tokens(t, self.window_tokens)
            else split_by_tokens(t, max_tokens=self.window_tokens, overlap=self.window_overlap)
            for t in texts
        ]
        return self.embedder.encode([w for ws in windows for w in ws]), [len(ws) for ws in windows]

    def store(
        self,
        items: Sequence[str],
        *,
        namespace: str = "default",
        metadata: Sequence[dict[str, Any]] | None = None,
    ) -> list[str]:
        added = self._records.add(items, namespace, metadata)  # validates the whole batch first
        self._pending.setdefault(namespace, []).extend(added)
        return [r.id for r in added]

    def _flush(self, namespace: str) -> None:
        """Embed and index every memory of ``namespace`` stored since the last flush, in one call."""
        pending = self._pending.pop(namespace, None)
        if pending:
            vectors, counts = self._embed_windows([r.text for r in pending])
            self._index(namespace).add([int(r.id) for r in pending], vectors, counts)

    def finalize(self, *, namespace: str = "default") -> None:
        self._flush(namespace)

    def _prepare_queries(self, queries: list[str], *, namespace: str) -> None:
        known = self._query_vectors.setdefault(namespace, {})
        fresh = [q for q in dict.fromkeys(queries) if q not in known]
        known.update(zip(fresh, self.embedder.encode(fresh), strict=True))

    def _ranked(self, query: str, k: int, namespace: str) -> list[tuple[int, float]]:
        """The best ``k`` memories of ``namespace`` as (memory id, score), best first."""
        self._flush(namespace)
        index = self._indexes.get(namespace)
        if index is None or index.index.ntotal == 0:
            return []
        prepared = self._query_vectors.get(namespace, {}).get(query)
        query_vector = self.embedder.encode([query]) if prepared is None else prepared[None, :]
        return index.search(query_vector, k)

    def _search(self, query: str, *, k: int, namespace: str) -> list[Hit]:
        hits = []
        for memory_id, score in self._ranked(query, k, namespace):
            record = self._records.get(str(memory_id), namespace)
            hits.append(Hit(record.id, record.text, score, record.metadata))
        return hits

    def _ranked_ids(self, query: str, *, namespace: str) -> list[str]:
        # Every indexed memory, without a record look-up and a hit for each.
        count = self._records.count(namespace)
        return [str(memory_id) for memory_id, _ in self._ranked(query, count, namespace)] if count else []

    def update(self, memory_id: str, text: str, *, namespace: str = "default") -> None:
        self._records.get(memory_id, namespace)
        check_text(text)
        self._flush(namespace)
        vectors, counts = self._embed_windows([text])
        self._records.replace(memory_id, text, namespace)
        index = self._indexes[namespace]
        index.remove(int(memory_id))
        index.add([int(memory_id)], vectors, counts)

    def delete(self, memory_id: str, *, namespace: str = "default") -> None:
        self._records.get(memory_id, namespace)  # an unknown id raises before anything changes
        self._flush(namespace)
        record = self._records.remove(memory_id, namespace)
        self._indexes[namespace].remove(int(record.id))

    def records(self, *, namespace: str = "default") -> list[MemoryRecord]:
        return self._records.list(namespace)

    def reset(self, *, namespace: str | None = None) -> None:
        if namespace is None:
            self._indexes.clear()
            self._pending.clear()
            self._query_vectors.clear()
        else:
            self._indexes.pop(check_namespace(namespace), None)
            self._pending.pop(namespace, None)
            self._query_vectors.pop(namespace, None)
        self._records.clear(namespace)

    def _save_state(self, folder: Path) -> None:
        for namespace in list(self._pending):
            self._flush(namespace)
        self._records.dump(folder / "records.jsonl")
        save_indexes(folder, self._indexes)

    @classmethod
    def _load_state(cls, folder: Path, params: dict[str, Any], **kwargs: Any) -> DenseMemory:
        settings = {k: params[k] for k in ("top_k", "index", "hnsw_m", "window_tokens", "window_overlap")}
        # kwargs may hold every shared resource of a run (llm, ...): take only what dense uses.
        settings.update({k: v for k, v in kwargs.items() if k in settings})
        system = cls(embedder=kwargs.get("embedder"), **settings)
        if system.embedder.model_name != params["embedder"]:
            raise InvalidInputError(
                f"{folder} was built with embedder {params['embedder']!r}, not {system.embedder.model_name!r}"
            )
        system._records = RecordStore.load(folder / "records.jsonl")
        system._indexes = load_indexes(folder, system.embedder.dim, system.index_kind, system.hnsw_m)
        return system
