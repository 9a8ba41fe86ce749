"""What memsuite asks of an LLM client: :class:`ChatClient` (systems and judges) and
:class:`EndpointClient` (adapters whose library builds its own OpenAI client).

:class:`~memsuite.memory_systems.llm.client.LLMClient` implements both; so do the test suite's fakes,
checked against these protocols. Every LLM parameter in memsuite is typed with one of them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from memsuite.memory_systems.llm.results import LLMResult
from memsuite.memory_systems.records import Usage


@runtime_checkable
class ChatClient(Protocol):
    """An accounted chat-completions client: calls never raise for endpoint trouble; a failure comes
    back as ``LLMResult.failure`` and is counted in :meth:`usage`."""

    @property
    def system_name(self) -> str:
        """The memory system this view accounts calls to ("" for the shared client)."""
        ...

    def for_system(self, system_name: str) -> ChatClient:
        """A view whose calls are accounted to ``system_name``."""
        ...

    def identity(self) -> dict[str, Any]:
        """What a run header records about the model (``wiring_only`` for a model that proves wiring)."""
        ...

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
        """One chat completion."""
        ...

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
        """One chat completion whose reply must be JSON (``data``), else a counted failure."""
        ...

    def usage(self, system_name: str | None = None, phase: str | None = None) -> Usage:
        """Calls, tokens and wall time so far, for the selected systems and phases."""
        ...


@runtime_checkable
class EndpointClient(ChatClient, Protocol):
    """A :class:`ChatClient` that also names its endpoint, for a library that makes its own calls."""

    def endpoint(self) -> dict[str, str]:
        """``base_url``, ``api_key`` and ``model``."""
        ...
