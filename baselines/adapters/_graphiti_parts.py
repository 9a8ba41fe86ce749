"""The parts the graphiti adapter hands to graphiti-core (imports graphiti and kuzu: load it lazily).

- :class:`ClientLLM` is graphiti's ``LLMClient`` over the run's LLM client in JSON-object mode:
  graphiti's base class already writes the response model's JSON schema into the prompt, and
  ``OpenAIGenericClient`` would send ``response_format=json_schema``, which the embedded llama.cpp
  server rejects. Calls are accounted, cached and never crash a run: a failed call or a reply that is
  not a JSON object raises :class:`LibraryLLMError`, which graphiti does not retry (its tenacity
  policy would otherwise back off 5-120 s per attempt) and the adapter counts.
- :class:`SharedEmbedder` is graphiti's ``EmbedderClient`` over the run's shared embedder.
- :class:`EmbeddingReranker` is a ``CrossEncoderClient`` that ranks by cosine similarity, so no
  OpenAI reranker is ever built (the adapter's search uses RRF and does not call it).
- :class:`LocalKuzuDriver` is graphiti's embedded Kuzu driver with three fixes. It sets the
  ``_database`` attribute ``add_episode`` reads (missing from graphiti's Kuzu driver). Kuzu reserves
  ``max_db_size`` of virtual address space per open database (8 TiB by default), so a process holds
  at most ~15 databases and the 16th fails with "Mmap ... failed"; the driver opens its database
  with bounded sizes. And graphiti 0.31.1's Kuzu full-text queries take the global top ``limit``
  hits (``QUERY_FTS_INDEX(..., TOP := $limit)``) before filtering by ``group_id``, so a namespace
  loses keyword hits to other namespaces; the driver widens ``TOP`` to the indexed table's size
  (the ``LIMIT`` after the filter still applies).
"""

from __future__ import annotations

import asyncio
import re
import typing
from collections.abc import Iterable
from typing import Any

import kuzu
import numpy as np
from graphiti_core.cross_encoder.client import CrossEncoderClient
from graphiti_core.driver.driver import GraphDriver
from graphiti_core.driver.kuzu.operations.community_edge_ops import KuzuCommunityEdgeOperations
from graphiti_core.driver.kuzu.operations.community_node_ops import KuzuCommunityNodeOperations
from graphiti_core.driver.kuzu.operations.entity_edge_ops import KuzuEntityEdgeOperations
from graphiti_core.driver.kuzu.operations.entity_node_ops import KuzuEntityNodeOperations
from graphiti_core.driver.kuzu.operations.episode_node_ops import KuzuEpisodeNodeOperations
from graphiti_core.driver.kuzu.operations.episodic_edge_ops import KuzuEpisodicEdgeOperations
from graphiti_core.driver.kuzu.operations.graph_ops import KuzuGraphMaintenanceOperations
from graphiti_core.driver.kuzu.operations.has_episode_edge_ops import KuzuHasEpisodeEdgeOperations
from graphiti_core.driver.kuzu.operations.next_episode_edge_ops import KuzuNextEpisodeEdgeOperations
from graphiti_core.driver.kuzu.operations.saga_node_ops import KuzuSagaNodeOperations
from graphiti_core.driver.kuzu.operations.search_ops import KuzuSearchOperations
from graphiti_core.driver.kuzu_driver import KuzuDriver
from graphiti_core.embedder.client import EmbedderClient
from graphiti_core.llm_client.client import LLMClient
from graphiti_core.llm_client.config import LLMConfig, ModelSize
from graphiti_core.prompts.models import Message

from memsuite.baselines.adapters._common import ClientAccount, LibraryLLMError
from memsuite.memory_systems.embedder import Embedder

#: ``QUERY_FTS_INDEX('<table>', '<index>', <query>, TOP := $limit)`` as graphiti writes it for Kuzu.
_FTS_CALL = re.compile(r"QUERY_FTS_INDEX\('(\w+)'.*?TOP := \$limit\)", re.DOTALL)


class LocalKuzuDriver(KuzuDriver):
    """graphiti's Kuzu driver on a database file opened with bounded memory (see the module docstring).

    Args:
        path: Database file.
        buffer_pool_bytes: Kuzu's page cache.
        max_db_bytes: Largest database size, which Kuzu reserves as virtual address space.
    """

    def __init__(self, path: str, *, buffer_pool_bytes: int, max_db_bytes: int) -> None:
        # KuzuDriver.__init__ opens kuzu.Database(path) with default sizes; this is the same setup
        # with the sizes given (graphiti-core 0.31.1's constructor, operations included).
        GraphDriver.__init__(self)
        # graphiti 0.31.1's KuzuDriver never sets _database, yet add_episode compares every group_id
        # with it (AttributeError; graphiti issue #1258). Kuzu's clone() is the driver itself, so
        # any value works: every group lives in this one database.
        self._database = ""
        self.db = kuzu.Database(path, buffer_pool_size=buffer_pool_bytes, max_db_size=max_db_bytes)
        self.setup_schema()
        self.client = kuzu.AsyncConnection(self.db, max_concurrent_queries=1)
        self._entity_node_ops = KuzuEntityNodeOperations()
        self._episode_node_ops = KuzuEpisodeNodeOperations()
        self._community_node_ops = KuzuCommunityNodeOperations()
        self._saga_node_ops = KuzuSagaNodeOperations()
        self._entity_edge_ops = KuzuEntityEdgeOperations()
        self._episodic_edge_ops = KuzuEpisodicEdgeOperations()
        self._community_edge_ops = KuzuCommunityEdgeOperations()
        self._has_episode_edge_ops = KuzuHasEpisodeEdgeOperations()
        self._next_episode_edge_ops = KuzuNextEpisodeEdgeOperations()
        self._search_ops = KuzuSearchOperations()
        self._graph_ops = KuzuGraphMaintenanceOperations()

    async def execute_query(self, cypher_query_: str, **kwargs: Any):
        match = _FTS_CALL.search(cypher_query_)
        if match is not None:
            table = match.group(1)
            rows = await self.client.execute(f"MATCH (n:{table}) RETURN count(n) AS n")
            size = int(next(iter(rows.rows_as_dict()))["n"])
            cypher_query_ = cypher_query_.replace("TOP := $limit", "TOP := $fts_candidates", 1)
            kwargs["fts_candidates"] = max(size, int(kwargs.get("limit") or 1), 1)
        return await super().execute_query(cypher_query_, **kwargs)

    def close_database(self) -> None:
        """Release the database (graphiti's ``close`` leaves it to the garbage collector)."""
        self.client.close()
        self.db.close()


class ClientLLM(LLMClient):
    """graphiti's LLM client interface over the run's client, in JSON-object mode.

    Args:
        account: The adapter's account of the client.
        max_tokens: Largest completion budget sent (graphiti asks for up to 16,384).
    """

    def __init__(self, account: ClientAccount, max_tokens: int) -> None:
        super().__init__(
            LLMConfig(model=account.identity().get("model"), temperature=0.0, max_tokens=max_tokens)
        )
        self.account = account

    async def _generate_response(
        self,
        messages: list[Message],
        response_model: Any = None,
        max_tokens: int = 0,
        model_size: ModelSize = ModelSize.medium,
        *,
        model: str | None = None,
    ) -> dict[str, typing.Any]:
        plain = [{"role": m.role, "content": m.content} for m in messages]
        budget = min(max_tokens or self.max_tokens, self.max_tokens)
        # The client is synchronous; a worker thread lets graphiti's parallel calls overlap.
        result = await asyncio.to_thread(self.account.chat_json, plain, max_tokens=budget)
        if result.failure is not None:
            raise LibraryLLMError(f"{result.failure.kind}: {result.failure.message[:300]}")
        if not isinstance(result.data, dict):
            raise LibraryLLMError(f"graphiti expects a JSON object, got: {result.text[:200]!r}")
        return result.data


class SharedEmbedder(EmbedderClient):
    """graphiti's embedder interface over the run's shared :class:`Embedder`."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder

    async def create(
        self, input_data: str | list[str] | Iterable[int] | Iterable[Iterable[int]]
    ) -> list[float]:
        texts = [input_data] if isinstance(input_data, str) else list(input_data)  # type: ignore[arg-type]
        if not texts or not all(isinstance(t, str) for t in texts):
            raise TypeError("SharedEmbedder embeds text only, not token ids")
        return self.embedder.encode(texts[:1])[0].tolist()

    async def create_batch(self, input_data_list: list[str]) -> list[list[float]]:
        return self.embedder.encode(list(input_data_list)).tolist() if input_data_list else []


class EmbeddingReranker(CrossEncoderClient):
    """Ranks passages by cosine similarity to the query under the shared embedder."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder

    async def rank(self, query: str, passages: list[str]) -> list[tuple[str, float]]:
        if not passages:
            return []
        vectors = self.embedder.encode([query, *passages])
        scores = vectors[1:] @ vectors[0]
        order = np.argsort(-scores, kind="stable")
        return [(passages[i], float(scores[i])) for i in order]
