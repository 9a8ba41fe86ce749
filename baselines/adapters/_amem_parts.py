"""The two parts the A-MEM adapter installs into an ``AgenticMemorySystem`` (imports chromadb and
a-mem's controller base: load it lazily).

- :class:`ClientController` replaces a-mem's OpenAI controller (``OpenAIController.get_completion``
  builds its own ``OpenAI()`` client from the environment): every call goes through the run's
  :class:`~memsuite.memory_systems.llm.LLMClient`, accounted, cached, and a failed call or an unusable
  reply is counted here before it raises :class:`LibraryLLMError` into a-mem, which swallows every
  exception of its two calls and carries on with defaults (``analyze_content`` and ``process_memory``
  in ``agentic_memory/memory_system.py``). Without a client (:meth:`ClientController.offline`) it
  answers each call with a-mem's own empty value for the schema and calls nothing: ``store`` is then
  a-mem's ``add_note`` with no analysis and no evolution.
- :class:`SharedEmbeddingFunction` stands in for ``SentenceTransformerEmbeddingFunction``, which
  a-mem's ``ChromaRetriever`` builds from a model *name* (a Hub download when it is not a local folder):
  Chroma embeds through the run's shared :class:`~memsuite.memory_systems.embedder.Embedder` on the same
  MiniLM model (one model in memory, the embedding cache and its accounting).
"""

from __future__ import annotations

import json
import logging
from typing import Any

from agentic_memory.llm_controller import BaseLLMController
from chromadb.api.types import Documents, EmbeddingFunction, Embeddings

from memsuite.baselines.adapters._common import ClientAccount, LibraryLLMError
from memsuite.memory_systems.embedder import Embedder

logger = logging.getLogger(__name__)

#: a-mem's default context: a note with it keeps its embedded text equal to its content
#: (``ChromaRetriever.add_document`` appends any other context to the embedded text).
DEFAULT_CONTEXT = "General"


def reply_problem(data: Any, schema: dict[str, Any]) -> str | None:
    """Why a JSON reply does not fit the call's schema, or None when every property has its type.

    a-mem reads the properties straight from the reply (``response_json["should_evolve"]``); a reply
    missing them or of another type would be swallowed by its ``except`` as "no analysis" or "no
    evolution", so it is counted as a failed call instead of passing as a model's decision.
    """
    if not isinstance(data, dict):
        return f"not a JSON object: {json.dumps(data)[:200]}"
    types = {"array": list, "string": str, "boolean": bool, "object": dict}
    for name, spec in (schema.get("properties") or {}).items():
        expected = types.get(spec.get("type"))
        if name not in data:
            return f"no {name!r} in the reply: {json.dumps(data)[:200]}"
        if expected is not None and not isinstance(data[name], expected):
            return f"{name!r} is not a JSON {spec.get('type')}: {json.dumps(data[name])[:100]}"
    return None


class ClientController(BaseLLMController):
    """a-mem's controller interface over the run's LLM client (see the module docstring).

    Args:
        account: The adapter's account of the client, or None for :meth:`offline` answers only.
        max_tokens: Completion budget per call.
    """

    def __init__(self, account: ClientAccount | None, max_tokens: int) -> None:
        self.account = account
        self.max_tokens = max_tokens
        self.online = False
        self.failures = 0
        """Calls that failed or whose reply was unusable (a-mem went on without them)."""

    def get_completion(
        self, prompt: str, response_format: dict | None = None, temperature: float = 1.0, **_: Any
    ) -> str:
        """The reply text a-mem parses with ``json.loads``.

        Raises:
            LibraryLLMError: The call failed or its reply does not fit the schema (counted first).
        """
        schema = ((response_format or {}).get("json_schema") or {}).get("schema") or {}
        if not self.online or self.account is None or self.account.client is None:
            empty = self._generate_empty_response(response_format or {})
            if "context" in empty:
                empty["context"] = DEFAULT_CONTEXT
            return json.dumps(empty)
        # a-mem's own OpenAIController sends these two messages; the schema goes as JSON mode because
        # the run's client asks every endpoint for a JSON object, not a strict schema.
        messages = [
            {"role": "system", "content": "You must respond with a JSON object."},
            {"role": "user", "content": prompt},
        ]
        result = self.account.chat_json(messages, temperature=temperature, max_tokens=self.max_tokens)
        problem = (
            f"{result.failure.kind}: {result.failure.message[:300]}"
            if result.failure is not None
            else reply_problem(result.data, schema)
        )
        if problem is not None:
            self.failures += 1
            logger.info("a-mem call failed: %s", problem)
            raise LibraryLLMError(f"a-mem reply unusable: {problem}")
        return json.dumps(result.data, ensure_ascii=False)


class SharedEmbeddingFunction(EmbeddingFunction[Documents]):
    """Chroma's embedding-function interface over the run's shared :class:`Embedder`."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder

    def __call__(self, input: Documents) -> Embeddings:
        return list(self.embedder.encode(list(input))) if input else []

    @staticmethod
    def name() -> str:
        return "memsuite-shared-embedder"

    def get_config(self) -> dict[str, Any]:
        return {"model_path": str(self.embedder.model_path or ""), "model_name": self.embedder.model_name}

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> SharedEmbeddingFunction:
        """The function Chroma records with a collection, rebuilt on the same model (Chroma checks
        that a function can be rebuilt from its config; the model loads on first use only)."""
        return SharedEmbeddingFunction(
            Embedder(config.get("model_path") or None, model_name=config.get("model_name"))
        )
