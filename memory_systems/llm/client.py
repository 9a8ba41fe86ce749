"""The client: chat calls with retries and backoff, the response cache, and per-view accounting."""

from __future__ import annotations

import copy
import logging
import os
import random
import sqlite3
import threading
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import openai

from memsuite.memory_systems.errors import ConfigError, InvalidInputError
from memsuite.memory_systems.llm.accounting import Ledger, Tally
from memsuite.memory_systems.llm.cache import ResponseCache, request_key
from memsuite.memory_systems.llm.config import NO_KEY, OPENAI_BASE_URL, LLMConfig, check_config
from memsuite.memory_systems.llm.jsonparse import parse_json
from memsuite.memory_systems.llm.pricing import PriceTable
from memsuite.memory_systems.llm.replies import ENDPOINT_ERRORS, classify, normalise, to_result
from memsuite.memory_systems.llm.results import LLMFailure, LLMResult
from memsuite.memory_systems.ratelimit import RateLimiter
from memsuite.memory_systems.records import PHASES, Usage

logger = logging.getLogger(__name__)

#: Header naming a call's account (``<system>@<unit>``) when ``LLMConfig.send_account`` is set.
ACCOUNT_HEADER = "X-Memsuite-Account"

JSON_RETRY_PROMPT = (
    "Your previous reply was not valid JSON. Reply again with only one valid JSON object: "
    "no code fences, no text before or after it."
)


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
            check_config(config)
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
        self._ledger = Ledger()  # every call of the client and its views, by (system, phase)
        # Private ledgers of this view and the views it was made from: each records exactly the calls
        # made through it, so a per-unit view is exact however many units share the client.
        self._accounts: tuple[Ledger, ...] = ()
        self._rng = random.Random()  # backoff jitter only; never affects results
        self._system_name = ""
        self._breaker = Breaker(config.max_consecutive_failures)  # one per endpoint: views share it

    # -- views and identity -------------------------------------------------------------------------

    @property
    def system_name(self) -> str:
        """The memory system this view accounts calls to ("" for the shared client)."""
        return self._system_name

    def for_system(self, system_name: str) -> LLMClient:
        """A view of this client whose calls are accounted to ``system_name``.

        It shares endpoint, cache and the client-wide counters with this client, and keeps an account
        of its own: its :meth:`usage` (without ``system_name``) counts exactly the calls made through
        it (and through views made from it), whatever other views of the same client do meanwhile.
        """
        view = copy.copy(self)
        view._system_name = system_name
        view._accounts = (*self._accounts, Ledger())
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
            "revision": self.config.revision,
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
            {"role": "user", "content": JSON_RETRY_PROMPT},
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
        self._record(system_name, phase, failures=1, failure_kind="invalid_json")
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
            system_name: One memory system, over every view of the client; default: on a view, the
                calls made through that view (its own account); on the shared client, all calls.
            phase: One phase; default all.
        """
        usage = Usage()
        for tally_phase, t in self._select(system_name, phase):
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
        for _, t in self._select(system_name, phase):
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
        for _, t in self._select(system_name, phase):
            prompt += t.prompt_tokens + (0 if billed_only else t.cached_prompt_tokens)
            completion += t.completion_tokens + (0 if billed_only else t.cached_completion_tokens)
        return self.prices.cost(self.config.model, prompt, completion)

    def down(self) -> str | None:
        """Why the endpoint counts as down (``max_consecutive_failures`` calls failed in a row), or None."""
        return self._breaker.reason

    def ping(self, timeout_s: float) -> LLMFailure | None:
        """Send one tiny request (one token, no cache, no retry, not accounted); None when it worked."""
        request = {"model": self.config.model, "messages": [{"role": "user", "content": "Say OK."}]}
        try:
            normalise(self._sdk.chat.completions.create(**request, max_tokens=1, timeout=timeout_s))
        except ENDPOINT_ERRORS as exc:
            return classify(exc)[0]
        return None

    def close(self) -> None:
        """Release the HTTP connection pool and the cache's database connections."""
        self._sdk.close()
        if self._cache is not None:
            self._cache.close()

    # -- internals ---------------------------------------------------------------------------------

    def _account_to(self, system_name: str | None) -> str:
        return self._system_name if system_name is None else system_name

    def _record(self, system_name: str, phase: str, **counts: Any) -> None:
        """Count on the client-wide ledger and on this view's own account (and its parents')."""
        self._ledger.add(system_name, phase, **counts)
        for account in self._accounts:
            account.add(system_name, phase, **counts)

    def _select(self, system_name: str | None, phase: str | None) -> list[tuple[str, Tally]]:
        """A view's own account when no system is named; else the client-wide ledger by system."""
        if system_name is None and self._accounts:
            return self._accounts[-1].select(None, phase)
        return self._ledger.select(self._account_to(system_name) or None, phase)

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
        # The revision joins the key only when known, so caches of endpoints without one keep their keys.
        revision = self.config.revision
        key = request_key({**request, "model_revision": revision} if revision else request)
        if self._cache is not None:
            stored = self._cache_get(key)
            if stored is not None:
                wall = time.perf_counter() - started
                self._record(
                    system_name,
                    phase,
                    cache_hits=1,
                    cached_prompt_tokens=stored["prompt_tokens"],
                    cached_completion_tokens=stored["completion_tokens"],
                    wall_s=wall,
                )
                return to_result(stored, cached=True, wall_s=wall)

        failure: LLMFailure | None = self._breaker.refusal()
        deadline = started + float(self.config.deadline_s)
        attempts = 0 if failure is not None else self.config.max_retries + 1
        for attempt in range(attempts):
            self._record(system_name, phase, requests=1)
            try:
                timeout = min(float(self.config.timeout_s), max(0.001, deadline - time.perf_counter()))
                with self._limiter.slot(_estimate_tokens(request)) as slot:
                    headers = self._account_headers(system_name)
                    response = self._sdk.chat.completions.create(
                        **request, timeout=timeout, extra_headers=headers
                    )
                    stored = normalise(response)
                    slot.settle(stored["prompt_tokens"] + stored["completion_tokens"])
            except ENDPOINT_ERRORS as exc:  # endpoint trouble only: a bug in our code propagates
                failure, transient, retry_after = classify(exc)
                failure = replace(failure, attempts=attempt + 1)
                if not transient or attempt == attempts - 1:
                    break
                delay = min(30.0, self.config.backoff_s * 2**attempt) * (0.5 + 0.5 * self._rng.random())
                if retry_after is not None:
                    delay = max(delay, min(retry_after, 60.0))
                if time.perf_counter() + delay >= deadline:
                    failure = replace(
                        failure,
                        kind="timeout" if failure.kind in ("timeout", "connection") else failure.kind,
                        message=f"{failure.message} (deadline_s {self.config.deadline_s} reached)",
                    )
                    break
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
            self._breaker.success()
            self._record(
                system_name,
                phase,
                prompt_tokens=stored["prompt_tokens"],
                completion_tokens=stored["completion_tokens"],
                wall_s=wall,
            )
            if self._cache is not None:
                self._cache_put(key, request, stored)
            return to_result(stored, cached=False, wall_s=wall)

        assert failure is not None
        self._breaker.failure(failure, self.config)
        wall = time.perf_counter() - started
        self._record(system_name, phase, failures=1, failure_kind=failure.kind, wall_s=wall)
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

    def _account_headers(self, system_name: str) -> dict[str, str] | None:
        """The account header for an endpoint that asks for it (``send_account``), else None."""
        return {ACCOUNT_HEADER: system_name} if self.config.send_account and system_name else None

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


#: HTTP statuses that say the request, not the endpoint, was wrong: they never count toward "down".
_REQUEST_ERRORS = (400, 404, 413, 422)


class Breaker:
    """Counts an endpoint's failed calls in a row; at ``limit`` the endpoint counts as down for good.

    Down is final for the client: a run stops on it (eval/run/runner.py) and a rerun resumes once the
    endpoint works again. Only endpoint trouble counts: a prompt too long for the window, a reply that
    is no JSON or a rejected request say nothing about the endpoint.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.reason: str | None = None
        self._in_a_row = 0
        self._lock = threading.Lock()

    def refusal(self) -> LLMFailure | None:
        """The failure of a call not sent because the endpoint is down, or None."""
        if self.reason is None:
            return None
        return LLMFailure("endpoint_down", f"not sent: {self.reason}", attempts=0)

    def success(self) -> None:
        with self._lock:
            self._in_a_row = 0

    def failure(self, failure: LLMFailure, config: LLMConfig) -> None:
        counts = failure.kind in ("timeout", "connection", "rate_limit", "bad_response") or (
            failure.kind == "http_error" and failure.status_code not in _REQUEST_ERRORS
        )
        if not counts or not self.limit:
            return
        with self._lock:
            self._in_a_row += 1
            if self._in_a_row >= self.limit and self.reason is None:
                self.reason = (
                    f"{self._in_a_row} calls in a row to {config.base_url} (model {config.model}) failed,"
                    f" the last with {failure.kind}: {failure.message[:200]}"
                )


def _estimate_tokens(request: Mapping[str, Any]) -> int:
    """Tokens a request will use, before it is sent: ~4 characters a token, plus the answer budget."""
    chars = sum(len(str(m.get("content") or "")) for m in request.get("messages", ()))
    return chars // 4 + int(request.get("max_tokens") or 0)
