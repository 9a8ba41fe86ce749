"""A scripted, deterministic stand-in for :class:`memory_systems.llm.LLMClient` (like inspect's mockllm).

:class:`FakeLLM` has the client's ``chat`` / ``chat_json`` / ``usage`` / ``identity`` / ``for_system``
and returns real :class:`~memory_systems.llm.LLMResult` objects. It recognises what a system asks by
the system prompt (each LLM baseline's prompts are module constants) and answers:

- from ``script[kind]``, a queue of replies consumed in order, when one is left, else
- from a default that is deterministic and sensible for the contract tests: the user's sentences
  become the facts / lines / pages, decisions ADD what is new, queries pick pages by word overlap.

A reply is a dict or list (sent as JSON, or as a forced tool call's arguments), a str (raw text: a
JSON request that cannot parse it fails with ``invalid_json``, as the real client does), an
:class:`~memory_systems.llm.LLMFailure`, or a callable ``(messages) -> reply``.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from baselines import llm_extraction, temporal_kg, wiki_agent
from memory_systems.llm import LLMFailure, LLMResult, ToolCall, parse_json
from memory_systems.records import Usage

#: Prompt kind -> the system prompt that announces it (matched on its first 40 characters).
PROMPT_KINDS = {
    "extract_facts": llm_extraction.EXTRACT_PROMPT,
    "update_memory": llm_extraction.UPDATE_PROMPT,
    "md_flat_edit": wiki_agent.MD_FLAT_PROMPT,
    "wiki_ingest": wiki_agent.WIKI_INGEST_PROMPT,
    "wiki_query": wiki_agent.WIKI_QUERY_PROMPT,
    "kg_extract": temporal_kg.EXTRACT_PROMPT,
}

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_WORD = re.compile(r"[a-z0-9]+")
_STOP = {"the", "a", "an", "is", "are", "was", "what", "which", "who", "and", "of", "to", "my", "i", "s"}


@dataclass(frozen=True)
class FakeCall:
    """One request the fake received."""

    kind: str
    messages: list[dict[str, Any]]
    phase: str
    system_name: str | None
    tools: list[dict[str, Any]] | None
    tool_choice: Any


class FakeLLM:
    """Scripted LLM client; see the module docstring.

    Args:
        script: Replies per prompt kind, consumed in order before the defaults apply.
    """

    def __init__(self, script: Mapping[str, Sequence[Any]] | None = None) -> None:
        self.script: dict[str, list[Any]] = {kind: list(replies) for kind, replies in (script or {}).items()}
        self.calls: list[FakeCall] = []
        self._ledger: dict[tuple[str, str], Usage] = {}
        self._system_name = ""

    # -- the client's interface --------------------------------------------------------------------

    def for_system(self, system_name: str) -> FakeLLM:
        view = copy.copy(self)
        view._system_name = system_name
        return view

    def identity(self) -> dict[str, Any]:
        return {"model": "fake", "wiring_only": True}

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
        result = self._respond(messages, phase, system_name, tools, tool_choice)
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
        result = self._respond(messages, phase, system_name, tools, tool_choice)
        if not result.ok:
            return result
        data = parse_json(result.text)
        if data is None:
            account = self._account_to(system_name)
            self._tally(account, phase).llm_failures += 1
            return replace(result, failure=LLMFailure("invalid_json", f"not JSON: {result.text[:100]!r}"))
        return replace(result, data=data)

    def usage(self, system_name: str | None = None, phase: str | None = None) -> Usage:
        account = self._account_to(system_name) or None
        total = Usage()
        for (name, tally_phase), usage in self._ledger.items():
            if account in (None, name) and phase in (None, tally_phase):
                total = total + usage
        return total

    # -- inspection for tests ----------------------------------------------------------------------

    def calls_of(self, kind: str) -> list[FakeCall]:
        """The requests of one prompt kind, in order."""
        return [c for c in self.calls if c.kind == kind]

    # -- internals -----------------------------------------------------------------------------------

    def _account_to(self, system_name: str | None) -> str:
        return self._system_name if system_name is None else system_name

    def _tally(self, account: str, phase: str) -> Usage:
        return self._ledger.setdefault((account, phase), Usage())

    def _respond(self, messages, phase, system_name, tools, tool_choice) -> LLMResult:
        messages = [dict(m) for m in messages]
        kind = prompt_kind(messages)
        self.calls.append(
            FakeCall(kind, copy.deepcopy(messages), phase, system_name, copy.deepcopy(tools), tool_choice)
        )
        queue = self.script.get(kind)
        reply = queue.pop(0) if queue else DEFAULTS.get(kind, lambda m: "")(messages)
        if callable(reply):
            reply = reply(messages)
        tally = self._tally(self._account_to(system_name), phase)
        tally.llm_calls += 1
        tally.prompt_tokens += sum(len(str(m.get("content") or "").split()) for m in messages)
        if isinstance(reply, LLMFailure):
            tally.llm_failures += 1
            return LLMResult(failure=reply)
        text = reply if isinstance(reply, str) else json.dumps(reply)
        tally.completion_tokens += len(text.split())
        if isinstance(tool_choice, Mapping) and not isinstance(reply, str):
            name = tool_choice["function"]["name"]
            call = ToolCall(f"call_{len(self.calls)}", name, text, reply if isinstance(reply, dict) else None)
            return LLMResult(tool_calls=(call,), finish_reason="tool_calls")
        return LLMResult(text=text, finish_reason="stop")


def prompt_kind(messages: Sequence[Mapping[str, Any]]) -> str:
    """The prompt kind of a request (by its system prompt), or "other"."""
    system = str(messages[0].get("content") or "") if messages else ""
    for kind, prompt in PROMPT_KINDS.items():
        if system.startswith(prompt[:40]):
            return kind
    return "other"


# --------------------------------------------------------------------------------------------------
# Default replies
# --------------------------------------------------------------------------------------------------


def user_sentences(messages: Sequence[Mapping[str, Any]]) -> list[str]:
    """The sentences of every ``User:`` line of the task message (the first user message)."""
    task = next((str(m.get("content") or "") for m in messages if m.get("role") == "user"), "")
    sentences: list[str] = []
    for line in task.splitlines():
        if line.startswith("User: "):
            sentences += [s.strip() for s in _SENTENCE_END.split(line[len("User: ") :]) if s.strip()]
    return sentences


def words(text: str) -> set[str]:
    """Content words of a text, lower-cased (stop words and possessive 's dropped)."""
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


def _after(text: str, header: str) -> Any:
    """The JSON value on the line after ``header`` in ``text``."""
    rest = text.split(header, 1)[1].strip()
    return json.loads(rest.splitlines()[0])


def default_update(messages: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """ADD every new fact not already stored verbatim; NONE for those that are."""
    task = str(messages[-1]["content"])
    memories = _after(task, llm_extraction.MEMORIES_HEADER)
    facts = _after(task, llm_extraction.FACTS_HEADER)
    known = {m["text"]: m["id"] for m in memories}
    return {
        "memory": [
            {"id": known[f], "text": f, "event": "NONE"} if f in known else {"text": f, "event": "ADD"}
            for f in facts
        ]
    }


def default_wiki_query(messages: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The titles whose index line shares the most words with the question, at most k."""
    k = int(re.search(r"at most (\d+)", str(messages[0]["content"]))[1])  # type: ignore[index]
    task = str(messages[-1]["content"])
    question = words(task.rsplit("Question:", 1)[1])
    scored = []
    for line in task.splitlines():
        match = re.match(r"- \[\[(.+?)\]\] — (.*)", line)
        if match:
            overlap = len(question & words(line))
            if overlap:
                scored.append((-overlap, len(scored), match[1]))
    return {"pages": [title for *_, title in sorted(scored)[:k]]}


DEFAULTS: dict[str, Callable[[list[dict[str, Any]]], Any]] = {
    "extract_facts": lambda m: {"facts": user_sentences(m)},
    "update_memory": default_update,
    "md_flat_edit": lambda m: {"ops": [{"op": "append", "text": s} for s in user_sentences(m)], "done": True},
    "wiki_ingest": lambda m: {
        "ops": [
            {"op": "write", "title": " ".join(s.split()[:4]), "summary": s, "content": f"- {s}"}
            for s in user_sentences(m)
        ],
        "done": True,
    },
    "wiki_query": default_wiki_query,
    "kg_extract": lambda m: {
        "facts": [{"subject": s, "relation": "states", "object": s, "fact": s} for s in user_sentences(m)],
        "dependencies": [],
        "forget": [],
    },
}
