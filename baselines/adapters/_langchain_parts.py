"""The LangChain parts of the langchain_faiss adapter (imports langchain: load it lazily).

- :class:`SharedEmbeddings` is LangChain's ``Embeddings`` over the run's shared embedder.
- :class:`AppendDocstore` is LangChain's ``InMemoryDocstore`` with an in-place ``add``: the original
  rebuilds its whole dict on every call (``{**old, **new}``), which makes turn-by-turn ingestion
  quadratic.
"""

from __future__ import annotations

from langchain_community.docstore.in_memory import InMemoryDocstore
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings

from memsuite.memory_systems.embedder import Embedder


class SharedEmbeddings(Embeddings):
    """LangChain embeddings from the shared :class:`Embedder` (unit vectors: inner product = cosine)."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.embedder.encode(list(texts)).tolist() if texts else []

    def embed_query(self, text: str) -> list[float]:
        return self.embedder.encode([text])[0].tolist()


class AppendDocstore(InMemoryDocstore):
    """``InMemoryDocstore`` whose ``add`` appends in place (same checks, same order)."""

    def add(self, texts: dict[str, Document]) -> None:
        overlapping = set(texts).intersection(self._dict)
        if overlapping:
            raise ValueError(f"Tried to add ids that already exist: {overlapping}")
        self._dict.update(texts)
