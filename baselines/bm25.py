"""BM25 over MEME chunks with bm25s (MEME paper's BM25).

bm25s indexes are immutable, so the corpus is kept per namespace and the index rebuilt lazily on the
first search after a change. Tokenisation is ``bm25s.tokenize`` with its defaults (lower-case, no stop
words, no stemmer) for corpus and query alike, method "lucene", k = min(top_k, number of chunks): the
retrieved context is then byte-identical to the MEME reference implementation's.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import bm25s
import numpy as np

from memsuite.memory_systems.base import MemorySystem
from memsuite.memory_systems.records import Hit, MemoryRecord
from memsuite.memory_systems.registry import register
from memsuite.memory_systems.store import RecordStore, check_namespace

# bm25s sets its own logger to DEBUG at import and logs every index build; keep it to warnings.
logging.getLogger("bm25s").setLevel(logging.WARNING)


class _Index:
    """A built bm25s index over one namespace's records, in record order."""

    def __init__(self, records: list[MemoryRecord]) -> None:
        self.records = records
        self.retriever = bm25s.BM25(method="lucene")
        tokens = bm25s.tokenize([r.text for r in records], show_progress=False)
        self.retriever.index(tokens, show_progress=False)

    def search(self, query: str, k: int) -> list[Hit]:
        k = min(k, len(self.records))
        tokenized = bm25s.tokenize([query], show_progress=False)
        words = {i: w for w, i in tokenized.vocab.items()}
        vocab = self.retriever.vocab_dict
        # Same token ids, in the same order (duplicates kept), as BM25.retrieve uses.
        token_ids = [vocab[words[i]] for i in tokenized.ids[0] if words[i] in vocab]
        if not token_ids:
            # Every document would score 0 (bm25s raises on such a query): nothing matches.
            return []
        top_docs, top_scores = self._top_k(self._scores(token_ids), k)
        records = self.records
        # tolist(): Python ints and floats in one call (the same values as int() / float() of each
        # element); a whole-corpus ranking builds thousands of hits per query.
        chosen = [records[doc] for doc in top_docs.tolist()]
        return [
            Hit(r.id, r.text, score, r.metadata) for r, score in zip(chosen, top_scores.tolist(), strict=True)
        ]

    @staticmethod
    def _top_k(scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Indices and scores of the best ``k`` documents; ties go to the earlier document.

        bm25s selects with ``np.argpartition`` over all scores. With most scores tied (at 0, or
        between near-duplicate turns) that takes ~15 ms at 100K documents, and the order it gives
        tied documents is an artefact of numpy's introselect (it can change with the numpy version,
        so the reference's own order under ties is not reproducible). Here every score is made a
        distinct key -- its float32 bits (monotonic for scores >= 0) above the reversed document
        position -- so selection is fast and ties break by insertion order. Where the reference's
        top k is fixed by the scores alone (no ties), the result is identical to ``BM25.retrieve``
        (tests/baselines/test_bm25.py checks both cases).
        """
        positions = np.arange(len(scores), dtype=np.uint64)
        keys = (scores.astype(np.float32, copy=False).view(np.uint32).astype(np.uint64) << np.uint64(32)) | (
            np.uint64(0xFFFFFFFF) - positions
        )
        best = np.argpartition(keys, -k)[-k:]
        best = best[np.argsort(keys[best])[::-1]]
        return best, scores[best]

    def _scores(self, token_ids: list[int]) -> np.ndarray:
        """BM25 scores of every document: bm25s's sum over posting lists, without its thread pool.

        ``BM25.retrieve`` runs each query through a thread pool and ``np.add.at``; that costs ~15 ms
        per query at 100K documents. Indices within one posting list are unique, so a fancy-index
        add gives the same float32 sums in the same order, an order of magnitude faster. Selection
        uses bm25s's own ``topk``, so ties break identically and the context stays byte-identical
        to the reference (checked by tests/baselines/test_bm25.py against ``BM25.retrieve``).
        """
        index = self.retriever.scores
        data, indices, indptr = index["data"], index["indices"], index["indptr"]
        scores = np.zeros(index["num_docs"], dtype=self.retriever.dtype)
        for token in token_ids:
            start, end = indptr[token], indptr[token + 1]
            scores[indices[start:end]] += data[start:end]
        return scores


@register("bm25")
class BM25Memory(MemorySystem):
    """Lexical memory: bm25s (lucene) over stored texts; sessions stored as MEME chunks.

    Args:
        top_k: Default number of hits of :meth:`retrieve` when the caller passes no ``k``.
    """

    name = "bm25"

    def __init__(self, *, top_k: int = 5) -> None:
        super().__init__(top_k=top_k)
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

    def _search(self, query: str, *, k: int, namespace: str) -> list[Hit]:
        index = self._indexes.get(namespace)
        if index is None:
            records = self._records.list(namespace)
            if not records:
                return []
            index = self._indexes[namespace] = _Index(records)
        return index.search(query, k)

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
