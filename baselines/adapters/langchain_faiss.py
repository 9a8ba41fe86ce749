"""langchain_faiss adapter: LangChain's FAISS vector store over the shared embedder (docs/systems.md).

WMB-100K's LangChain baseline: one document per turn, ``"{speaker}: {text}"``, in a LangChain
``FAISS`` store (``langchain_community/vectorstores/faiss.py``, langchain-community 0.4.2), written
with ``FAISS.add_texts`` and retrieved with ``FAISS.similarity_search_with_score``. Here each
namespace has its own store (an exact ``IndexFlatIP`` over unit vectors, so scores are cosine, higher
is better), which keeps namespaces
apart without LangChain's metadata filter (that one filters a fixed ``fetch_k=20`` candidates and so
under-returns, like mem0's). No LLM anywhere.

Ids are decimal strings of a counter shared by all namespaces that never goes back. ``delete`` is
LangChain's delete by id (``remove_ids`` on the faiss index); ``update`` is delete then add under the
same id, so an updated memory moves to the end of the namespace's order.

Persistence never unpickles: ``FAISS.save_local`` / ``load_local`` pickle the docstore, and loading
a pickle runs whatever code it names. ``save`` writes each namespace's faiss index
(``faiss.write_index``) and one JSON docstore instead, and ``load`` rebuilds the stores from them.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memsuite.baselines.adapters._common import adapter_usage, installed_version, require_library
from memsuite.memory_systems.base import MemorySystem
from memsuite.memory_systems.embedder import Embedder
from memsuite.memory_systems.errors import InvalidInputError, UnknownMemoryError
from memsuite.memory_systems.records import Hit, IngestReport, MemoryRecord, Session, Usage
from memsuite.memory_systems.registry import accepted_resources, register
from memsuite.memory_systems.store import (
    check_memory_id,
    check_namespace,
    check_session,
    check_text,
    check_texts,
)

#: The langchain-community version this adapter was written and tested against.
TESTED_VERSION = "0.4.2"
_DOCSTORE = "docstore.json"


def turn_text(speaker: str, text: str) -> str:
    """One turn as WMB-100K's LangChain baseline stores it."""
    return f"{speaker}: {text}"


@register("langchain_faiss")
class LangChainFaissMemory(MemorySystem):
    """LangChain ``FAISS`` stores (one per namespace) over the shared embedder.

    Args:
        embedder: The shared embedder; default the offline all-MiniLM-L6-v2.
        top_k: Default number of hits of :meth:`retrieve`.

    Raises:
        MissingDependencyError: langchain-community / langchain-core is not installed.
    """

    name = "langchain_faiss"

    def __init__(self, *, embedder: Embedder | None = None, top_k: int = 5) -> None:
        super().__init__(top_k=top_k)
        require_library("langchain_community.vectorstores", purpose="the langchain_faiss adapter")
        from memsuite.baselines.adapters import _langchain_parts

        self._parts = _langchain_parts
        self.embedder = (embedder or Embedder()).account()  # its own view: exact usage
        self._embeddings = _langchain_parts.SharedEmbeddings(self.embedder)
        self._stores: dict[str, Any] = {}
        self._next_id = 0

    def params(self) -> dict[str, Any]:
        return {
            "top_k": self.top_k,
            "embedder": self.embedder.model_name,
            "langchain_community_version": installed_version("langchain-community"),
            "langchain_core_version": installed_version("langchain-core"),
            "langchain_community_tested_version": TESTED_VERSION,
            "faiss_version": installed_version("faiss-cpu"),
            "index": "IndexFlatIP over unit vectors (cosine), one store per namespace",
        }

    def usage(self) -> Usage:
        return adapter_usage(Usage(), self.embedder.usage, self._usage.wall_s)

    # -- helpers ---------------------------------------------------------------------------------

    def _new_store(self, index: Any = None, documents: Sequence[Any] = ()) -> Any:
        import faiss
        from langchain_community.vectorstores import FAISS
        from langchain_community.vectorstores.utils import DistanceStrategy

        return FAISS(
            embedding_function=self._embeddings,
            index=index if index is not None else faiss.IndexFlatIP(self.embedder.dim),
            docstore=self._parts.AppendDocstore({doc.id: doc for doc in documents}),
            index_to_docstore_id={i: doc.id for i, doc in enumerate(documents)},
            distance_strategy=DistanceStrategy.MAX_INNER_PRODUCT,
        )

    def _documents(self, namespace: str) -> list[Any]:
        """The namespace's documents in index order (insertion order)."""
        store = self._stores.get(namespace)
        if store is None:
            return []
        positions = sorted(store.index_to_docstore_id)
        return store.get_by_ids([store.index_to_docstore_id[i] for i in positions])

    def _document(self, memory_id: object, namespace: str) -> Any:
        check_memory_id(memory_id)
        store = self._stores.get(check_namespace(namespace))
        found = store.get_by_ids([memory_id]) if store is not None else []
        if not found:
            raise UnknownMemoryError(f"unknown memory id {memory_id!r} in namespace {namespace!r}")
        return found[0]

    # -- the four verbs --------------------------------------------------------------------------

    def store(
        self,
        items: Sequence[str],
        *,
        namespace: str = "default",
        metadata: Sequence[dict[str, Any]] | None = None,
    ) -> list[str]:
        texts = check_texts(items)
        check_namespace(namespace)
        if metadata is not None and len(metadata) != len(texts):
            raise InvalidInputError(f"metadata has {len(metadata)} entries for {len(texts)} texts")
        if not texts:
            return []
        metas = [dict(m) for m in metadata] if metadata is not None else [{} for _ in texts]
        json.dumps(metas)  # refuse unserialisable metadata before anything is written
        ids = [str(self._next_id + i) for i in range(len(texts))]
        with self.timed("ingest"):
            store = self._stores.get(namespace) or self._new_store()
            store.add_texts(texts, metadatas=metas, ids=ids)
            self._stores[namespace] = store
        self._next_id += len(texts)
        return ids

    def _search(self, query: str, *, k: int, namespace: str) -> list[Hit]:
        store = self._stores.get(namespace)
        if store is None or store.index.ntotal == 0:
            return []
        found = store.similarity_search_with_score(query, k=min(k, store.index.ntotal))
        return [Hit(doc.id, doc.page_content, float(score), dict(doc.metadata)) for doc, score in found]

    def update(self, memory_id: str, text: str, *, namespace: str = "default") -> None:
        old = self._document(memory_id, namespace)
        check_text(text)
        # Embed first: a failure here leaves the old memory in place.
        vector = self._embeddings.embed_documents([text])
        store = self._stores[namespace]
        store.delete([old.id])
        store.add_embeddings([(text, vector[0])], metadatas=[dict(old.metadata)], ids=[old.id])

    def delete(self, memory_id: str, *, namespace: str = "default") -> None:
        doc = self._document(memory_id, namespace)
        self._stores[namespace].delete([doc.id])

    # -- lifecycle -------------------------------------------------------------------------------

    def records(self, *, namespace: str = "default") -> list[MemoryRecord]:
        return [
            MemoryRecord(doc.id, doc.page_content, namespace, dict(doc.metadata))
            for doc in self._documents(check_namespace(namespace))
        ]

    def ingest_session(self, session: Session, *, namespace: str = "default") -> IngestReport:
        """Store one document per non-empty turn: the benchmark's own per-turn documents when it lays
        the session out that way (LoCoMo's RAG format), else ``"{speaker}: {text}"``; metadata: the
        document's, plus session id, timestamp and turn index."""
        check_session(session)
        check_namespace(namespace)
        started = time.perf_counter()
        given = session.per_turn_documents()
        documents = (
            [(d.turn, d.text, d.metadata) for d in given if d.text.strip()]
            if given is not None
            else [
                (i, turn_text(t.role, t.content), t.metadata)
                for i, t in enumerate(session.turns)
                if t.content.strip()
            ]
        )
        texts = [text for _, text, _ in documents]
        metas = [
            {**meta, "session_id": session.session_id, "timestamp": session.timestamp, "turn": i}
            for i, _, meta in documents
        ]
        ids = self.store(texts, namespace=namespace, metadata=metas) if texts else []
        return IngestReport(session.session_id, added=len(ids), wall_s=time.perf_counter() - started)

    def reset(self, *, namespace: str | None = None) -> None:
        if namespace is None:
            self._stores.clear()
        else:
            self._stores.pop(check_namespace(namespace), None)

    # -- persistence -----------------------------------------------------------------------------

    def _save_state(self, folder: Path) -> None:
        import faiss

        namespaces = []
        for n, (namespace, store) in enumerate(self._stores.items()):
            faiss.write_index(store.index, str(folder / f"index.{n}.faiss"))
            docs = [
                {"id": d.id, "text": d.page_content, "metadata": d.metadata}
                for d in self._documents(namespace)
            ]
            namespaces.append({"namespace": namespace, "index": f"index.{n}.faiss", "documents": docs})
        state = {"next_id": self._next_id, "namespaces": namespaces}
        (folder / _DOCSTORE).write_text(json.dumps(state, ensure_ascii=False), encoding="utf-8")

    @classmethod
    def _load_state(cls, folder: Path, params: dict[str, Any], **kwargs: Any) -> LangChainFaissMemory:
        import faiss
        from langchain_core.documents import Document

        system = cls(**{"top_k": params["top_k"], **accepted_resources(cls, kwargs)})
        if system.embedder.model_name != params["embedder"]:
            raise InvalidInputError(
                f"{folder} was built with embedder {params['embedder']!r}, not {system.embedder.model_name!r}"
            )
        state = json.loads((folder / _DOCSTORE).read_text(encoding="utf-8"))
        system._next_id = int(state["next_id"])
        for entry in state["namespaces"]:
            index = faiss.read_index(str(folder / entry["index"]))
            docs = [
                Document(id=d["id"], page_content=d["text"], metadata=d["metadata"])
                for d in entry["documents"]
            ]
            if index.ntotal != len(docs) or index.d != system.embedder.dim:
                raise InvalidInputError(
                    f"{folder}: namespace {entry['namespace']!r} has {index.ntotal} vectors of dim {index.d} "
                    f"for {len(docs)} documents (embedder dim {system.embedder.dim})"
                )
            system._stores[entry["namespace"]] = system._new_store(index, docs)
        return system
