"""The one LLM client: any OpenAI-compatible endpoint, accounted, cached on disk, never crashing a run.

Every LLM use in memsuite (a system's internal LLM, the answer LLM, LLM judges, adapters over mem0ai
and graphiti-core) goes through :class:`LLMClient` (README: LLM endpoints):

- **Accounting**: requests, cache hits, failures, prompt/completion tokens and wall time per
  (memory system, phase); :meth:`LLMClient.usage` sums them into a :class:`~memory_systems.records.Usage`
  and :meth:`LLMClient.cost_usd` prices them with an editable :class:`PriceTable`.
- **Cache**: responses are stored in SQLite keyed by the SHA-256 of the full request (model, messages
  and every parameter), so a rerun makes no calls; safe with several threads and processes.
- **Failures are values**: timeouts, refused connections and HTTP errors are retried with backoff
  when transient; JSON replies are parsed robustly (fences, trailing prose, repair, one retry asking
  for valid JSON). What still fails comes back as ``LLMResult.failure`` and is counted, never raised.

:func:`open_llm` turns a config value (``"local"`` or a mapping) into a ready client; ``"local"``
starts the embedded SmolLM2 server (memory_systems/llm_server.py) and stops it afterwards.
"""

from __future__ import annotations

import copy
import difflib
import hashlib
import json
import logging
import os
import random
import re
import sqlite3
import threading
import time
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, fields, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import json_repair
import openai
import yaml

from memory_systems.errors import ConfigError, InvalidInputError
from memory_systems.ratelimit import RateLimiter
from memory_systems.records import PHASES, Usage

logger = logging.getLogger(__name__)

#: Kinds of :class:`LLMFailure`.
FAILURE_KINDS = (
    "timeout",  # no reply within timeout_s, on every attempt
    "connection",  # refused, reset or unreachable, on every attempt
    "rate_limit",  # HTTP 429 on every attempt
    "http_error",  # any other HTTP error status (transient 408/409/5xx are retried first)
    "context_length",  # the prompt does not fit the model's context window (HTTP 400, not retried)
    "invalid_json",  # chat_json: no JSON object or array even after repair and one retry
    "bad_response",  # a 200 reply that is not a chat completion (no choices, unparseable body)
)

#: Bump when the request or stored-response layout changes: old cache rows then simply miss.
CACHE_VERSION = 1
OPENAI_BASE_URL = "https://api.openai.com/v1"
#: Placeholder key for endpoints that ignore keys (vLLM, Ollama, llama.cpp); the SDK insists on one.
NO_KEY = "not-needed"

_JSON_RETRY_PROMPT = (
    "Your previous reply was not valid JSON. Reply again with only one valid JSON object: "
    "no code fences, no text before or after it."
)
_CONTEXT_LENGTH = re.compile(
    r"context[ _-]?length|context window|maximum context|too many tokens|exceeds? the (?:model|context)",
    re.IGNORECASE,
)
_FENCE = re.compile(r"^\s*```[\w-]*\s*\n?(.*?)\n?\s*```", re.DOTALL)


# --------------------------------------------------------------------------------------------------
# Records
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LLMConfig:
    """Where and how to call an OpenAI-compatible chat endpoint.

    A config value in YAML is a mapping with these keys (see :meth:`from_dict`); every field that
    changes what the model is asked (model, temperature, max_tokens, json_mode, seed) is part of the
    cache key, the rest is not.
    """

    model: str
    """Model name sent with each request (``gpt-4o-mini``, ``Qwen/Qwen2.5-7B-Instruct``, ``llama3.1``)."""
    base_url: str = OPENAI_BASE_URL
    """Endpoint base URL ending in ``/v1``; not part of the cache key (the local server's port varies)."""
    api_key: str | None = field(default=None, repr=False)
    """Literal API key. Prefer ``api_key_env``: a literal key ends up in the run's resolved config."""
    api_key_env: str | None = "OPENAI_API_KEY"
    """Environment variable read once, when the client is built, if ``api_key`` is not given."""
    temperature: float = 0.0
    """Default sampling temperature (a call may override it)."""
    max_tokens: int = 500
    """Default completion budget in tokens (a call may override it)."""
    json_mode: bool = False
    """Send ``response_format={"type": "json_object"}`` by default."""
    timeout_s: float = 60.0
    """Timeout of one request attempt in seconds (connect, and each wait for bytes)."""
    max_retries: int = 3
    """Extra attempts after a transient failure (timeout, connection, 408/409/429/5xx)."""
    backoff_s: float = 1.0
    """Delay before the first retry in seconds; doubles each retry, with jitter, capped at 30 s."""
    cache: bool = True
    """Use the on-disk response cache (when the client was given a cache path). With temperature > 0
    a rerun replays the first sample rather than drawing a new one."""
    seed: int | None = None
    """Sampling seed sent with each request, for endpoints that honour it."""
    wiring_only: bool = False
    """True for models too small to measure quality (the embedded 135M model); recorded in runs."""
    max_concurrency: int | None = None
    """Most requests in flight to this endpoint at once, over all threads (None: unlimited)."""
    requests_per_s: float | None = None
    """Most requests started per second (None: unlimited); 429s are still retried with backoff."""
    tokens_per_min: float | None = None
    """Most prompt + completion tokens per minute, estimated before a call and corrected after."""

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, source: str = "llm") -> LLMConfig:
        """Validate a mapping from a config file into an :class:`LLMConfig`.

        Args:
            data: Keys as the fields of this class; ``model`` is required.
            source: Where the mapping came from, for error messages.

        Returns:
            The config.

        Raises:
            ConfigError: A key is unknown (the message names the nearest valid key), ``model`` is
                missing, or a value has the wrong type or range.
        """
        if not isinstance(data, Mapping):
            raise ConfigError(f"{source}: an LLM config is a mapping, got {type(data).__name__}")
        valid = {f.name for f in fields(cls)}
        for key in data:
            if key not in valid:
                close = difflib.get_close_matches(str(key), valid, n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                raise ConfigError(
                    f"{source}: unknown LLM key {key!r}{hint} (valid: {', '.join(sorted(valid))})"
                )
        if not data.get("model"):
            raise ConfigError(f"{source}: an LLM config needs 'model'")
        try:
            config = cls(**dict(data))
            _check_config(config)
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"{source}: {exc}") from exc
        return config


def _check_config(config: LLMConfig) -> None:
    if not isinstance(config.model, str) or not isinstance(config.base_url, str):
        raise ValueError("'model' and 'base_url' must be strings")
    if isinstance(config.temperature, bool) or not isinstance(config.temperature, int | float):
        raise ValueError(f"'temperature' must be a number, got {config.temperature!r}")
    if not isinstance(config.timeout_s, int | float) or not isinstance(config.backoff_s, int | float):
        raise ValueError("'timeout_s' and 'backoff_s' must be numbers of seconds")
    if not 0.0 <= float(config.temperature) <= 2.0:
        raise ValueError(f"'temperature' must be within 0..2, got {config.temperature!r}")
    if isinstance(config.max_tokens, bool) or not isinstance(config.max_tokens, int) or config.max_tokens < 1:
        raise ValueError(f"'max_tokens' must be a positive integer, got {config.max_tokens!r}")
    if float(config.timeout_s) <= 0:
        raise ValueError(f"'timeout_s' must be positive, got {config.timeout_s!r}")
    if (
        isinstance(config.max_retries, bool)
        or not isinstance(config.max_retries, int)
        or config.max_retries < 0
    ):
        raise ValueError(f"'max_retries' must be a non-negative integer, got {config.max_retries!r}")


@dataclass(frozen=True)
class LLMFailure:
    """Why a call produced no usable result. Callers count it and record it; it is never raised."""

    kind: str
    """One of :data:`FAILURE_KINDS`."""
    message: str
    """Human-readable detail (the endpoint's error text, or the reply that failed to parse)."""
    status_code: int | None = None
    """HTTP status, when the endpoint answered with an error."""
    attempts: int = 1
    """Requests sent before giving up."""


@dataclass(frozen=True)
class ToolCall:
    """A function call the model asked for."""

    id: str
    """Call id, to answer with a ``{"role": "tool", "tool_call_id": id}`` message."""
    name: str
    """Function name."""
    arguments_json: str
    """Arguments exactly as the model wrote them."""
    arguments: dict[str, Any] | None
    """Arguments parsed (with repair); None when they are not a JSON object."""


@dataclass(frozen=True)
class LLMResult:
    """What one chat call gave back. Check ``failure`` (or ``ok``) before using the rest."""

    text: str = ""
    """The reply's text ("" when it only called tools, or on failure)."""
    data: Any = None
    """Parsed JSON (dict or list) in JSON mode, else None."""
    tool_calls: tuple[ToolCall, ...] = ()
    """Tool calls requested by the model."""
    prompt_tokens: int = 0
    """Prompt tokens as the endpoint counted them (summed over a JSON retry)."""
    completion_tokens: int = 0
    """Completion tokens as the endpoint counted them (summed over a JSON retry)."""
    cached: bool = False
    """Served from the on-disk cache (no request made)."""
    wall_s: float = 0.0
    """Wall time inside the client, seconds, including retries and backoff."""
    failure: LLMFailure | None = None
    """Why the call failed, or None on success."""
    finish_reason: str | None = None
    """``stop``, ``length`` (hit max_tokens), ``tool_calls``, ... as the endpoint reported it."""

    @property
    def ok(self) -> bool:
        """True when the call succeeded (``failure`` is None)."""
        return self.failure is None

    def assistant_message(self) -> dict[str, Any]:
        """The reply as a message to append to the conversation (e.g. in a tool-calling loop)."""
        message: dict[str, Any] = {"role": "assistant", "content": self.text or None}
        if self.tool_calls:
            message["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments_json}}
                for c in self.tool_calls
            ]
        return message


#: Built-in prices, USD per 1M (prompt, completion) tokens: OpenAI's list prices as of 2025; edit or
#: override with :meth:`PriceTable.load`. Local models cost nothing.
DEFAULT_PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "local": (0.0, 0.0),
    "SmolLM2-135M-Instruct.Q4_1": (0.0, 0.0),
}


@dataclass(frozen=True)
class PriceTable:
    """USD per 1M prompt and completion tokens, by model name. Edit it, or load one from a file.

    A model is looked up by exact name, then by the longest listed prefix, so dated snapshots
    (``gpt-4o-2024-08-06``) get their family's price. Unlisted models have no price (cost None).
    """

    usd_per_1m: Mapping[str, tuple[float, float]] = field(default_factory=lambda: dict(DEFAULT_PRICES))
    """Model name -> (USD per 1M prompt tokens, USD per 1M completion tokens)."""

    @classmethod
    def load(cls, path: str | Path, *, base: PriceTable | None = None) -> PriceTable:
        """Read a YAML or JSON price file and lay it over ``base`` (default: the built-in table).

        The file maps a model name to ``[prompt, completion]`` or ``{prompt: x, completion: y}``,
        both in USD per 1M tokens.

        Raises:
            ConfigError: The file is unreadable or an entry is malformed (the message names it).
        """
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
            raw = json.loads(text) if path.suffix.lower() == ".json" else yaml.safe_load(text)
        except (OSError, ValueError, yaml.YAMLError) as exc:
            raise ConfigError(f"price table {path}: {exc}") from exc
        if not isinstance(raw, Mapping):
            raise ConfigError(f"price table {path}: expected a mapping of model -> prices")
        prices = dict((base or cls()).usd_per_1m)
        for model, entry in raw.items():
            if isinstance(entry, Mapping) and set(entry) == {"prompt", "completion"}:
                entry = (entry["prompt"], entry["completion"])
            if (
                not isinstance(entry, Sequence)
                or isinstance(entry, str)
                or len(entry) != 2
                or not all(isinstance(v, int | float) and not isinstance(v, bool) and v >= 0 for v in entry)
            ):
                raise ConfigError(
                    f"price table {path}: model {model!r}: expected [prompt, completion] or "
                    f"{{prompt: x, completion: y}} in USD per 1M tokens, got {entry!r}"
                )
            prices[str(model)] = (float(entry[0]), float(entry[1]))
        return cls(prices)

    def price(self, model: str) -> tuple[float, float] | None:
        """(prompt, completion) USD per 1M tokens for ``model``, or None when it is not listed."""
        if model in self.usd_per_1m:
            return self.usd_per_1m[model]
        prefixes = [name for name in self.usd_per_1m if model.startswith(name)]
        return self.usd_per_1m[max(prefixes, key=len)] if prefixes else None

    def cost(self, model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
        """USD for the given token counts, or None when ``model`` has no price."""
        price = self.price(model)
        if price is None:
            return None
        return (prompt_tokens * price[0] + completion_tokens * price[1]) / 1_000_000


# --------------------------------------------------------------------------------------------------
# JSON parsing
# --------------------------------------------------------------------------------------------------


def parse_json(text: str) -> dict[str, Any] | list[Any] | None:
    """Parse a JSON object or array out of a model's reply, robustly.

    Tries, in order: the text as is (minus code fences); the first object or array in it, ignoring
    prose before and after; ``json_repair`` (trailing commas, single quotes, truncated replies).

    Args:
        text: The reply.

    Returns:
        The parsed dict or list, or None when no object or array can be recovered (scalars such as
        ``42`` or ``"yes"`` count as not recovered).
    """
    if not text or not text.strip():
        return None
    fenced = _FENCE.search(text)
    candidate = (fenced.group(1) if fenced else text).strip()
    try:
        value = json.loads(candidate)
        if isinstance(value, dict | list):
            return value
    except ValueError:
        pass
    decoder = json.JSONDecoder()
    for match in re.finditer(r"[\{\[]", candidate):
        try:
            value, _ = decoder.raw_decode(candidate, match.start())
        except ValueError:
            continue
        if isinstance(value, dict | list):
            return value
    try:
        value = json_repair.loads(candidate)
    except Exception:  # json_repair is best-effort; any crash in it just means "not recoverable"
        logger.debug("json_repair raised on %r", candidate[:200], exc_info=True)
        return None
    # json_repair returns "" for prose and scalars for scalar input; an empty list means "found nothing".
    if isinstance(value, dict) or (isinstance(value, list) and value):
        return value
    return None


# --------------------------------------------------------------------------------------------------
# Response cache
# --------------------------------------------------------------------------------------------------


def request_key(request: Mapping[str, Any]) -> str:
    """Cache key of a request: SHA-256 of its canonical JSON (sorted keys, no whitespace).

    Raises:
        InvalidInputError: The request holds something that is not JSON (e.g. an SDK object).
    """
    try:
        canonical = json.dumps(
            {"cache_version": CACHE_VERSION, **request},
            sort_keys=True,
            ensure_ascii=False,
            separators=(",", ":"),
            allow_nan=False,
        )
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"LLM request is not plain JSON (messages, tools): {exc}") from exc
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class ResponseCache:
    """LLM responses in one SQLite file, keyed by :func:`request_key`.

    Safe with several threads (one connection per thread) and several processes (WAL journal, a
    busy timeout, and ``INSERT OR REPLACE``: two writers of the same key store the same response).

    Args:
        path: The SQLite file (its folder is created).
        busy_timeout_s: How long a writer waits for another's lock before giving up.
    """

    def __init__(self, path: str | Path, *, busy_timeout_s: float = 30.0) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.busy_timeout_s = busy_timeout_s
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self._conn()  # create the schema now, so a bad path fails at construction

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(
                self.path, timeout=self.busy_timeout_s, isolation_level=None, check_same_thread=False
            )
            # busy_timeout first: switching to WAL needs a lock another process may briefly hold.
            conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout_s * 1000)}")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")  # WAL + NORMAL: durable across app crashes
            conn.execute(
                "CREATE TABLE IF NOT EXISTS responses ("
                " key TEXT PRIMARY KEY, request TEXT NOT NULL, response TEXT NOT NULL,"
                " created_at TEXT NOT NULL)"
            )
            self._local.conn = conn
            with self._lock:
                self._connections.append(conn)
        return conn

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored response for ``key``, or None."""
        row = self._conn().execute("SELECT response FROM responses WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        try:
            return json.loads(row[0])
        except ValueError:  # a row written by a broken build: treat as a miss, it gets overwritten
            logger.warning("unreadable LLM cache row %s in %s; ignoring it", key[:12], self.path)
            return None

    def put(self, key: str, request: Mapping[str, Any], response: Mapping[str, Any]) -> None:
        """Store a response (the request is kept too, to make the cache inspectable)."""
        self._conn().execute(
            "INSERT OR REPLACE INTO responses (key, request, response, created_at) VALUES (?, ?, ?, ?)",
            (
                key,
                json.dumps(request, ensure_ascii=False, sort_keys=True),
                json.dumps(response, ensure_ascii=False),
                datetime.now(UTC).isoformat(timespec="seconds"),
            ),
        )

    def __len__(self) -> int:
        return self._conn().execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        """Close every thread's connection."""
        with self._lock:
            for conn in self._connections:
                conn.close()
            self._connections.clear()
        self._local = threading.local()


# --------------------------------------------------------------------------------------------------
# Accounting
# --------------------------------------------------------------------------------------------------


@dataclass
class _Tally:
    requests: int = 0
    cache_hits: int = 0
    failures: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_prompt_tokens: int = 0
    cached_completion_tokens: int = 0
    wall_s: float = 0.0
    failure_kinds: Counter = field(default_factory=Counter)


class _Ledger:
    """Counters per (memory system, phase), shared by a client and its per-system views."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tallies: dict[tuple[str, str], _Tally] = {}

    def add(self, system_name: str, phase: str, **counts: Any) -> None:
        with self._lock:
            tally = self._tallies.setdefault((system_name, phase), _Tally())
            for name, value in counts.items():
                if name == "failure_kind":
                    tally.failure_kinds[value] += 1
                else:
                    setattr(tally, name, getattr(tally, name) + value)

    def select(self, system_name: str | None, phase: str | None) -> list[tuple[str, _Tally]]:
        with self._lock:
            return [
                (p, copy.deepcopy(t))
                for (s, p), t in self._tallies.items()
                if (system_name is None or s == system_name) and (phase is None or p == phase)
            ]


# --------------------------------------------------------------------------------------------------
# The client
# --------------------------------------------------------------------------------------------------


def _resolve_api_key(config: LLMConfig, environ: Mapping[str, str]) -> str:
    if config.api_key:
        return config.api_key
    if config.api_key_env and environ.get(config.api_key_env):
        return environ[config.api_key_env]
    if config.base_url.rstrip("/") == OPENAI_BASE_URL:
        where = f"set ${config.api_key_env}" if config.api_key_env else "set api_key_env (or api_key)"
        raise ConfigError(f"LLM {config.model!r} at {OPENAI_BASE_URL} needs an API key: {where}")
    return NO_KEY


class LLMClient:
    """Chat with an OpenAI-compatible endpoint; account, cache, retry, and never raise on the endpoint.

    Thread-safe: share one client between workers. Give each memory system its own view with
    :meth:`for_system` so that its calls are accounted to it.

    Args:
        config: Endpoint, model and defaults.
        cache_path: SQLite file of the response cache, or None for no cache (``config.cache`` False
            also disables it).
        prices: Price table for :meth:`cost_usd`; default the built-in one.
        environ: Where ``config.api_key_env`` is looked up, once, now; default ``os.environ``.
        identity_extra: More facts for :meth:`identity` (e.g. the local server's context window).

    Raises:
        ConfigError: No API key for OpenAI's endpoint, or a bad config value.
    """

    def __init__(
        self,
        config: LLMConfig,
        *,
        cache_path: str | Path | None = None,
        prices: PriceTable | None = None,
        environ: Mapping[str, str] | None = None,
        identity_extra: Mapping[str, Any] | None = None,
    ) -> None:
        try:
            _check_config(config)
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"LLM config: {exc}") from exc
        self.config = config
        self.prices = prices or PriceTable()
        self._identity_extra = dict(identity_extra or {})
        api_key = _resolve_api_key(config, os.environ if environ is None else environ)
        try:
            self._cache = ResponseCache(cache_path) if cache_path is not None and config.cache else None
        except (OSError, sqlite3.Error) as exc:
            raise ConfigError(f"LLM response cache {cache_path} cannot be opened: {exc}") from exc
        # The SDK's own retries are off: ours count every attempt and classify failures.
        self._sdk = openai.OpenAI(
            api_key=api_key,
            base_url=config.base_url,
            max_retries=0,
            timeout=config.timeout_s,
        )
        try:
            self._limiter = RateLimiter(
                requests_per_s=config.requests_per_s,
                tokens_per_min=config.tokens_per_min,
                max_concurrency=config.max_concurrency,
            )
        except ValueError as exc:
            raise ConfigError(f"LLM config: {exc}") from exc
        self._ledger = _Ledger()
        self._rng = random.Random()  # backoff jitter only; never affects results
        self._system_name = ""

    # -- views and identity -------------------------------------------------------------------------

    @property
    def system_name(self) -> str:
        """The memory system this view accounts calls to ("" for the shared client)."""
        return self._system_name

    def for_system(self, system_name: str) -> LLMClient:
        """A view of this client whose calls are accounted to ``system_name``.

        It shares endpoint, cache and counters with this client; its :meth:`usage` defaults to its
        own system.
        """
        view = copy.copy(self)
        view._system_name = system_name
        return view

    def endpoint(self) -> dict[str, str]:
        """``base_url``, ``api_key`` and ``model`` for libraries that build their own OpenAI client.

        mem0ai and graphiti-core take an OpenAI-compatible endpoint, not this client: their calls
        bypass its cache and accounting, so adapters report those libraries' usage themselves.
        """
        return {"base_url": self.config.base_url, "api_key": self._sdk.api_key, "model": self.config.model}

    def identity(self) -> dict[str, Any]:
        """What a run header records about this LLM (never the API key).

        ``wiring_only`` is True for the embedded 135M model: its outputs prove the wiring, not quality.
        """
        ident: dict[str, Any] = {
            "model": self.config.model,
            "base_url": self.config.base_url,
            "temperature": self.config.temperature,
            "max_tokens": self.config.max_tokens,
            "json_mode": self.config.json_mode,
            "seed": self.config.seed,
            "cache": self._cache is not None,
            "wiring_only": self.config.wiring_only,
        }
        if self.config.wiring_only:
            ident["note"] = "small local model: outputs prove the wiring end to end, not answer quality"
        ident.update(self._identity_extra)
        return ident

    # -- calls -------------------------------------------------------------------------------------

    def chat(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        phase: str,
        system_name: str | None = None,
        json_mode: bool | None = None,
        tools: Sequence[Mapping[str, Any]] | None = None,
        tool_choice: str | Mapping[str, Any] | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> LLMResult:
        """Send one chat completion request (or serve it from the cache).

        Args:
            messages: OpenAI-style messages (``{"role", "content"}``, tool results, ...), plain JSON.
            phase: What the call is for: one of ``ingest``, ``retrieve``, ``answer``, ``judge``.
            system_name: Memory system to account the call to; default this view's system.
            json_mode: Ask for a JSON object (``response_format`` json_object); default the config's.
                The reply is then parsed into ``data`` best-effort (use :meth:`chat_json` for a
                retry and a counted failure when it is not JSON).
            tools: OpenAI tool (function) definitions.
            tool_choice: ``"auto"``, ``"required"`` or ``{"type": "function", "function": {"name"}}``.
            temperature: Overrides the config's temperature.
            max_tokens: Overrides the config's completion budget.

        Returns:
            The result; on failure ``result.failure`` says why (also counted in :meth:`usage`).

        Raises:
            InvalidInputError: Bad arguments (unknown phase, empty messages, non-JSON content):
                mistakes in the calling code, not endpoint trouble.
        """
        json_mode = self.config.json_mode if json_mode is None else json_mode
        request = self._request(messages, phase, json_mode, tools, tool_choice, temperature, max_tokens)
        result = self._complete(request, phase, self._account_to(system_name))
        if json_mode and result.ok:
            result = replace(result, data=parse_json(result.text))
        return result

    def chat_json(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        phase: str,
        system_name: str | None = None,
        tools: Sequence[Mapping[str, Any]] | None = None,
        tool_choice: str | Mapping[str, Any] | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> LLMResult:
        """Ask for a JSON object and parse it robustly; retry once asking for valid JSON.

        Arguments as :meth:`chat`. The reply is parsed with :func:`parse_json`; when that fails, the
        reply and a request for valid JSON are appended and the model is asked once more.

        Returns:
            The result with ``data`` a dict or list; or ``failure.kind == "invalid_json"`` (counted)
            when the second reply does not parse either, or the endpoint's failure. Token counts and
            wall time cover both requests.
        """
        system_name = self._account_to(system_name)
        request = self._request(messages, phase, True, tools, tool_choice, temperature, max_tokens)
        first = self._complete(request, phase, system_name)
        if not first.ok:
            return first
        data = parse_json(first.text)
        if data is not None:
            return replace(first, data=data)
        logger.info("reply is not JSON, asking again: %r", first.text[:200])
        retry_messages = [
            *request["messages"],
            {"role": "assistant", "content": first.text},
            {"role": "user", "content": _JSON_RETRY_PROMPT},
        ]
        second = self._complete({**request, "messages": retry_messages}, phase, system_name)
        combined = replace(
            second,
            prompt_tokens=first.prompt_tokens + second.prompt_tokens,
            completion_tokens=first.completion_tokens + second.completion_tokens,
            wall_s=first.wall_s + second.wall_s,
            cached=first.cached and second.cached,
        )
        if not second.ok:
            return combined
        data = parse_json(second.text)
        if data is not None:
            return replace(combined, data=data)
        failure = LLMFailure(
            "invalid_json", f"no JSON object in the reply after one retry: {second.text[:300]!r}", attempts=2
        )
        self._ledger.add(system_name, phase, failures=1, failure_kind="invalid_json")
        logger.warning("LLM %s (%s/%s): %s", self.config.model, system_name or "-", phase, failure.message)
        return replace(combined, failure=failure)

    # -- accounting --------------------------------------------------------------------------------

    def usage(self, system_name: str | None = None, phase: str | None = None) -> Usage:
        """Calls, tokens and wall time so far, summed over the selected systems and phases.

        ``llm_calls`` counts requests actually sent (retries included); cache hits count in
        ``cache_hits`` instead. Token counts include the tokens of cached responses, so a rerun
        served from the cache reports the same workload as the run that paid for it (see
        :meth:`cost_usd` for what was billed now). ``wall_s`` is time spent inside this client.

        Args:
            system_name: One memory system; default this view's system, or all on the shared client.
            phase: One phase; default all.
        """
        usage = Usage()
        for tally_phase, t in self._ledger.select(self._account_to(system_name) or None, phase):
            usage = usage + Usage(
                llm_calls=t.requests,
                prompt_tokens=t.prompt_tokens + t.cached_prompt_tokens,
                completion_tokens=t.completion_tokens + t.cached_completion_tokens,
                llm_failures=t.failures,
                cache_hits=t.cache_hits,
                wall_s={tally_phase: t.wall_s},
            )
        return usage

    def failure_counts(self, system_name: str | None = None, phase: str | None = None) -> dict[str, int]:
        """Failures so far by kind (see :data:`FAILURE_KINDS`), for the selected systems and phases."""
        total: Counter = Counter()
        for _, t in self._ledger.select(self._account_to(system_name) or None, phase):
            total.update(t.failure_kinds)
        return dict(total)

    def cost_usd(
        self, system_name: str | None = None, phase: str | None = None, *, billed_only: bool = False
    ) -> float | None:
        """Cost in USD of the selected calls at this client's model price.

        Args:
            system_name: As in :meth:`usage`.
            phase: As in :meth:`usage`.
            billed_only: Count only responses fetched now, not those served from the cache.

        Returns:
            USD, or None when the model is not in the price table.
        """
        prompt = completion = 0
        for _, t in self._ledger.select(self._account_to(system_name) or None, phase):
            prompt += t.prompt_tokens + (0 if billed_only else t.cached_prompt_tokens)
            completion += t.completion_tokens + (0 if billed_only else t.cached_completion_tokens)
        return self.prices.cost(self.config.model, prompt, completion)

    def close(self) -> None:
        """Release the HTTP connection pool and the cache's database connections."""
        self._sdk.close()
        if self._cache is not None:
            self._cache.close()

    # -- internals ---------------------------------------------------------------------------------

    def _account_to(self, system_name: str | None) -> str:
        return self._system_name if system_name is None else system_name

    def _request(
        self,
        messages: Sequence[Mapping[str, Any]],
        phase: str,
        json_mode: bool,
        tools: Sequence[Mapping[str, Any]] | None,
        tool_choice: str | Mapping[str, Any] | None,
        temperature: float | None,
        max_tokens: int | None,
    ) -> dict[str, Any]:
        if phase not in PHASES:
            raise InvalidInputError(f"unknown LLM phase {phase!r}; expected one of {', '.join(PHASES)}")
        if isinstance(messages, str | bytes) or not messages:
            raise InvalidInputError("messages must be a non-empty list of {'role', 'content'} mappings")
        for i, message in enumerate(messages):
            if not isinstance(message, Mapping) or "role" not in message:
                raise InvalidInputError(f"messages[{i}] must be a mapping with a 'role', got {message!r:.80}")
        # Only parameters that are set go into the request, so adding an optional parameter later
        # does not change the cache key of requests that do not use it.
        request: dict[str, Any] = {
            "model": self.config.model,
            "messages": [dict(m) for m in messages],
            "temperature": self.config.temperature if temperature is None else temperature,
            "max_tokens": self.config.max_tokens if max_tokens is None else max_tokens,
        }
        if json_mode:
            request["response_format"] = {"type": "json_object"}
        if tools:
            request["tools"] = [dict(t) for t in tools]
        if tool_choice is not None:
            request["tool_choice"] = tool_choice if isinstance(tool_choice, str) else dict(tool_choice)
        if self.config.seed is not None:
            request["seed"] = self.config.seed
        return request

    def _complete(self, request: dict[str, Any], phase: str, system_name: str) -> LLMResult:
        """Serve from the cache or send with retries; account everything; never raise on the endpoint."""
        started = time.perf_counter()
        key = request_key(request)
        if self._cache is not None:
            stored = self._cache_get(key)
            if stored is not None:
                wall = time.perf_counter() - started
                self._ledger.add(
                    system_name,
                    phase,
                    cache_hits=1,
                    cached_prompt_tokens=stored["prompt_tokens"],
                    cached_completion_tokens=stored["completion_tokens"],
                    wall_s=wall,
                )
                return _result(stored, cached=True, wall_s=wall)

        failure: LLMFailure | None = None
        attempts = self.config.max_retries + 1
        for attempt in range(attempts):
            self._ledger.add(system_name, phase, requests=1)
            try:
                with self._limiter.slot(_estimate_tokens(request)) as slot:
                    response = self._sdk.chat.completions.create(**request, timeout=self.config.timeout_s)
                    stored = _normalise(response)
                    slot.settle(stored["prompt_tokens"] + stored["completion_tokens"])
            except Exception as exc:  # classified below; anything unexpected becomes a counted failure
                failure, transient, retry_after = _classify(exc)
                failure = replace(failure, attempts=attempt + 1)
                if not transient or attempt == attempts - 1:
                    break
                delay = min(30.0, self.config.backoff_s * 2**attempt) * (0.5 + 0.5 * self._rng.random())
                if retry_after is not None:
                    delay = max(delay, min(retry_after, 60.0))
                logger.info(
                    "LLM %s: %s (%s); retry %d in %.1f s",
                    self.config.model,
                    failure.kind,
                    failure.message[:120],
                    attempt + 1,
                    delay,
                )
                time.sleep(delay)
                continue
            wall = time.perf_counter() - started
            self._ledger.add(
                system_name,
                phase,
                prompt_tokens=stored["prompt_tokens"],
                completion_tokens=stored["completion_tokens"],
                wall_s=wall,
            )
            if self._cache is not None:
                self._cache_put(key, request, stored)
            return _result(stored, cached=False, wall_s=wall)

        assert failure is not None
        wall = time.perf_counter() - started
        self._ledger.add(system_name, phase, failures=1, failure_kind=failure.kind, wall_s=wall)
        logger.warning(
            "LLM %s (%s/%s) failed after %d attempt(s): %s: %s",
            self.config.model,
            system_name or "-",
            phase,
            failure.attempts,
            failure.kind,
            failure.message[:300],
        )
        return LLMResult(wall_s=wall, failure=failure)

    def _cache_get(self, key: str) -> dict[str, Any] | None:
        try:
            return self._cache.get(key) if self._cache is not None else None
        except sqlite3.Error as exc:  # a locked or damaged cache costs a call, not the run
            logger.warning("LLM cache read failed (%s); calling the endpoint", exc)
            return None

    def _cache_put(self, key: str, request: dict[str, Any], stored: dict[str, Any]) -> None:
        try:
            if self._cache is not None:
                self._cache.put(key, request, stored)
        except sqlite3.Error as exc:
            logger.warning("LLM cache write failed (%s); the response is not cached", exc)


def _normalise(response: Any) -> dict[str, Any]:
    """The parts of a chat completion memsuite uses, as plain JSON (what the cache stores)."""
    if not getattr(response, "choices", None):
        raise _BadResponse(f"reply has no choices: {str(response)[:200]!r}")
    choice = response.choices[0]
    message = choice.message
    calls = [
        {"id": c.id or "", "name": c.function.name, "arguments": c.function.arguments or ""}
        for c in (message.tool_calls or [])
        if getattr(c, "function", None) is not None
    ]
    usage = response.usage
    return {
        "text": message.content or "",
        "tool_calls": calls,
        "finish_reason": choice.finish_reason,
        "prompt_tokens": int(getattr(usage, "prompt_tokens", 0) or 0),
        "completion_tokens": int(getattr(usage, "completion_tokens", 0) or 0),
        "model": getattr(response, "model", None),
    }


def _result(stored: Mapping[str, Any], *, cached: bool, wall_s: float) -> LLMResult:
    return LLMResult(
        text=stored["text"],
        tool_calls=tuple(
            ToolCall(
                c["id"],
                c["name"],
                c["arguments"],
                a if isinstance(a := parse_json(c["arguments"]), dict) else None,
            )
            for c in stored["tool_calls"]
        ),
        prompt_tokens=stored["prompt_tokens"],
        completion_tokens=stored["completion_tokens"],
        cached=cached,
        wall_s=wall_s,
        finish_reason=stored.get("finish_reason"),
    )


class _BadResponse(Exception):
    """A 200 reply that is not a usable chat completion."""


def _classify(exc: Exception) -> tuple[LLMFailure, bool, float | None]:
    """(failure, transient?, retry-after seconds) for an exception from a request."""
    # APITimeoutError subclasses APIConnectionError: test it first.
    if isinstance(exc, openai.APITimeoutError):
        return LLMFailure("timeout", str(exc) or "request timed out"), True, None
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__ or exc.__context__
        return LLMFailure("connection", f"{exc}: {cause}" if cause else str(exc)), True, None
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        message = _error_text(exc)
        if status in (400, 413) and _CONTEXT_LENGTH.search(message):
            return LLMFailure("context_length", message, status), False, None
        if status == 429:
            return LLMFailure("rate_limit", message, status), True, _retry_after(exc)
        return LLMFailure("http_error", message, status), status in (408, 409) or status >= 500, None
    if isinstance(
        exc, _BadResponse | openai.OpenAIError | ValueError | TypeError | AttributeError | KeyError
    ):
        return LLMFailure("bad_response", f"{type(exc).__name__}: {exc}"[:500]), False, None
    # Anything else is a bug in this module or the SDK, not endpoint trouble: let it surface.
    raise exc


def _error_text(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, Mapping):
        inner = body.get("error", body)
        if isinstance(inner, Mapping) and inner.get("message"):
            return str(inner["message"])[:500]
        if isinstance(inner, str):
            return inner[:500]
    return str(exc)[:500]


def _retry_after(exc: openai.APIStatusError) -> float | None:
    try:
        value = exc.response.headers.get("retry-after")
        return float(value) if value is not None else None
    except (AttributeError, ValueError):
        return None


# --------------------------------------------------------------------------------------------------
# From a config value to a ready client
# --------------------------------------------------------------------------------------------------

#: Keys of a ``model: local`` mapping that configure the embedded server rather than the client.
_SERVER_KEYS = ("n_ctx", "n_threads", "startup_timeout_s")


def _estimate_tokens(request: Mapping[str, Any]) -> int:
    """Tokens a request will use, before it is sent: ~4 characters a token, plus the answer budget."""
    chars = sum(len(str(m.get("content") or "")) for m in request.get("messages", ()))
    return chars // 4 + int(request.get("max_tokens") or 0)


@contextmanager
def open_llm(
    spec: str | Mapping[str, Any] | LLMConfig,
    *,
    cache_dir: str | Path | None = None,
    prices: PriceTable | None = None,
    environ: Mapping[str, str] | None = None,
) -> Iterator[LLMClient]:
    """A ready :class:`LLMClient` for a config value; starts and stops the embedded server if asked.

    Spec forms:

    - ``"local"``: the embedded SmolLM2-135M server (memory_systems/llm_server.py), started now and
      stopped when the block ends; outputs are labelled ``wiring_only``.
    - a mapping with ``model: local``: the same, with server keys ``n_ctx`` (default 2048, up to
      8192), ``n_threads`` and ``startup_timeout_s``, plus any :class:`LLMConfig` key.
    - a mapping of :class:`LLMConfig` keys (``model``, ``base_url``, ``api_key_env``, ...) for an
      external endpoint, optionally with ``prices``: a YAML/JSON price file laid over the defaults.
    - an :class:`LLMConfig`.

    Args:
        spec: The config value.
        cache_dir: Root of memsuite's caches; responses go to ``<cache_dir>/llm/responses.sqlite``.
            None disables the response cache.
        prices: Price table (a ``prices`` file in the spec is laid over it).
        environ: Where API keys are looked up; default ``os.environ``.

    Yields:
        The client, closed when the block ends.

    Raises:
        ConfigError: A malformed spec (the message names the key).
        ServerStartError: The embedded server did not start.
    """
    cache_path = Path(cache_dir) / "llm" / "responses.sqlite" if cache_dir is not None else None
    if isinstance(spec, LLMConfig):
        client = LLMClient(spec, cache_path=cache_path, prices=prices, environ=environ)
        try:
            yield client
        finally:
            client.close()
        return
    if isinstance(spec, str):
        if spec.strip().lower() != "local":
            raise ConfigError(
                f"LLM spec {spec!r}: use 'local' (embedded server) or a mapping "
                "{model, base_url, api_key_env, ...} for an endpoint"
            )
        spec = {"model": "local"}
    if not isinstance(spec, Mapping):
        raise ConfigError(f"LLM spec must be 'local' or a mapping, got {type(spec).__name__}")
    options = dict(spec)
    price_file = options.pop("prices", None)
    if price_file is not None:
        prices = PriceTable.load(price_file, base=prices)
    if options.get("model") != "local":
        config = LLMConfig.from_dict(options)
        client = LLMClient(config, cache_path=cache_path, prices=prices, environ=environ)
        try:
            yield client
        finally:
            client.close()
        return

    from memory_systems.llm_server import serve_local

    server_options = {key: options.pop(key) for key in _SERVER_KEYS if key in options}
    del options["model"]
    for fixed in ("base_url", "api_key", "api_key_env"):
        if fixed in options:
            raise ConfigError(
                f"LLM spec with model 'local': {fixed!r} is set by the embedded server; remove it"
            )
    with serve_local(**server_options) as server:
        config = local_config(server.base_url, **options)
        client = LLMClient(
            config,
            cache_path=cache_path,
            prices=prices,
            environ={},
            identity_extra={"server": "llama_cpp.server", "n_ctx": server.n_ctx},
        )
        try:
            yield client
        finally:
            client.close()


def local_config(base_url: str, **overrides: Any) -> LLMConfig:
    """The :class:`LLMConfig` for the embedded SmolLM2 server at ``base_url``.

    Defaults differ from an external endpoint's: no API key, a long timeout (a 2-core CPU serves one
    request at a time, so concurrent workers queue), one retry, and ``wiring_only`` set.

    Args:
        base_url: The server's base URL (``LocalServer.base_url``).
        **overrides: Other :class:`LLMConfig` fields (temperature, max_tokens, json_mode, ...).

    Raises:
        ConfigError: An unknown or invalid key.
    """
    from memory_systems.llm_server import LOCAL_MODEL

    values: dict[str, Any] = {
        "model": LOCAL_MODEL,
        "base_url": base_url,
        "api_key": NO_KEY,
        "api_key_env": None,
        "timeout_s": 300.0,
        "max_retries": 1,
        "wiring_only": True,
    }
    values.update(overrides)
    return LLMConfig.from_dict(values, source="local LLM")
