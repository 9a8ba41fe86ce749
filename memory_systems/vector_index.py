"""A faiss index of memories keyed by integer memory id, shared by every vector-backed system.

Exact search by default: ``IndexIDMap2`` over ``IndexFlatIP`` on unit vectors (inner product =
cosine); HNSW as an option (MEME paper's dense). A memory may own several vectors (token windows of a
long text): vector id = memory id * :data:`WINDOW_SLOTS` + window number, and a memory scores as its
best window. Systems with one vector per memory (extracted facts, graph edges) simply add one each.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

import faiss
import numpy as np

from memsuite.memory_systems.persist import read_jsonl, write_jsonl

#: Vector id = memory id * WINDOW_SLOTS + window number, so a hit maps back to its memory by division.
WINDOW_SLOTS = 1 << 16
INDEX_KINDS = ("flat", "hnsw")


@contextmanager
def one_faiss_thread() -> Iterator[None]:
    """Search one query on one OpenMP thread, then restore the previous setting.

    For a single query faiss's OpenMP threads cost more than they save, and their spinning slows the
    next torch call too: at 105K vectors on 2 cores a query takes 22 ms on 2 threads vs 6 ms on one
    (perf/bench_retrieval.py measures the end-to-end effect).
    """
    previous = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(1)
    try:
        yield
    finally:
        faiss.omp_set_num_threads(previous)


class VectorIndex:
    """One namespace's faiss index, keyed by memory id (ids must be non-negative ints).

    Args:
        dim: Vector dimension.
        kind: "flat" (exact) or "hnsw" (approximate).
        hnsw_m: HNSW graph degree.
    """

    def __init__(self, dim: int, kind: str = "flat", hnsw_m: int = 32) -> None:
        self.dim, self.kind, self.hnsw_m = dim, kind, hnsw_m
        self.index = faiss.IndexIDMap2(self._inner())
        self.windows: dict[int, int] = {}  # memory id -> number of window vectors

    def __len__(self) -> int:
        """Number of memories (not vectors) in the index."""
        return len(self.windows)

    def __contains__(self, memory_id: int) -> bool:
        return memory_id in self.windows

    def _inner(self) -> faiss.Index:
        if self.kind == "flat":
            return faiss.IndexFlatIP(self.dim)
        return faiss.IndexHNSWFlat(self.dim, self.hnsw_m, faiss.METRIC_INNER_PRODUCT)

    def add(
        self, memory_ids: Sequence[int], vectors: np.ndarray, counts: Sequence[int] | None = None
    ) -> None:
        """Add memories' vectors in one faiss call.

        Args:
            memory_ids: The memories, each not yet in the index.
            vectors: Their vectors, ``counts[i]`` consecutive rows per memory, unit-norm float32.
            counts: Window vectors per memory; default one each.
        """
        counts = [1] * len(memory_ids) if counts is None else list(counts)
        counts_arr = np.asarray(counts, dtype=np.int64)
        starts = np.repeat(np.cumsum(counts_arr) - counts_arr, counts_arr)
        window = np.arange(len(vectors), dtype=np.int64) - starts
        ids = np.repeat(np.asarray(memory_ids, dtype=np.int64) * WINDOW_SLOTS, counts_arr) + window
        self.index.add_with_ids(vectors, ids)
        self.windows.update(zip(memory_ids, counts, strict=True))

    def remove(self, memory_id: int) -> None:
        """Drop every vector of a memory (KeyError if it is not in the index)."""
        count = self.windows.pop(memory_id)
        ids = memory_id * WINDOW_SLOTS + np.arange(count, dtype=np.int64)
        if self.kind == "flat":
            removed = self.index.remove_ids(ids)
            assert removed == count, f"faiss removed {removed} of {count} vectors of memory {memory_id}"
            return
        # HNSW graphs cannot drop nodes: rebuild from the remaining stored vectors.
        kept = faiss.vector_to_array(self.index.id_map)
        kept = kept[~np.isin(kept, ids)]
        vectors = np.stack([self.index.reconstruct(int(i)) for i in kept]) if len(kept) else None
        self.index = faiss.IndexIDMap2(self._inner())
        if vectors is not None:
            self.index.add_with_ids(vectors, kept)

    def search(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        """Best ``k`` memories as (memory id, best window score), widening the window search as needed.

        Equal scores rank the earlier-stored memory first (the lower id), as bm25 does: faiss leaves
        the order of ties to its heap, and identical texts (a turn repeated in a conversation) tie
        exactly. The search widens until every vector tying with the k-th memory has been fetched,
        so a tie at the cut-off also goes to the earlier memory.

        Args:
            query: One query vector, shape ``(1, dim)``.
            k: Memories wanted.
        """
        total = self.index.ntotal
        if total == 0 or k <= 0:
            return []
        fetch = min(total, k * 4)
        while True:
            with one_faiss_thread():
                scores, ids = self.index.search(query, fetch)
            found = sorted(
                (-float(score), int(vid)) for vid, score in zip(ids[0], scores[0], strict=True) if vid >= 0
            )
            best: dict[int, float] = {}
            for negated, vid in found:
                best.setdefault(vid // WINDOW_SLOTS, -negated)
            chosen = list(best.items())[:k]
            # Unfetched vectors score at most the lowest fetched one: the top k is settled once the
            # k-th memory beats it.
            settled = len(chosen) == k and chosen[-1][1] > -found[-1][0]
            if settled or fetch >= total:
                return chosen
            fetch = min(total, fetch * 4)


def save_indexes(folder: Path, indexes: Mapping[str, VectorIndex]) -> None:
    """Write one faiss file per namespace and ``indexes.jsonl`` naming them (inside an atomic save)."""
    rows = []
    for n, (namespace, index) in enumerate(indexes.items()):
        faiss.write_index(index.index, str(folder / f"index-{n}.faiss"))
        rows.append({"namespace": namespace, "file": f"index-{n}.faiss", "windows": index.windows})
    write_jsonl(folder / "indexes.jsonl", rows)


def load_indexes(folder: Path, dim: int, kind: str = "flat", hnsw_m: int = 32) -> dict[str, VectorIndex]:
    """Read what :func:`save_indexes` wrote: namespace -> index."""
    indexes = {}
    for row in read_jsonl(folder / "indexes.jsonl"):
        index = VectorIndex(dim, kind, hnsw_m)
        index.index = faiss.read_index(str(folder / row["file"]))
        index.windows = {int(k): v for k, v in row["windows"].items()}
        indexes[row["namespace"]] = index
    return indexes
