"""The three parts the mem0ai adapter installs into a mem0 ``Memory`` (imports mem0: load it lazily).

mem0 is built from a config naming its faiss vector store, its huggingface embedder on the offline
MiniLM folder and an OpenAI-compatible LLM (see ``baselines/adapters/mem0ai.py``); the adapter then
swaps in these parts, each for a reason:

- :class:`ScopedFaissStore` replaces mem0's faiss store. mem0ai 2.2.1's store filters *after* the
  search and fetches only ``2 * top_k`` candidates, so a user whose memories rank below other users'
  gets too few or no results (mem0 issue #6998, open); it also rewrites its whole JSON docstore and
  index file on every insert and delete (quadratic ingestion) and rebuilds the index vector by vector
  on each delete. Here every ``user_id`` has its own exact inner-product index (``IndexIDMap2`` over
  ``IndexFlatIP``), delete is ``remove_ids``, and files are written only by the adapter's ``save``.
- :class:`SharedEmbedding` replaces the huggingface embedder with the run's shared
  :class:`~memsuite.memory_systems.embedder.Embedder` on the same model folder: one model in memory, the
  embedding cache and the embedding accounting.
- :class:`ClientLLM` replaces mem0's OpenAI client with the run's
  :class:`~memsuite.memory_systems.llm.LLMClient`
  against the same endpoint: every call is accounted per system and phase, cached on disk, and a
  failed call or an unusable reply raises :class:`LibraryLLMError` (counted by the adapter) instead
  of crashing a run or vanishing in mem0's logs.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import faiss
import numpy as np
from mem0.configs.embeddings.base import BaseEmbedderConfig
from mem0.configs.llms.base import BaseLlmConfig
from mem0.embeddings.base import EmbeddingBase
from mem0.llms.base import LLMBase
from mem0.vector_stores.base import VectorStoreBase
from mem0.vector_stores.faiss import OutputData

from memsuite.baselines.adapters._common import ClientAccount, LibraryLLMError
from memsuite.memory_systems.embedder import Embedder

logger = logging.getLogger(__name__)

#: Scope of payloads that carry no ``user_id`` (mem0 always sets one for the memories it adds).
_NO_SCOPE = ""


def _matches(payload: dict[str, Any], filters: dict[str, Any] | None) -> bool:
    """mem0's faiss filter semantics: every key present; a list value means membership, else equality."""
    for key, value in (filters or {}).items():
        if key not in payload:
            return False
        if isinstance(value, list):
            if payload[key] not in value:
                return False
        elif payload[key] != value:
            return False
    return True


class ScopedFaissStore(VectorStoreBase):
    """mem0's vector-store interface over one exact faiss index per ``user_id``.

    Scores are inner products of unit vectors (cosine), higher is better, as mem0's scorer expects.
    Iteration order (``list``) is insertion order; an update keeps a memory's place.

    Args:
        dim: Embedding dimension.
        collection_name: Name reported by ``list_cols`` / ``col_info``.
    """

    def __init__(self, dim: int, collection_name: str = "memsuite") -> None:
        self.embedding_model_dims = dim
        self.collection_name = collection_name
        self._clear()

    def _clear(self) -> None:
        self._indexes: dict[str, faiss.IndexIDMap2] = {}
        self._payloads: dict[str, dict[str, Any]] = {}  # memory id -> payload, in insertion order
        self._rows: dict[str, tuple[str, int]] = {}  # memory id -> (scope, faiss row id)
        self._ids: dict[int, str] = {}  # faiss row id -> memory id
        self._next_row = 0

    # -- helpers ---------------------------------------------------------------------------------

    def _vectors(self, vectors: Sequence[Sequence[float]]) -> np.ndarray:
        array = np.array(vectors, dtype=np.float32).reshape(-1, self.embedding_model_dims)
        faiss.normalize_L2(array)  # cosine even if a caller hands unnormalised vectors
        return array

    def _index(self, scope: str) -> faiss.IndexIDMap2:
        index = self._indexes.get(scope)
        if index is None:
            index = self._indexes[scope] = faiss.IndexIDMap2(faiss.IndexFlatIP(self.embedding_model_dims))
        return index

    def _add(
        self, vector_id: str, vector: np.ndarray, payload: dict[str, Any], row: int | None = None
    ) -> None:
        scope = str(payload.get("user_id") or _NO_SCOPE)
        if row is None:
            row, self._next_row = self._next_row, self._next_row + 1
        self._index(scope).add_with_ids(vector.reshape(1, -1), np.array([row], dtype=np.int64))
        self._payloads[vector_id] = dict(payload)
        self._rows[vector_id] = (scope, row)
        self._ids[row] = vector_id

    def _remove(self, vector_id: str) -> int:
        scope, row = self._rows.pop(vector_id)
        self._indexes[scope].remove_ids(np.array([row], dtype=np.int64))
        del self._ids[row]
        del self._payloads[vector_id]
        return row

    def count(self, scope: str | None = None) -> int:
        """Vectors held for ``scope`` (a ``user_id``), or in all scopes."""
        if scope is None:
            return sum(index.ntotal for index in self._indexes.values())
        index = self._indexes.get(scope)
        return 0 if index is None else index.ntotal

    def scope_payloads(self, scope: str) -> list[tuple[str, dict[str, Any]]]:
        """(id, payload) of every memory of ``scope``, in insertion order."""
        return [(vid, payload) for vid, payload in self._payloads.items() if self._rows[vid][0] == scope]

    # -- VectorStoreBase -------------------------------------------------------------------------

    def create_col(self, name: str, vector_size: int | None = None, distance: str | None = None):
        self.collection_name = name
        return self

    def insert(self, vectors, payloads=None, ids=None) -> None:
        if ids is None or len(ids) != len(vectors):
            raise ValueError("ScopedFaissStore.insert needs one id per vector")
        payloads = payloads or [{} for _ in vectors]
        array = self._vectors(vectors)
        for vector_id, vector, payload in zip(ids, array, payloads, strict=True):
            row = self._remove(vector_id) if vector_id in self._rows else None
            self._add(vector_id, vector, payload, row)

    def search(self, query, vectors, top_k=5, filters=None) -> list[OutputData]:
        """Exact search within the ``user_id`` scope named by ``filters`` (all scopes without one).

        Other filter keys are applied to every vector of the scope before the cut to ``top_k``, so
        a filter never costs results that exist.
        """
        query_vector = self._vectors([vectors] if np.ndim(vectors) == 1 else vectors)[:1]
        scope = (filters or {}).get("user_id")
        if scope is not None and not isinstance(scope, list):
            indexes = [self._indexes[scope]] if scope in self._indexes else []
        else:
            indexes = list(self._indexes.values())
        exhaustive = bool(set(filters or {}) - {"user_id"}) or len(indexes) > 1
        found: list[tuple[float, str]] = []
        for index in indexes:
            k = index.ntotal if exhaustive else min(top_k, index.ntotal)
            if k == 0:
                continue
            scores, rows = index.search(query_vector, k)
            found.extend(
                (float(s), self._ids[int(r)]) for s, r in zip(scores[0], rows[0], strict=True) if r >= 0
            )
        found.sort(key=lambda pair: -pair[0])
        results = []
        for score, vector_id in found:
            payload = self._payloads[vector_id]
            if _matches(payload, filters):
                results.append(OutputData(id=vector_id, score=score, payload=dict(payload)))
                if len(results) >= top_k:
                    break
        return results

    def delete(self, vector_id) -> None:
        if vector_id not in self._rows:
            logger.warning("vector %s not found in %s", vector_id, self.collection_name)
            return
        self._remove(vector_id)

    def update(self, vector_id, vector=None, payload=None) -> None:
        if vector_id not in self._rows:
            raise ValueError(f"Vector {vector_id} not found")
        if payload is None:
            payload = self._payloads[vector_id]
        if vector is None:
            scope, row = self._rows[vector_id]
            vector = self._indexes[scope].reconstruct(row)
        # Replace in place: the same faiss row id, and the same position in the insertion order.
        order = list(self._payloads)
        row = self._remove(vector_id)
        self._add(vector_id, self._vectors([vector])[0], payload, row)
        position = order.index(vector_id)
        self._payloads = {
            vid: self._payloads[vid] for vid in [*order[:position], vector_id, *order[position + 1 :]]
        }

    def get(self, vector_id) -> OutputData | None:
        payload = self._payloads.get(vector_id)
        return None if payload is None else OutputData(id=vector_id, score=None, payload=dict(payload))

    def list_cols(self) -> list[str]:
        return [self.collection_name]

    def delete_col(self) -> None:
        self._clear()

    def col_info(self) -> dict[str, Any]:
        return {"name": self.collection_name, "count": self.count(), "dimension": self.embedding_model_dims}

    def list(self, filters=None, top_k=None) -> list[list[OutputData]]:
        limit = 100 if top_k is None else top_k  # mem0's faiss store lists 100 by default
        rows = [
            OutputData(id=vid, score=None, payload=dict(payload))
            for vid, payload in self._payloads.items()
            if _matches(payload, filters)
        ]
        return [rows[:limit]]

    def reset(self) -> None:
        self._clear()

    # -- persistence -----------------------------------------------------------------------------

    def dump(self, folder: Path, stem: str) -> None:
        """Write ``<stem>.json`` (payloads, row ids, scopes) and one ``<stem>.<n>.faiss`` per scope."""
        scopes = sorted(self._indexes)
        for n, scope in enumerate(scopes):
            faiss.write_index(self._indexes[scope], str(folder / f"{stem}.{n}.faiss"))
        rows = [
            {"id": vid, "row": self._rows[vid][1], "payload": payload}
            for vid, payload in self._payloads.items()
        ]
        header = {
            "dim": self.embedding_model_dims,
            "next_row": self._next_row,
            "scopes": scopes,
            "rows": rows,
        }
        (folder / f"{stem}.json").write_text(json.dumps(header, ensure_ascii=False), encoding="utf-8")

    def load(self, folder: Path, stem: str) -> None:
        """Replace the contents with what :meth:`dump` wrote."""
        header = json.loads((folder / f"{stem}.json").read_text(encoding="utf-8"))
        if header["dim"] != self.embedding_model_dims:
            raise ValueError(
                f"{folder} holds {header['dim']}-dim vectors, the embedder gives {self.embedding_model_dims}"
            )
        self._clear()
        self._next_row = header["next_row"]
        for n, scope in enumerate(header["scopes"]):
            self._indexes[scope] = faiss.read_index(str(folder / f"{stem}.{n}.faiss"))
        for row in header["rows"]:
            payload = row["payload"]
            self._payloads[row["id"]] = payload
            self._rows[row["id"]] = (str(payload.get("user_id") or _NO_SCOPE), row["row"])
            self._ids[row["row"]] = row["id"]


class SharedEmbedding(EmbeddingBase):
    """mem0's embedder interface over the run's shared :class:`Embedder`.

    :meth:`primed` pre-encodes a batch in one model call; mem0 then embeds those texts one at a time
    (its verbatim ``add`` does) and gets the cached vectors.

    Args:
        embedder: The shared embedder.
    """

    def __init__(self, embedder: Embedder) -> None:
        super().__init__(
            BaseEmbedderConfig(
                model=str(embedder.model_path or embedder.model_name), embedding_dims=embedder.dim
            )
        )
        self.embedder = embedder
        self._primed: dict[str, list[float]] = {}

    @contextmanager
    def primed(self, texts: Sequence[str]) -> Iterator[None]:
        """Encode ``texts`` in one batch now; inside the block :meth:`embed` serves them from memory."""
        self._primed = dict(zip(texts, self.embedder.encode(list(texts)).tolist(), strict=True))
        try:
            yield
        finally:
            self._primed = {}

    def embed(self, text, memory_action=None) -> list[float]:
        vector = self._primed.get(text)
        return vector if vector is not None else self.embedder.encode([text])[0].tolist()

    def embed_batch(self, texts, memory_action="add") -> list[list[float]]:
        return self.embedder.encode(list(texts)).tolist() if texts else []


def extraction_problem(data: Any) -> str | None:
    """Why a reply to mem0's extraction prompt is unusable, or None when it has the expected shape.

    mem0 expects ``{"memory": [{"text": ...}, ...]}`` and silently extracts nothing from anything
    else; counting that as a failure keeps a broken model from passing as "nothing to remember".
    """
    if not isinstance(data, dict) or not isinstance(data.get("memory"), list):
        return f"no 'memory' list in the reply: {json.dumps(data)[:200]}"
    if data["memory"] and not any(
        isinstance(m, dict) and isinstance(m.get("text"), str) for m in data["memory"]
    ):
        return f"no memory item has a 'text': {json.dumps(data)[:200]}"
    return None


class ClientLLM(LLMBase):
    """mem0's LLM interface over the run's LLM client (see the module docstring).

    Args:
        account: The adapter's account of the client.
        max_tokens: Completion budget per call.
    """

    def __init__(self, account: ClientAccount, max_tokens: int) -> None:
        super().__init__(BaseLlmConfig(model=account.identity().get("model"), max_tokens=max_tokens))
        self.account = account

    def generate_response(self, messages, response_format=None, tools=None, tool_choice="auto", **kwargs):
        """One chat completion; the reply text (or mem0's tool-call shape when ``tools`` are given).

        Raises:
            LibraryLLMError: The call failed, or a JSON reply could not be parsed or has the wrong shape.
        """
        messages = [dict(m) for m in messages]
        max_tokens = self.config.max_tokens
        if tools:
            result = self.account.chat(messages, tools=tools, tool_choice=tool_choice, max_tokens=max_tokens)
            self._raise_on_failure(result)
            calls = [{"name": c.name, "arguments": c.arguments or {}} for c in result.tool_calls]
            return {"content": result.text, "tool_calls": calls}
        if isinstance(response_format, dict) and response_format.get("type") in (
            "json_object",
            "json_schema",
        ):
            result = self.account.chat_json(messages, max_tokens=max_tokens)
            self._raise_on_failure(result)
            problem = extraction_problem(result.data)
            if problem is not None:
                raise LibraryLLMError(f"mem0 extraction reply unusable: {problem}")
            # mem0 parses the text itself; hand it the repaired JSON the client already parsed.
            return json.dumps(result.data, ensure_ascii=False)
        result = self.account.chat(messages, max_tokens=max_tokens)
        self._raise_on_failure(result)
        return result.text

    @staticmethod
    def _raise_on_failure(result: Any) -> None:
        if result.failure is not None:
            raise LibraryLLMError(f"{result.failure.kind}: {result.failure.message[:300]}")
