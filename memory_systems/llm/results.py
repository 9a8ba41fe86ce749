"""What a chat call gives back: :class:`LLMResult`, its tool calls, and :class:`LLMFailure` (a value)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: Kinds of :class:`LLMFailure`.
FAILURE_KINDS = (
    "timeout",  # no reply within timeout_s, on every attempt
    "connection",  # refused, reset or unreachable, on every attempt
    "rate_limit",  # HTTP 429 on every attempt
    "http_error",  # any other HTTP error status (transient 408/409/5xx are retried first)
    "context_length",  # the prompt does not fit the model's context window (HTTP 400, not retried)
    "invalid_json",  # chat_json: no JSON object or array even after repair and one retry
    "bad_response",  # a 200 reply that is not a chat completion (no choices, unparseable body)
    "endpoint_down",  # not sent: the endpoint failed max_consecutive_failures calls in a row
)


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
