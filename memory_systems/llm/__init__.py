"""The LLM layer: one client for any OpenAI-compatible endpoint, accounted, cached, never crashing a run.

Modules: config (LLMConfig), client (calls, retries), cache (ResponseCache), pricing (PriceTable),
jsonparse (parse_json), accounting (the ledgers), replies (responses and errors), results, spec (open_llm),
protocol (ChatClient, EndpointClient: what systems, judges and adapters ask of a client).

Every LLM use in memsuite (a system's internal LLM, the answer LLM, LLM judges, adapters over mem0ai
and graphiti-core) goes through :class:`LLMClient` (docs/llm-endpoints.md):

- **Accounting**: requests, cache hits, failures, prompt/completion tokens and wall time per
  (memory system, phase); :meth:`LLMClient.usage` sums them into a
  :class:`~memsuite.memory_systems.records.Usage` and :meth:`LLMClient.cost_usd` prices them with an editable
  :class:`PriceTable`.
- **Cache**: responses are stored in SQLite keyed by the SHA-256 of the full request (model, messages
  and every parameter), so a rerun makes no calls; safe with several threads and processes.
- **Failures are values**: timeouts, refused connections and HTTP errors are retried with backoff
  when transient; JSON replies are parsed robustly (fences, trailing prose, repair, one retry asking
  for valid JSON). What still fails comes back as ``LLMResult.failure`` and is counted, never raised.

:func:`open_llm` turns a config value (``"local"`` or a mapping) into a ready client; ``"local"``
starts the embedded SmolLM2 server (memory_systems/llm_server.py) and stops it afterwards.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memsuite.memory_systems.llm.cache import CACHE_VERSION, ResponseCache, request_key
    from memsuite.memory_systems.llm.client import JSON_RETRY_PROMPT, LLMClient
    from memsuite.memory_systems.llm.config import NO_KEY, OPENAI_BASE_URL, LLMConfig
    from memsuite.memory_systems.llm.jsonparse import parse_json
    from memsuite.memory_systems.llm.pricing import DEFAULT_PRICES, PriceTable
    from memsuite.memory_systems.llm.protocol import ChatClient, EndpointClient
    from memsuite.memory_systems.llm.results import FAILURE_KINDS, LLMFailure, LLMResult, ToolCall
    from memsuite.memory_systems.llm.spec import local_config, open_llm

# Name -> the module defining it. Loaded on first use: the client imports the openai SDK (over a
# second), which a run without an LLM (retrieval only) never needs, yet every importer of a light
# module here (protocol, results) would pay for it through this package.
_HOMES = {
    **dict.fromkeys(("CACHE_VERSION", "ResponseCache", "request_key"), "cache"),
    **dict.fromkeys(("JSON_RETRY_PROMPT", "LLMClient"), "client"),
    **dict.fromkeys(("NO_KEY", "OPENAI_BASE_URL", "LLMConfig"), "config"),
    "parse_json": "jsonparse",
    **dict.fromkeys(("DEFAULT_PRICES", "PriceTable"), "pricing"),
    **dict.fromkeys(("ChatClient", "EndpointClient"), "protocol"),
    **dict.fromkeys(("FAILURE_KINDS", "LLMFailure", "LLMResult", "ToolCall"), "results"),
    **dict.fromkeys(("local_config", "open_llm"), "spec"),
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


__all__ = [
    "CACHE_VERSION",
    "DEFAULT_PRICES",
    "FAILURE_KINDS",
    "JSON_RETRY_PROMPT",
    "NO_KEY",
    "OPENAI_BASE_URL",
    "ChatClient",
    "EndpointClient",
    "LLMClient",
    "LLMConfig",
    "LLMFailure",
    "LLMResult",
    "PriceTable",
    "ResponseCache",
    "ToolCall",
    "local_config",
    "open_llm",
    "parse_json",
    "request_key",
]
