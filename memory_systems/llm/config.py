"""Where and how to call an OpenAI-compatible chat endpoint: :class:`LLMConfig` and its checks."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from memsuite.memory_systems.errors import ConfigError

OPENAI_BASE_URL = "https://api.openai.com/v1"
#: Placeholder key for endpoints that ignore keys (vLLM, Ollama, llama.cpp); the SDK insists on one.
NO_KEY = "not-needed"


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
    deadline_s: float = 120.0
    """Most seconds one call takes, every attempt and backoff included: an attempt's timeout is cut to
    what is left, and no retry starts after it. The call then fails as a ``timeout``."""
    preflight_timeout_s: float = 8.0
    """Timeout of the one tiny request a run sends to this endpoint before any unit starts (0: none)."""
    max_consecutive_failures: int = 3
    """Calls in a row that may fail on the endpoint (timeout, refused, 429 or 5xx after their retries,
    a reply that is no chat completion) before the endpoint counts as down: later calls fail at once
    as ``endpoint_down`` and a run stops (0: never)."""
    cache: bool = True
    """Use the on-disk response cache (when the client was given a cache path). With temperature > 0
    a rerun replays the first sample rather than drawing a new one."""
    seed: int | None = None
    """Sampling seed sent with each request, for endpoints that honour it."""
    revision: str | None = None
    """What the model name alone does not say about the weights behind it (a checkpoint hash, a date):
    part of the cache key and of the run header. The embedded model sets its file's fingerprint."""
    wiring_only: bool = False
    """True for models too small to measure quality (the embedded 135M model); recorded in runs."""
    send_account: bool = False
    """Send each call's account (``<system>@<unit>`` in a run) in the ``X-Memsuite-Account`` header: the
    gold-backed oracle endpoint (eval/oracle/) finds the unit's gold by it. Not part of the cache key."""
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
            check_config(config)
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"{source}: {exc}") from exc
        return config


def check_config(config: LLMConfig) -> None:
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
    for name in ("deadline_s", "preflight_timeout_s"):
        value = getattr(config, name)
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise ValueError(f"{name!r} must be a non-negative number of seconds, got {value!r}")
    if not config.deadline_s:
        raise ValueError("'deadline_s' must be positive")
    limit = config.max_consecutive_failures
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise ValueError(f"'max_consecutive_failures' must be a non-negative integer, got {limit!r}")
    if (
        isinstance(config.max_retries, bool)
        or not isinstance(config.max_retries, int)
        or config.max_retries < 0
    ):
        raise ValueError(f"'max_retries' must be a non-negative integer, got {config.max_retries!r}")
