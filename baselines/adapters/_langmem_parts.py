"""The parts the langmem adapter hands to langmem (imports langchain-core and langgraph: load it lazily).

- :class:`ClientChatModel` is a LangChain chat model over the run's LLM client, so every call langmem
  and trustcall make is accounted to the adapter, cached, and a failure is counted, never a crash:
  a failed call raises :class:`LibraryLLMError` into the library. ``bind_tools`` sends OpenAI tool
  definitions; LangChain's ``tool_choice="any"`` is OpenAI's ``required`` and a tool name forces it.
- :func:`embed_function` is the embedding function of langgraph's ``InMemoryStore`` index: the run's
  shared embedder (one model in memory, its cache and its accounting).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, convert_to_openai_messages
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict, PrivateAttr

from memsuite.baselines.adapters._common import ClientAccount, LibraryLLMError
from memsuite.memory_systems.embedder import Embedder

#: LangChain's tool_choice words and the OpenAI value each stands for.
_CHOICES = {"any": "required", "required": "required", "auto": "auto", "none": "none"}


def openai_tool_choice(choice: Any) -> Any:
    """LangChain's ``tool_choice`` (``"any"``, a tool name, True, a dict) as the OpenAI API's value."""
    if choice is None or isinstance(choice, dict):
        return choice
    if choice is True:
        return "required"
    if isinstance(choice, str):
        return _CHOICES.get(choice) or {"type": "function", "function": {"name": choice}}
    raise ValueError(f"unsupported tool_choice {choice!r}")


class ClientChatModel(BaseChatModel):
    """A LangChain chat model over the adapter's account of the run's LLM client.

    Args:
        account: The adapter's account of the client.
        max_tokens: Completion budget per call.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)
    max_tokens: int = 2000
    _account: ClientAccount = PrivateAttr()

    def __init__(self, account: ClientAccount, max_tokens: int) -> None:
        super().__init__(max_tokens=max_tokens)
        self._account = account

    @property
    def _llm_type(self) -> str:
        return "memsuite-client"

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: Any = None, **kwargs: Any) -> Any:
        formatted = [convert_to_openai_tool(tool) for tool in tools]
        return self.bind(tools=formatted, tool_choice=openai_tool_choice(tool_choice), **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        plain = convert_to_openai_messages(messages)
        options: dict[str, Any] = {"max_tokens": self.max_tokens}
        if kwargs.get("tools"):
            options["tools"] = kwargs["tools"]
            if kwargs.get("tool_choice") is not None:
                options["tool_choice"] = kwargs["tool_choice"]
        result = self._account.chat(plain, **options)
        if result.failure is not None:
            raise LibraryLLMError(f"{result.failure.kind}: {result.failure.message[:300]}")
        calls, invalid = [], []
        for call in result.tool_calls:
            if call.arguments is None:
                invalid.append(
                    {
                        "name": call.name,
                        "args": call.arguments_json,
                        "id": call.id,
                        "error": "not a JSON object",
                    }
                )
            else:
                calls.append({"name": call.name, "args": call.arguments, "id": call.id})
        message = AIMessage(content=result.text or "", tool_calls=calls, invalid_tool_calls=invalid)
        return ChatResult(generations=[ChatGeneration(message=message)])


def embed_function(embedder: Embedder) -> Callable[[Sequence[str]], list[list[float]]]:
    """The ``embed`` of an ``InMemoryStore`` index: the shared embedder, one batch per call."""

    def embed(texts: Sequence[str]) -> list[list[float]]:
        return embedder.encode(list(texts)).tolist() if texts else []

    return embed
