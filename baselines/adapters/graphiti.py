"""graphiti adapter: graphiti-core's temporal knowledge graph on embedded Kuzu (docs/systems.md).

No server: graphiti's Kuzu driver keeps the graph in one database file in the adapter's state folder
(the run's work dir when given). graphiti-core is pinned (``TESTED_VERSION``) and recorded in
:meth:`GraphitiMemory.params`. Note that graphiti deprecates its Kuzu backend (the Kuzu project is
no longer maintained); kuzu is pinned with it.

A memory is an entity edge, whose ``fact`` is what graphiti's search returns:

- ``ingest_session`` adds the session as one episode (``add_episode``, one at a time, never the bulk
  path) and graphiti's LLM pipeline extracts entities and fact edges, deduplicates them and
  invalidates contradicted edges. A failed LLM call or a reply that does not fit graphiti's schema
  (the library's own error classes, pydantic's ValidationError) is counted in
  ``IngestReport.failures`` and logged; the graph keeps what earlier episodes built. Any other
  exception (a TypeError in our code, say) is a bug and propagates.
- ``store`` needs no LLM: each text becomes a fact edge written directly (embedded with the shared
  embedder) on a per-namespace anchor node; ``update`` rewrites a fact in place (re-embedded, no
  invalidated copy left behind); ``delete`` removes the edge node, so it leaves Kuzu's full-text
  index and the vector scan. Entity nodes, their LLM-written summaries and raw episodes are not
  edited by ``update`` / ``delete``; retrieval never returns them.
- ``search`` is what ``Graphiti.search`` (``graphiti_core/graphiti.py``, graphiti-core 0.31.1) does
  by default: ``search`` of ``graphiti_core/search/search.py`` with the ``EDGE_HYBRID_SEARCH_RRF``
  recipe (``graphiti_core/search/search_config_recipes.py``: BM25 and cosine over edge facts, fused
  by reciprocal rank) and an empty ``SearchFilters``, restricted to the namespace's ``group_id``. It
  goes through ``Graphiti.search_`` only to read the RRF scores beside the edges. Like graphiti's own
  search it returns invalidated edges too (an earlier value, with its ``valid_at`` and
  ``invalid_at``); the setting ``exclude_invalidated=True`` restricts search and snapshot to current
  edges (``invalid_at`` and ``expired_at`` unset), which graphiti does not do by default.

graphiti is async: each adapter instance owns one event loop and runs every call on it, so the
adapter must not be used from inside a running event loop.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import shutil
import time
import weakref
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from memsuite.baselines.adapters._common import (
    ClientAccount,
    LibraryLLMError,
    StateFolder,
    adapter_usage,
    installed_version,
    require_library,
    scope_id,
    session_datetime,
)
from memsuite.memory_systems.base import MemorySystem
from memsuite.memory_systems.embedder import Embedder
from memsuite.memory_systems.errors import InvalidInputError, UnknownMemoryError
from memsuite.memory_systems.llm.protocol import EndpointClient
from memsuite.memory_systems.records import Hit, IngestReport, MemoryRecord, Session, Usage
from memsuite.memory_systems.registry import accepted_resources, register
from memsuite.memory_systems.store import (
    check_k,
    check_memory_id,
    check_namespace,
    check_session,
    check_text,
    check_texts,
)

logger = logging.getLogger(__name__)

#: The graphiti-core version this adapter was written and tested against (pinned in ``adapters``).
TESTED_VERSION = "0.31.1"
#: Relation name of the fact edges ``store`` writes, and the name of their per-namespace anchor node.
STORED_RELATION = "STORED_MEMORY"
ANCHOR_NAME = "stored memories"
_DB_FILE = "graph.kuzu"
_MIB = 1 << 20


def _import_graphiti() -> Any:
    """Import graphiti-core and kuzu (telemetry off) and return the ``_graphiti_parts`` module."""
    # graphiti reads this at every event; it would otherwise try to reach PostHog.
    os.environ["GRAPHITI_TELEMETRY_ENABLED"] = "false"
    require_library("graphiti_core", purpose="the graphiti adapter")
    require_library("kuzu", purpose="the graphiti adapter's embedded Kuzu database")
    from memsuite.baselines.adapters import _graphiti_parts

    return _graphiti_parts


def _episode_body(session: Session) -> str:
    """A session as graphiti's message episode: one ``actor: content`` line per turn."""
    return "\n".join(f"{turn.role}: {turn.content}" for turn in session.turns if turn.content.strip())


@register("graphiti")
class GraphitiMemory(MemorySystem):
    """graphiti-core on embedded Kuzu, with the shared embedder and the run's LLM client.

    Args:
        embedder: The shared embedder; default the offline all-MiniLM-L6-v2.
        llm: The LLM client for ``ingest_session``; None allows the four verbs only.
        workdir: Folder for the Kuzu database (the run's work dir); default a temporary folder
            removed with the adapter.
        top_k: Default number of hits of :meth:`retrieve`.
        exclude_invalidated: Search and snapshot only current edges. Default False, graphiti's own
            default: ``Graphiti.search`` returns invalidated edges with their dates.
        sim_min_score: graphiti's minimum cosine similarity for the vector half of the search
            (its default 0.6).
        max_tokens: Largest completion budget of graphiti's LLM calls.
        buffer_pool_mb: Kuzu's page cache, MiB.
        max_db_mb: Largest Kuzu database, MiB (reserved as virtual address space).

    Raises:
        MissingDependencyError: graphiti-core or kuzu is not installed.
    """

    name = "graphiti"

    def __init__(
        self,
        *,
        embedder: Embedder | None = None,
        llm: EndpointClient | None = None,
        workdir: str | Path | None = None,
        top_k: int = 5,
        exclude_invalidated: bool = False,
        sim_min_score: float = 0.6,
        max_tokens: int = 2000,
        buffer_pool_mb: int = 256,
        max_db_mb: int = 64 * 1024,
    ) -> None:
        super().__init__(top_k=top_k)
        if not isinstance(exclude_invalidated, bool):
            raise InvalidInputError(f"exclude_invalidated must be a bool, got {exclude_invalidated!r}")
        if isinstance(sim_min_score, bool) or not isinstance(sim_min_score, int | float):
            raise InvalidInputError(f"sim_min_score must be a number, got {sim_min_score!r}")
        self.exclude_invalidated = exclude_invalidated
        self.sim_min_score = float(sim_min_score)
        self.max_tokens = check_k(max_tokens)
        self.buffer_pool_mb, self.max_db_mb = check_k(buffer_pool_mb), check_k(max_db_mb)
        self.embedder = (embedder or Embedder()).account()  # its own view: exact usage
        self._account = ClientAccount(llm, self.name)
        self._state = StateFolder(workdir, prefix="memsuite-graphiti-")
        self._parts = _import_graphiti()
        self._loop = asyncio.new_event_loop()
        self._resources: dict[str, Any] = {"loop": self._loop, "state": self._state}
        self._finalizer = weakref.finalize(self, _shutdown, self._resources)
        self._open(fresh=not (self._state.path / _DB_FILE).exists())

    def _open(self, *, fresh: bool) -> None:
        from graphiti_core import Graphiti

        parts = self._parts
        self._driver = parts.LocalKuzuDriver(
            str(self._state.path / _DB_FILE),
            buffer_pool_bytes=self.buffer_pool_mb * _MIB,
            max_db_bytes=self.max_db_mb * _MIB,
        )
        self._resources["driver"] = self._driver
        self._graphiti = Graphiti(
            graph_driver=self._driver,
            llm_client=parts.ClientLLM(self._account, self.max_tokens),
            embedder=parts.SharedEmbedder(self.embedder),
            cross_encoder=parts.EmbeddingReranker(self.embedder),
        )
        if fresh:
            # KuzuDriver.build_indices_and_constraints is a no-op in 0.31.1: without this the
            # full-text (BM25) half of every search has no index to query.
            self._run(self._driver.graph_ops.build_indices_and_constraints(self._driver))

    def _run(self, coroutine: Any) -> Any:
        return self._loop.run_until_complete(coroutine)

    def params(self) -> dict[str, Any]:
        return {
            "top_k": self.top_k,
            "exclude_invalidated": self.exclude_invalidated,
            "sim_min_score": self.sim_min_score,
            "max_tokens": self.max_tokens,
            "buffer_pool_mb": self.buffer_pool_mb,
            "max_db_mb": self.max_db_mb,
            "embedder": self.embedder.model_name,
            "graphiti_core_version": installed_version("graphiti-core"),
            "graphiti_core_tested_version": TESTED_VERSION,
            "kuzu_version": installed_version("kuzu"),
            "search": "graphiti edge hybrid search (BM25 + cosine, RRF), as Graphiti.search",
            "llm": self._account.identity(),
        }

    def usage(self) -> Usage:
        return adapter_usage(self._account.usage(), self.embedder.usage, self._usage.wall_s)

    def close(self) -> None:
        """Close the database and the event loop; remove a temporary state folder."""
        self._finalizer()

    # -- helpers ---------------------------------------------------------------------------------

    def _search_filter(self) -> Any:
        from graphiti_core.search.search_filters import ComparisonOperator, DateFilter, SearchFilters

        if not self.exclude_invalidated:
            return SearchFilters()
        unset = [[DateFilter(comparison_operator=ComparisonOperator.is_null)]]
        return SearchFilters(invalid_at=unset, expired_at=unset)

    def _is_current(self, edge: Any) -> bool:
        return not self.exclude_invalidated or (edge.invalid_at is None and edge.expired_at is None)

    def _edge(self, memory_id: object, namespace: str) -> Any:
        """The edge ``memory_id`` of ``namespace``, or :class:`UnknownMemoryError`."""
        from graphiti_core.edges import EntityEdge
        from graphiti_core.errors import EdgeNotFoundError

        check_memory_id(memory_id)
        scope = scope_id(check_namespace(namespace))
        try:
            edge = self._run(EntityEdge.get_by_uuid(self._driver, memory_id))
        except EdgeNotFoundError:
            edge = None
        if edge is None or edge.group_id != scope:
            raise UnknownMemoryError(f"unknown memory id {memory_id!r} in namespace {namespace!r}")
        return edge

    def _edges(self, scope: str) -> list[Any]:
        """Every fact edge of a scope, oldest first."""
        from graphiti_core.edges import EntityEdge
        from graphiti_core.errors import GroupsEdgesNotFoundError

        try:
            edges = self._run(EntityEdge.get_by_group_ids(self._driver, [scope]))
        except GroupsEdgesNotFoundError:
            return []
        return sorted(edges, key=lambda e: (e.created_at, e.uuid))

    async def _anchor(self, scope: str) -> Any:
        """The scope's anchor node for stored facts, created on first use."""
        from graphiti_core.nodes import EntityNode

        records, _, _ = await self._driver.execute_query(
            "MATCH (n:Entity {group_id: $group_id, name: $name}) RETURN n.uuid AS uuid",
            group_id=scope,
            name=ANCHOR_NAME,
        )
        if records:
            return await EntityNode.get_by_uuid(self._driver, records[0]["uuid"])
        node = EntityNode(name=ANCHOR_NAME, group_id=scope, labels=["Entity"], created_at=datetime.now(UTC))
        await node.generate_name_embedding(self._graphiti.embedder)
        await node.save(self._driver)
        return node

    # -- the four verbs --------------------------------------------------------------------------

    def store(
        self,
        items: Sequence[str],
        *,
        namespace: str = "default",
        metadata: Sequence[dict[str, Any]] | None = None,
    ) -> list[str]:
        from graphiti_core.edges import EntityEdge

        texts = check_texts(items)
        scope = scope_id(check_namespace(namespace))
        if metadata is not None and len(metadata) != len(texts):
            raise InvalidInputError(f"metadata has {len(metadata)} entries for {len(texts)} texts")
        metas = [dict(m) for m in metadata] if metadata is not None else [{} for _ in texts]
        json.dumps(metas)  # refuse unserialisable metadata before anything is written
        if not texts:
            return []

        async def write() -> list[str]:
            anchor = await self._anchor(scope)
            vectors = self.embedder.encode(texts)
            now = datetime.now(UTC)
            ids = []
            for i, (text, vector, meta) in enumerate(zip(texts, vectors, metas, strict=True)):
                # Microsecond steps keep a batch in input order when records() sorts by time.
                created = now + timedelta(microseconds=i)
                edge = EntityEdge(
                    group_id=scope,
                    source_node_uuid=anchor.uuid,
                    target_node_uuid=anchor.uuid,
                    created_at=created,
                    name=STORED_RELATION,
                    fact=text,
                    fact_embedding=vector.tolist(),
                    valid_at=created,
                    reference_time=created,
                    attributes={"metadata": meta} if meta else {},
                )
                await edge.save(self._driver)
                ids.append(edge.uuid)
            return ids

        with self.timed("ingest"):
            return self._run(write())

    def _search(self, query: str, *, k: int, namespace: str) -> list[Hit]:
        from graphiti_core.search.search_config_recipes import EDGE_HYBRID_SEARCH_RRF

        scope = scope_id(namespace)
        # A copy: graphiti's own search() sets .limit on this shared module-level recipe.
        config = EDGE_HYBRID_SEARCH_RRF.model_copy(deep=True)
        config.limit = k
        config.edge_config.sim_min_score = self.sim_min_score
        results = self._run(
            self._graphiti.search_(
                query, config=config, group_ids=[scope], search_filter=self._search_filter()
            )
        )
        scores = list(results.edge_reranker_scores) or [0.0] * len(results.edges)
        return [
            Hit(edge.uuid, edge.fact, float(score), _hit_metadata(edge))
            for edge, score in zip(results.edges[:k], scores, strict=False)
        ]

    def update(self, memory_id: str, text: str, *, namespace: str = "default") -> None:
        edge = self._edge(memory_id, namespace)
        edge.fact = check_text(text)

        async def rewrite() -> None:
            await edge.generate_embedding(self._graphiti.embedder)
            await edge.save(self._driver)

        self._run(rewrite())

    def delete(self, memory_id: str, *, namespace: str = "default") -> None:
        edge = self._edge(memory_id, namespace)
        self._run(edge.delete(self._driver))

    # -- lifecycle -------------------------------------------------------------------------------

    def records(self, *, namespace: str = "default") -> list[MemoryRecord]:
        scope = scope_id(check_namespace(namespace))
        return [
            MemoryRecord(edge.uuid, edge.fact, namespace, _hit_metadata(edge))
            for edge in self._edges(scope)
            if self._is_current(edge)
        ]

    def ingest_session(self, session: Session, *, namespace: str = "default") -> IngestReport:
        """Add the session as one graphiti episode (graphiti's LLM extraction).

        Raises:
            InvalidInputError: ``session`` is not a Session, or a bad namespace.
            ConfigError: The adapter has no LLM.
        """
        from graphiti_core.nodes import EpisodeType

        check_session(session)
        scope = scope_id(check_namespace(namespace))
        self._account.require(self.name, "ingest_session")
        report = IngestReport(session.session_id)
        started = time.perf_counter()
        body = _episode_body(session)
        with self.timed("ingest"):
            if body:
                try:
                    result = self._run(
                        self._graphiti.add_episode(
                            name=session.session_id,
                            episode_body=body,
                            source_description="conversation session",
                            reference_time=session_datetime(session.timestamp) or datetime.now(UTC),
                            source=EpisodeType.message,
                            group_id=scope,
                        )
                    )
                    episode = result.episode.uuid
                    # New facts are the edges this episode created (graphiti's remove_episode uses the
                    # same test); older edges it invalidated leave the current view (kept as history).
                    report.added = sum(1 for e in result.edges if e.episodes[:1] == [episode])
                    report.deleted = sum(
                        1
                        for e in result.edges
                        if e.episodes[:1] != [episode] and (e.invalid_at or e.expired_at)
                    )
                except _library_failures() as exc:  # a bug (TypeError, KeyError, ...) propagates
                    logger.warning(
                        "%s: add_episode failed for session %s (counted): %s: %s",
                        self.name,
                        session.session_id,
                        type(exc).__name__,
                        exc,
                    )
                    report.failures += 1
        report.wall_s = time.perf_counter() - started
        return report

    def reset(self, *, namespace: str | None = None) -> None:
        from graphiti_core.utils.maintenance.graph_data_operations import clear_data

        groups = None if namespace is None else [scope_id(check_namespace(namespace))]
        self._run(clear_data(self._driver, groups))

    # -- persistence -----------------------------------------------------------------------------

    def _save_state(self, folder: Path) -> None:
        # A checkpoint folds the write-ahead log into the database file, which is then complete.
        self._run(self._driver.execute_query("CHECKPOINT;"))
        shutil.copyfile(self._state.path / _DB_FILE, folder / _DB_FILE)

    @classmethod
    def _load_state(cls, folder: Path, params: dict[str, Any], **kwargs: Any) -> GraphitiMemory:
        keys = ("top_k", "exclude_invalidated", "sim_min_score", "max_tokens", "buffer_pool_mb", "max_db_mb")
        system = cls(**{**{key: params[key] for key in keys}, **accepted_resources(cls, kwargs)})
        if system.embedder.model_name != params["embedder"]:
            system.close()
            raise InvalidInputError(
                f"{folder} was built with embedder {params['embedder']!r}, not {system.embedder.model_name!r}"
            )
        # Swap the saved database file in under the new instance's own (empty) one.
        system._driver.close_database()
        (system._state.path / (_DB_FILE + ".wal")).unlink(missing_ok=True)
        shutil.copyfile(folder / _DB_FILE, system._state.path / _DB_FILE)
        system._open(fresh=False)
        return system


def _hit_metadata(edge: Any) -> dict[str, Any]:
    """What a hit tells about its edge: stored metadata, relation and validity."""
    meta = dict((edge.attributes or {}).get("metadata") or {})
    meta.update(
        relation=edge.name,
        valid_at=edge.valid_at.isoformat() if edge.valid_at else None,
        invalid_at=edge.invalid_at.isoformat() if edge.invalid_at else None,
    )
    return meta


def _shutdown(resources: dict[str, Any]) -> None:
    """Release the Kuzu database and the event loop, then remove a temporary state folder."""
    try:
        resources["driver"].close_database()
    finally:
        resources["loop"].close()
        resources["state"].cleanup()


def _library_failures() -> tuple[type[BaseException], ...]:
    """What ``add_episode`` raises when the LLM's work is unusable: counted, never a crash.

    A failed call through the run's client (:class:`LibraryLLMError`; the client has already counted
    it), graphiti's own errors, and a reply graphiti cannot validate into its response model (pydantic).
    """
    from graphiti_core.errors import GraphitiError
    from graphiti_core.llm_client.errors import EmptyResponseError, RateLimitError, RefusalError
    from pydantic import ValidationError

    return (LibraryLLMError, GraphitiError, RateLimitError, RefusalError, EmptyResponseError, ValidationError)
