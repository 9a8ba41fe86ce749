"""What the LLM-backed baselines share: per-instance accounting, prompt budgets, an action loop, BM25.

Private to ``baselines``: llm_extraction, md_flat, karpathy_wiki and temporal_kg use it; nothing here is
promised.

- :class:`LLMAccount` sends every call with the system's name (so the client accounts it per system and
  phase) through a private view of the client, whose own account holds exactly this instance's calls.
  The runner builds a fresh system per unit around one shared client (several units at once with
  ``--workers``): a plain ``client.usage(system_name)``, or its difference since the system was built,
  would mix other units' calls into this one's record.
- :func:`session_chunks` / :func:`clip_tokens` keep prompts inside a small context window (the embedded
  model has 2,048 tokens): a long session is processed in several chunks rather than truncated.
- :func:`run_action_loop` is the agent loop of the wiki systems, over either transport: a forced call of
  one tool whose arguments are a list of operations, or the same object as a JSON reply (endpoints
  without tool support). Both work with llama.cpp's server, which forces a named tool by grammar.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

import bm25s
import numpy as np

from memsuite.memory_systems.chunking import chunk_session
from memsuite.memory_systems.errors import ConfigError
from memsuite.memory_systems.llm import parse_json
from memsuite.memory_systems.llm.protocol import ChatClient
from memsuite.memory_systems.records import Session, Usage
from memsuite.memory_systems.tokens import fits_in_tokens, split_by_tokens

logger = logging.getLogger(__name__)

#: Transports of :func:`run_action_loop`: "json" (a JSON reply) or "tools" (a forced tool call).
PROTOCOLS = ("json", "tools")

_DATE = re.compile(r"(\d{4})[/-](\d{1,2})[/-](\d{1,2})")
_TIME = re.compile(r"\b(\d{1,2}):(\d{2})\b")
#: Appended to the results of a round in the JSON transport.
_CONTINUE = 'Reply with more ops, or with {"ops": [], "done": true} when finished.'
_LLM_FIELDS = ("llm_calls", "prompt_tokens", "completion_tokens", "llm_failures", "cache_hits")


def check_protocol(protocol: str) -> str:
    """Return ``protocol`` if it is one of :data:`PROTOCOLS`, else raise :class:`ConfigError`."""
    if protocol not in PROTOCOLS:
        raise ConfigError(f"protocol must be one of {PROTOCOLS}, got {protocol!r}")
    return protocol


# --------------------------------------------------------------------------------------------------
# Accounting
# --------------------------------------------------------------------------------------------------


class LLMAccount:
    """The LLM client as one system instance uses it.

    Args:
        llm: An :class:`~memsuite.memory_systems.llm.LLMClient` (or anything with its ``chat`` /
            ``chat_json`` / ``usage`` methods), or None for a system used without ingestion.
        system_name: Name every call is accounted to, unless ``llm`` is a view that names its own
            account (:meth:`~memsuite.memory_systems.llm.LLMClient.for_system`).
    """

    def __init__(self, llm: ChatClient | None, system_name: str) -> None:
        # A view the runner made for one (system, unit) already names its account: calls must land
        # there, or the unit's usage (and every cost table) misses the system's own LLM calls.
        self.system_name = getattr(llm, "system_name", "") or system_name
        # A private view of the client: its own account holds exactly this instance's calls, however
        # many other systems (or concurrent units) use the same client meanwhile.
        self.client = llm.for_system(self.system_name) if llm is not None else None

    def require(self, what: str) -> None:
        """Raise :class:`ConfigError` when there is no client (``what`` names the operation)."""
        if self.client is None:
            raise ConfigError(
                f"{self.system_name}: {what} needs an LLM; build the system with llm=<client> "
                "(in a run config: set internal_llm or answer_llm)"
            )

    def chat(self, messages: list[dict[str, Any]], *, phase: str, **options: Any) -> Any:
        """``client.chat`` accounted to this system."""
        return self.client.chat(messages, phase=phase, system_name=self.system_name, **options)

    def chat_json(self, messages: list[dict[str, Any]], *, phase: str, **options: Any) -> Any:
        """``client.chat_json`` accounted to this system."""
        return self.client.chat_json(messages, phase=phase, system_name=self.system_name, **options)

    def usage(self) -> Usage:
        """LLM calls, tokens, failures and cache hits of this instance's calls (no wall time)."""
        if self.client is None:
            return Usage()
        total = self.client.usage()
        return Usage(**{name: getattr(total, name) for name in _LLM_FIELDS})


def system_usage(llm: Usage, embedder: Usage | None, wall_s: Mapping[str, float]) -> Usage:
    """A system's :class:`Usage`: its own LLM account, its own embedder view's counts, its wall time."""
    embedder = embedder or Usage()
    return Usage(
        **{name: getattr(llm, name) for name in _LLM_FIELDS},
        embedding_calls=embedder.embedding_calls,
        embedded_texts=embedder.embedded_texts,
        wall_s=dict(wall_s),
    )


def ask_json(
    account: LLMAccount, system_prompt: str, user_prompt: str, *, phase: str, max_tokens: int
) -> tuple[Any, str | None]:
    """One JSON request; returns ``(data, None)`` or ``(None, why)`` when the call or parse failed."""
    messages = [{"role": "system", "content": system_prompt}, {"role": "user", "content": user_prompt}]
    result = account.chat_json(messages, phase=phase, max_tokens=max_tokens)
    if result.failure is not None:
        return None, f"{result.failure.kind}: {result.failure.message[:200]}"
    return result.data, None


# --------------------------------------------------------------------------------------------------
# Prompt budgets and dates
# --------------------------------------------------------------------------------------------------


def clip_tokens(text: str, max_tokens: int) -> str:
    """``text`` cut to at most about ``max_tokens`` cl100k tokens, marked with `` […]`` when cut."""
    if fits_in_tokens(text, max_tokens):
        return text
    return split_by_tokens(text, max_tokens=max(1, max_tokens - 3))[0] + " […]"


def session_chunks(session: Session, max_tokens: int) -> list[str]:
    """The session as MEME chunks of at most ``max_tokens`` each (a single overlong turn is clipped)."""
    return [clip_tokens(chunk, max_tokens) for chunk in chunk_session(session, max_tokens=max_tokens)]


def session_day(timestamp: str) -> date | None:
    """The calendar day of a benchmark timestamp ("2023/03/05 (Sun) 11:24", "2023-10-03 08:30:00")."""
    match = _DATE.search(timestamp or "")
    if match is None:
        return None
    try:
        return date(int(match[1]), int(match[2]), int(match[3]))
    except ValueError:
        return None


def session_iso(timestamp: str) -> str | None:
    """A benchmark timestamp as ISO 8601 (``2023-03-05T11:24``, or just the day), or None."""
    day = session_day(timestamp)
    if day is None:
        return None
    clock = _TIME.search(timestamp)
    return f"{day.isoformat()}T{int(clock[1]):02d}:{clock[2]}" if clock else day.isoformat()


# --------------------------------------------------------------------------------------------------
# Lexical scoring
# --------------------------------------------------------------------------------------------------


class LexicalIndex:
    """BM25 (bm25s, lucene, English stop words) over a fixed list of texts; rebuild it after a change."""

    def __init__(self, texts: Sequence[str]) -> None:
        self.size = len(texts)
        self._retriever: bm25s.BM25 | None = None
        if texts:
            self._retriever = bm25s.BM25(method="lucene")
            tokens = bm25s.tokenize(list(texts), stopwords="en", show_progress=False)
            self._retriever.index(tokens, show_progress=False)

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every text for ``query`` (zeros when no query word is indexed)."""
        if self._retriever is None:
            return np.zeros(0, dtype=np.float32)
        words = bm25s.tokenize([query], stopwords="en", return_ids=False, show_progress=False)[0]
        if not words:
            return np.zeros(self.size, dtype=np.float32)
        return np.asarray(self._retriever.get_scores(words), dtype=np.float32)

    def top(self, query: str, k: int) -> list[tuple[int, float]]:
        """Up to ``k`` (position, score), best first; ties go to the earlier text.

        As in the bm25 baseline: nothing when no text matches a query word, else the best ``k`` even
        if some of them score 0.
        """
        scores = self.scores(query)
        if not scores.any():
            return []
        order = np.lexsort((np.arange(len(scores)), -scores))
        return [(int(i), float(scores[i])) for i in order[:k]]


# --------------------------------------------------------------------------------------------------
# The action loop
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ActionTool:
    """The one tool an agent loop offers: ``{"ops": [op, ...], "done": bool}``.

    One tool with a list of operations (rather than one tool per operation) because llama.cpp forces
    a tool call only by naming a single function; a batch also lets a model make all of a session's
    edits in one round.
    """

    name: str
    """Function name (tools transport)."""
    description: str
    """What the tool does, for the function definition."""
    op_schema: dict[str, Any]
    """JSON schema of one operation."""

    def definition(self) -> dict[str, Any]:
        """The OpenAI function definition."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": {
                    "type": "object",
                    "properties": {
                        "ops": {"type": "array", "items": self.op_schema},
                        "done": {"type": "boolean"},
                    },
                    "required": ["ops", "done"],
                },
            },
        }


@dataclass
class LoopOutcome:
    """What one run of :func:`run_action_loop` did."""

    rounds: int = 0
    """LLM calls whose operations were executed."""
    failures: int = 0
    """Failed calls, malformed replies and invalid operations."""
    finished: bool = False
    """The model said it was done (False: the round cap or a failure ended the loop)."""


def parse_ops(payload: Any) -> tuple[list[dict[str, Any]], bool] | None:
    """``(ops, done)`` from a reply; None when it is not an ops object (a bare list or op is accepted)."""
    if isinstance(payload, list):
        ops, done = payload, True
    elif isinstance(payload, dict) and "ops" in payload:
        ops, done = payload["ops"], payload.get("done", True)
    elif isinstance(payload, dict) and "op" in payload:
        ops, done = [payload], True
    else:
        return None
    if not isinstance(ops, list):
        return None
    # A model that omits or garbles "done" is taken as finished: looping on would repeat its edits.
    return ops, done is not False


def run_action_loop(
    account: LLMAccount,
    *,
    tool: ActionTool,
    system_prompt: str,
    user_prompt: str,
    execute: Callable[[list[Any]], tuple[str, int]],
    protocol: str,
    max_rounds: int,
    max_tokens: int,
    phase: str = "ingest",
) -> LoopOutcome:
    """Let the model act on a store in rounds until it is done, fails, or hits ``max_rounds``.

    Each round is one LLM call whose operations are executed at once; ``execute`` returns the feedback
    shown to the model in the next round and the number of invalid operations. The loop ends when the
    model sets ``done`` (or sends no operations), after ``max_rounds`` calls, or at the first failed
    call or malformed reply (counted; the client has already retried).

    Args:
        account: The system's LLM account.
        tool: The tool (its schema is also what the JSON transport asks for).
        system_prompt: Instructions.
        user_prompt: The task (current state and the new input).
        execute: Runs a list of operations; returns ``(feedback, invalid_ops)``.
        protocol: "tools" (forced call of ``tool``) or "json" (a JSON reply).
        max_rounds: Most LLM calls.
        max_tokens: Completion budget per call.
        phase: Accounting phase.
    """
    outcome = LoopOutcome()
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": system_prompt},
        {"role": "user", "content": user_prompt},
    ]
    for _ in range(max_rounds):
        call_id = None
        if protocol == "tools":
            result = account.chat(
                messages,
                phase=phase,
                tools=[tool.definition()],
                tool_choice={"type": "function", "function": {"name": tool.name}},
                max_tokens=max_tokens,
            )
            payload = None
            if result.failure is None and result.tool_calls:
                call_id, payload = result.tool_calls[0].id, result.tool_calls[0].arguments
            elif result.failure is None:
                payload = parse_json(result.text)  # an endpoint that ignored tool_choice
        else:
            result = account.chat_json(messages, phase=phase, max_tokens=max_tokens)
            payload = result.data
        if result.failure is not None:
            logger.info("%s: action loop call failed: %s", account.system_name, result.failure.kind)
            outcome.failures += 1
            return outcome
        parsed = parse_ops(payload)
        if parsed is None:
            logger.info("%s: malformed action reply: %.200r", account.system_name, result.text)
            outcome.failures += 1
            return outcome
        ops, done = parsed
        feedback, invalid = execute(ops)
        outcome.rounds += 1
        outcome.failures += invalid
        if done or not ops:
            outcome.finished = True
            return outcome
        if call_id is not None:
            messages.append(result.assistant_message())
            messages.append({"role": "tool", "tool_call_id": call_id, "content": feedback})
        else:
            messages.append({"role": "assistant", "content": result.text or json.dumps(payload)})
            messages.append({"role": "user", "content": f"Results:\n{feedback}\n{_CONTINUE}"})
    return outcome


def op_int(op: Mapping[str, Any], key: str) -> int | None:
    """An integer argument of an operation (models sometimes send "3" or 3.0), or None."""
    value = op.get(key)
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value.strip())
    return None


def op_text(op: Mapping[str, Any], key: str) -> str | None:
    """A non-blank string argument of an operation, stripped, or None."""
    value = op.get(key)
    return value.strip() if isinstance(value, str) and value.strip() else None


def ask_structured(
    account: LLMAccount,
    tool: ActionTool | dict[str, Any],
    system_prompt: str,
    user_prompt: str,
    *,
    protocol: str,
    phase: str,
    max_tokens: int,
) -> tuple[Any, str | None]:
    """One structured request over either transport; ``(payload, None)`` or ``(None, why)``.

    Args:
        account: The system's LLM account.
        tool: An OpenAI function definition (forced in the tools transport; ignored for JSON).
        system_prompt: Instructions.
        user_prompt: The request.
        protocol: "tools" or "json".
        phase: Accounting phase.
        max_tokens: Completion budget.
    """
    if protocol != "tools":
        return ask_json(account, system_prompt, user_prompt, phase=phase, max_tokens=max_tokens)
    definition = tool.definition() if isinstance(tool, ActionTool) else tool
    messages = [{"role": "system", "content": system_prompt}, {"role": "user", "content": user_prompt}]
    result = account.chat(
        messages,
        phase=phase,
        tools=[definition],
        tool_choice={"type": "function", "function": {"name": definition["function"]["name"]}},
        max_tokens=max_tokens,
    )
    if result.failure is not None:
        return None, f"{result.failure.kind}: {result.failure.message[:200]}"
    raw = result.tool_calls[0].arguments_json if result.tool_calls else result.text
    payload = result.tool_calls[0].arguments if result.tool_calls else parse_json(result.text)
    return (payload, None) if payload is not None else (None, f"no usable tool call: {raw[:200]!r}")


def function_tool(name: str, description: str, properties: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI function definition whose arguments object has ``properties``, all required."""
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": list(properties)},
        },
    }


def transport_note(protocol: str, tool_name: str) -> str:
    """The last line of an agent prompt: how to send the operations in ``protocol``."""
    if protocol == "tools":
        return f'Call {tool_name} with {{"ops": [...], "done": true}}.'
    return 'Reply with JSON only: {"ops": [...], "done": true}.'
