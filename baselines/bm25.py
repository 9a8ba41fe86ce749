"""BM25 over MEME chunks with bm25s (MEME paper's BM25).

The index of a namespace grows with each ``store`` (each record tokenised once) and is rebuilt lazily
on the first search after an update or a delete; its scores are bm25s's, bit for bit. Tokenisation is
``bm25s.tokenize``'s defaults (lower case, its English stop words, no stemmer) for corpus and query
alike, method "lucene", k = min(top_k, number of chunks): the retrieved context is then byte-identical
to the MEME reference implementation's.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import bm25s
import numpy as np
from bm25s.scoring import _score_idf_lucene, _score_tfc_lucene
from bm25s.tokenization import _infer_stopwords

from memsuite.memory_systems.base import MemorySystem
from memsuite.memory_systems.records import Hit, MemoryRecord
from memsuite.memory_systems.registry import register
from memsuite.memory_systems.store import RecordStore, check_namespace

# bm25s sets its own logger to DEBUG at import and logs every index build; keep it to warnings.
logging.getLogger("bm25s").setLevel(logging.WARNING)

# bm25s's defaults for BM25(method="lucene"): its score dtype, k1 and b.
_DTYPE = np.float32
_K1 = 1.5
_B = 0.75

# bm25s.tokenize's defaults (scikit-learn's token pattern, lower case, its English stop words) with
# one stop-word set for all texts: bm25s.tokenize builds the set again for every text it splits.
_SPLIT = re.compile(r"(?u)\b\w\w+\b").findall
_STOPWORDS = frozenset(_infer_stopwords("english"))


def words(text: str) -> list[str]:
    """The words of ``text`` as ``bm25s.tokenize`` (defaults) gives them, in order, repeats kept."""
    return [w for w in _SPLIT(text.lower()) if w not in _STOPWORDS]


class _Index:
    """A BM25 index over one namespace's records, in record order, that grows with ``store``.

    bm25s indexes are immutable: a benchmark that asks questions while the memory grows (LifeBench
    ingests a day at a time) would re-tokenise and re-score the whole corpus at every question time.
    Here each record is tokenised once, when added, into posting lists, and a query scores only the
    posting lists of its own words with bm25s's own lucene formulas over the same operand types, so
    every score is bit-identical to the one ``BM25.index`` stores (tests/baselines/test_bm25.py checks
    it against ``BM25.retrieve``). A word's scores stay cached until the corpus grows (its document
    count and mean length change them).
    """

    def __init__(self, records: Sequence[MemoryRecord]) -> None:
        self.records: list[MemoryRecord] = []
        self._lengths: list[int] = []
        # word -> (document positions, ascending as in bm25s's columns; the word's count in each)
        self._postings: dict[str, tuple[list[int], list[int]]] = {}
        self._columns: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._length_array: np.ndarray | None = None
        self._mean_length: np.floating | None = None
        self._ids: np.ndarray | None = None
        self.add(records)

    def add(self, records: Sequence[MemoryRecord]) -> None:
        """Append records after those held, tokenised as ``BM25.index`` tokenises its corpus."""
        if not records:
            return
        postings = self._postings
        for position, doc_words in enumerate(map(words, [r.text for r in records]), start=len(self.records)):
            self._lengths.append(len(doc_words))
            for word, count in Counter(doc_words).items():
                entry = postings.get(word)
                if entry is None:
                    entry = postings[word] = ([], [])
                entry[0].append(position)
                entry[1].append(count)
        self.records.extend(records)
        self._columns.clear()
        self._length_array = self._mean_length = self._ids = None

    def _column(self, word: str) -> tuple[np.ndarray, np.ndarray] | None:
        """The documents holding ``word`` and its score in each, as ``BM25.index`` stores them."""
        column = self._columns.get(word)
        if column is not None:
            return column
        entry = self._postings.get(word)
        if entry is None:
            return None
        if self._length_array is None:
            self._length_array = np.array(self._lengths, dtype=np.int64)
            # bm25s's average: numpy's mean of the integer lengths (its pairwise summation).
            self._mean_length = np.array(self._lengths).mean()
        docs = np.array(entry[0], dtype=np.intp)
        tfc = _score_tfc_lucene(
            tf_array=np.array(entry[1], dtype=_DTYPE),
            l_d=self._length_array[docs],
            l_avg=self._mean_length,
            k1=_K1,
            b=_B,
        )
        # bm25s stores the idf as float32 and multiplies it by the float64 term-frequency part.
        idf = np.float32(_score_idf_lucene(len(entry[0]), N=len(self.records)))
        column = self._columns[word] = (docs, (idf * tfc).astype(_DTYPE))
        return column

    def _scores(self, query: str) -> np.ndarray | None:
        """BM25 scores of every document, summed in float32 over the query's words in order (repeats
        count again), as ``BM25.get_scores`` sums them; None when no word of the query is indexed
        (every document would score 0: bm25s raises on such a query)."""
        scores = None
        for word in words(query):
            column = self._column(word)
            if column is None:
                continue
            if scores is None:
                scores = np.zeros(len(self.records), dtype=_DTYPE)
            docs, values = column
            scores[docs] += values  # positions within one posting list are unique
        return scores

    def search(self, query: str, k: int) -> list[Hit]:
        scores = self._scores(query)
        if scores is None:
            return []
        top_docs, top_scores = self._top_k(scores, min(k, len(self.records)))
        records = self.records
        # tolist(): Python ints and floats in one call (the same values as int() / float() of each
        # element); a whole-corpus ranking builds thousands of hits per query.
        chosen = [records[doc] for doc in top_docs.tolist()]
        return [
            Hit(r.id, r.text, score, r.metadata) for r, score in zip(chosen, top_scores.tolist(), strict=True)
        ]

    def ranked_ids(self, query: str) -> list[str]:
        """The ids of :meth:`search` at k = every document, in its order, without building hits."""
        scores = self._scores(query)
        if scores is None:
            return []
        if self._ids is None:
            self._ids = np.array([r.id for r in self.records], dtype=object)
        return self._ids[self._order(scores)].tolist()

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
        keys = _Index._keys(scores)
        best = np.argpartition(keys, -k)[-k:]
        best = best[np.argsort(keys[best])[::-1]]
        return best, scores[best]

    @staticmethod
    def _keys(scores: np.ndarray) -> np.ndarray:
        """One distinct sort key per document: its score's float32 bits above its reversed position."""
        positions = np.arange(len(scores), dtype=np.uint64)
        return (scores.astype(np.float32, copy=False).view(np.uint32).astype(np.uint64) << np.uint64(32)) | (
            np.uint64(0xFFFFFFFF) - positions
        )

    @staticmethod
    def _order(scores: np.ndarray) -> np.ndarray:
        """Every document, best first (the order of :meth:`_top_k` at k = all)."""
        return np.argsort(_Index._keys(scores))[::-1]


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
        index = self._indexes.get(namespace)
        if index is not None:
            index.add(added)  # appended records keep every earlier position: the index grows
        return [r.id for r in added]

    def _index(self, namespace: str) -> _Index | None:
        index = self._indexes.get(namespace)
        if index is None:
            records = self._records.list(namespace)
            if not records:
                return None
            index = self._indexes[namespace] = _Index(records)
        return index

    def _search(self, query: str, *, k: int, namespace: str) -> list[Hit]:
        index = self._index(namespace)
        return [] if index is None else index.search(query, k)

    def _ranked_ids(self, query: str, *, namespace: str) -> list[str]:
        index = self._index(namespace)
        return [] if index is None else index.ranked_ids(query)

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
