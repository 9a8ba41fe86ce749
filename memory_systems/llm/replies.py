"""Reading an endpoint's answer: a chat completion as plain JSON, or an exception as an LLMFailure."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

import httpx
import openai

from memsuite.memory_systems.llm.jsonparse import parse_json
from memsuite.memory_systems.llm.results import LLMFailure, LLMResult, ToolCall

CONTEXT_LENGTH = re.compile(
    r"context[ _-]?length|context window|maximum context|too many tokens|exceeds? the (?:model|context)",
    re.IGNORECASE,
)


def normalise(response: Any) -> dict[str, Any]:
    """The parts of a chat completion memsuite uses, as plain JSON (what the cache stores)."""
    if not getattr(response, "choices", None):
        raise BadResponse(f"reply has no choices: {str(response)[:200]!r}")
    choice = response.choices[0]
    message = getattr(choice, "message", None)
    if message is None:
        raise BadResponse(f"reply has no message: {str(response)[:200]!r}")
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


def to_result(stored: Mapping[str, Any], *, cached: bool, wall_s: float) -> LLMResult:
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


class BadResponse(Exception):
    """A 200 reply that is not a usable chat completion."""


#: What a request may raise because of the endpoint (never because of a bug here): the SDK's errors,
#: transport errors, an unparseable body, and replies that are not chat completions. A TypeError,
#: AttributeError or KeyError is a programming error and propagates.
ENDPOINT_ERRORS = (BadResponse, openai.OpenAIError, httpx.HTTPError, json.JSONDecodeError)


def classify(exc: Exception) -> tuple[LLMFailure, bool, float | None]:
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
        if status in (400, 413) and CONTEXT_LENGTH.search(message):
            return LLMFailure("context_length", message, status), False, None
        if status == 429:
            return LLMFailure("rate_limit", message, status), True, _retry_after(exc)
        return LLMFailure("http_error", message, status), status in (408, 409) or status >= 500, None
    if isinstance(exc, ENDPOINT_ERRORS):
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
