"""Scripted LLMs for tests: a replay server behind the real client, and an in-process stand-in.

Both answer from the same prompt-aware script (:class:`ScriptedReplies`). It recognises what a system
asks by the system prompt (each LLM baseline's prompts are module constants) and answers:

- from ``script[kind]``, a queue of replies consumed in order, when one is left, else
- from a default that is deterministic and sensible for the contract tests: the user's sentences
  become the facts / lines / pages, decisions ADD what is new, queries pick pages by word overlap.

A reply is a dict or list (sent as JSON, or as a forced tool call's arguments), a str (raw text: a
JSON request that cannot parse it fails with ``invalid_json``, as the real client does), an
:class:`~memsuite.memory_systems.llm.LLMFailure`, or a callable ``(messages) -> reply``.

- :class:`ReplayLLM` is the real :class:`~memsuite.memory_systems.llm.LLMClient` (openai SDK, JSON parsing and
  repair, tool-call decoding, accounting) pointed at a :class:`ReplayServer`: a loopback
  OpenAI-compatible endpoint (tests/fake_endpoint.py) that serves the script over HTTP. A
  failure reply becomes what the endpoint would really do (a timeout, a dropped connection, an HTTP
  error, a non-JSON body). Use it for logic tests.
- :class:`FakeLLM` has the client's interface in-process and records each call's phase and system
  name, which never go over the wire. Only for tests that check those (the adapter tests); the
  real client's accounting (``usage(system_name=, phase=)``) covers them for everything else.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from fake_endpoint import FakeEndpoint

from memsuite.baselines import karpathy_wiki, llm_extraction, md_flat, temporal_kg
from memsuite.baselines._llm_support import parse_ops
from memsuite.memory_systems.llm import (
    JSON_RETRY_PROMPT,
    NO_KEY,
    LLMClient,
    LLMConfig,
    LLMFailure,
    LLMResult,
    ToolCall,
    parse_json,
)
from memsuite.memory_systems.records import Usage

#: Prompt kind -> the system prompt that announces it (matched on its first 40 characters).
PROMPT_KINDS = {
    "extract_facts": llm_extraction.EXTRACT_PROMPT,
    "update_memory": llm_extraction.UPDATE_PROMPT,
    "md_flat_edit": md_flat.MD_FLAT_PROMPT,
    "wiki_ingest": karpathy_wiki.WIKI_INGEST_PROMPT,
    "wiki_query": karpathy_wiki.WIKI_QUERY_PROMPT,
    "kg_extract": temporal_kg.EXTRACT_PROMPT,
}

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_WORD = re.compile(r"[a-z0-9]+")
_STOP = {"the", "a", "an", "is", "are", "was", "what", "which", "who", "and", "of", "to", "my", "i", "s"}


class ScriptedReplies:
    """Which reply answers a request: the script's queue for its prompt kind, else the default.

    Args:
        script: Replies per prompt kind, consumed in order before the defaults apply.
    """

    def __init__(self, script: Mapping[str, Sequence[Any]] | None = None) -> None:
        self.script: dict[str, list[Any]] = {kind: list(replies) for kind, replies in (script or {}).items()}

    def next(self, messages: list[dict[str, Any]], kind: str | None = None) -> tuple[str, Any]:
        """(prompt kind, reply) for a request; a callable reply is called with the messages."""
        kind = prompt_kind(messages) if kind is None else kind
        queue = self.script.get(kind)
        reply = queue.pop(0) if queue else DEFAULTS.get(kind, lambda m: "")(messages)
        return kind, reply(messages) if callable(reply) else reply


# --------------------------------------------------------------------------------------------------
# The replay server and the real client on it
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ServedCall:
    """One request the replay server received over HTTP."""

    kind: str
    """Prompt kind, or "json_retry" for the client's request to repeat a reply as valid JSON."""
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] | None
    tool_choice: Any
    body: dict[str, Any]
    """The whole request body (model, max_tokens, response_format, ...)."""


class ReplayServer:
    """A loopback OpenAI-compatible endpoint answering from a :class:`ScriptedReplies` script.

    ``POST /v1/chat/completions`` replies with a chat completion whose usage counts words: a dict or
    list reply is the message content, or the arguments of the forced tool call when the request
    forces one (``tool_choice`` names a function); a str is the content as is. An
    :class:`~memsuite.memory_systems.llm.LLMFailure` reply becomes the endpoint behaviour the client
    classifies as that kind: ``timeout`` no answer, ``connection`` a dropped connection, ``rate_limit`` HTTP
    429, ``context_length`` HTTP 400 naming the context length, ``http_error`` its status (default 500),
    ``bad_response`` a 200 body that is not JSON, ``invalid_json`` prose.

    The client's JSON retry (after an unparseable reply) is answered from ``script["json_retry"]``
    when scripted, else with the previous reply again: a stubborn model, so a scripted unparseable
    reply ends as the counted ``invalid_json`` failure its author meant.

    Script mistakes (an exception in a callable reply) are answered with HTTP 500 and kept in
    ``errors``; the ``replay_llm`` fixture fails the test on them.
    """

    def __init__(self, script: Mapping[str, Sequence[Any]] | None = None) -> None:
        self.replies = ScriptedReplies(script)
        self.calls: list[ServedCall] = []
        self.errors: list[str] = []
        self.endpoint = FakeEndpoint(responder=self._respond)

    @property
    def base_url(self) -> str:
        return self.endpoint.base_url

    def close(self) -> None:
        self.endpoint.close()

    def _respond(self, body: dict[str, Any]) -> tuple[Any, ...]:
        messages = [dict(m) for m in body["messages"]]
        tool_choice = body.get("tool_choice")
        try:
            if _is_json_retry(messages):
                kind = "json_retry"
                reply = self.replies.next(messages, kind)[1] if self.replies.script.get(kind) else None
                if reply is None:
                    reply = str(messages[-2].get("content") or "")
            else:
                kind, reply = self.replies.next(messages)
            self.calls.append(
                ServedCall(kind, copy.deepcopy(messages), body.get("tools"), tool_choice, copy.deepcopy(body))
            )
            return _behaviour(reply, tool_choice)
        except Exception as exc:  # a broken script must fail the test, not pass as an LLM failure
            self.errors.append(f"{type(exc).__name__}: {exc}")
            return ("status", 500, f"replay script error: {exc}")


def _is_json_retry(messages: Sequence[Mapping[str, Any]]) -> bool:
    last = messages[-1] if messages else {}
    return last.get("role") == "user" and last.get("content") == JSON_RETRY_PROMPT


def _behaviour(reply: Any, tool_choice: Any) -> tuple[Any, ...]:
    """The :class:`~fake_endpoint.FakeEndpoint` behaviour that sends ``reply``."""
    if isinstance(reply, LLMFailure):
        kind, message = reply.kind, reply.message
        if kind == "timeout":
            return ("sleep", 60.0)  # longer than any test client's timeout; released at close
        if kind == "connection":
            return ("drop",)
        if kind == "rate_limit":
            return ("status", 429, message)
        if kind == "context_length":
            return ("status", 400, f"This model's maximum context length is exceeded: {message}")
        if kind == "http_error":
            return ("status", reply.status_code or 500, message)
        if kind == "bad_response":
            return ("garbage",)
        if kind == "invalid_json":
            return ("text", f"Sorry, I cannot answer that ({message}).")
        raise ValueError(f"no endpoint behaviour for failure kind {kind!r}")
    if isinstance(reply, str):
        return ("text", reply)
    if isinstance(tool_choice, Mapping):
        return ("tool", tool_choice["function"]["name"], json.dumps(reply))
    return ("text", json.dumps(reply))


class ReplayLLM(LLMClient):
    """The real :class:`~memsuite.memory_systems.llm.LLMClient` on its own :class:`ReplayServer`.

    It only adds the script and the server's record of what it received; every call goes through
    the client's code and the openai SDK over HTTP. No response cache (so scripts are consumed as
    written) and no retries (a scripted failure is the final outcome of a call); a short timeout, so
    a scripted ``timeout`` costs one second. Close it (the ``replay_llm`` fixture does).

    Args:
        script: Replies per prompt kind (see the module docstring).
        **config: Other :class:`~memsuite.memory_systems.llm.LLMConfig` fields.
    """

    def __init__(self, script: Mapping[str, Sequence[Any]] | None = None, **config: Any) -> None:
        self.server = ReplayServer(script)
        values: dict[str, Any] = {"timeout_s": 1.0, "max_retries": 0, "cache": False}
        values.update(config)
        super().__init__(
            LLMConfig(
                model="replay", base_url=self.server.base_url, api_key=NO_KEY, api_key_env=None, **values
            ),
            environ={},
        )

    @property
    def script(self) -> dict[str, list[Any]]:
        """Reply queues per prompt kind; tests may add to them between calls."""
        return self.server.replies.script

    @property
    def calls(self) -> list[ServedCall]:
        """Requests the server received, in order."""
        return list(self.server.calls)

    def calls_of(self, kind: str) -> list[ServedCall]:
        """The requests of one prompt kind, in order."""
        return [c for c in self.server.calls if c.kind == kind]

    def close(self) -> None:
        super().close()
        self.server.close()


class RecordingLLM:
    """Any client, recording what each call gave the system: ``(prompt kind, LLMResult)`` in order.

    For tests on a real model, whose replies are unknown in advance: the test reads them here and
    derives what the system must have done with them. Views (``for_system``) share one record.
    """

    def __init__(self, client: Any, replies: list[tuple[str, LLMResult]] | None = None) -> None:
        self.client = client
        self.replies: list[tuple[str, LLMResult]] = [] if replies is None else replies

    @property
    def system_name(self) -> str:
        return getattr(self.client, "system_name", "")

    def for_system(self, system_name: str) -> RecordingLLM:
        return RecordingLLM(self.client.for_system(system_name), self.replies)

    def identity(self) -> dict[str, Any]:
        return self.client.identity()

    def chat(self, messages: Sequence[Mapping[str, Any]], **options: Any) -> LLMResult:
        result = self.client.chat(messages, **options)
        self.replies.append((prompt_kind(messages), result))
        return result

    def chat_json(self, messages: Sequence[Mapping[str, Any]], **options: Any) -> LLMResult:
        result = self.client.chat_json(messages, **options)
        self.replies.append((prompt_kind(messages), result))
        return result

    def usage(self, system_name: str | None = None, phase: str | None = None) -> Usage:
        return self.client.usage(system_name, phase)

    def failed(self) -> int:
        """Calls that ended in a failure (the client counts each once in ``usage().llm_failures``)."""
        return sum(1 for _, result in self.replies if result.failure is not None)

    def loop_rounds(self, kind: str, protocol: str) -> list[tuple[list[Any], bool] | None]:
        """Each recorded action-loop reply of ``kind`` as ``(ops, done)``; None for a failed or
        malformed one (which ends the loop and counts one failure)."""
        rounds: list[tuple[list[Any], bool] | None] = []
        for reply_kind, result in self.replies:
            if reply_kind != kind:
                continue
            payload = result.data
            if protocol == "tools" and result.ok:
                payload = result.tool_calls[0].arguments if result.tool_calls else parse_json(result.text)
            rounds.append(parse_ops(payload) if result.ok else None)
        return rounds


def count_invalid_ops(memory: Any) -> list[int]:
    """The invalid operations of each executed round, as the system's executor returned them."""
    counts: list[int] = []
    execute = memory._execute

    def counting(ops, **kwargs):
        feedback, invalid = execute(ops, **kwargs)
        counts.append(invalid)
        return feedback, invalid

    memory._execute = counting
    return counts


def check_loop(rounds: list[Any], max_rounds: int, report: Any, invalid_ops: list[int]) -> None:
    """One chunk's action loop: it went on only when told to, ran each usable round, and counted one
    failure for a failed or malformed last reply plus every invalid operation."""
    assert 1 <= len(rounds) <= max_rounds
    *continued, last = rounds
    assert all(r is not None and r[0] and not r[1] for r in continued)
    assert len(invalid_ops) == len(rounds) - (last is None)
    assert report.failures == (last is None) + sum(invalid_ops)


# --------------------------------------------------------------------------------------------------
# The in-process stand-in
# --------------------------------------------------------------------------------------------------


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
    """Scripted in-process LLM client (no HTTP); see the module docstring.

    Args:
        script: Replies per prompt kind, consumed in order before the defaults apply.
    """

    def __init__(self, script: Mapping[str, Sequence[Any]] | None = None) -> None:
        self._replies = ScriptedReplies(script)
        self.script = self._replies.script
        self.calls: list[FakeCall] = []
        self._ledger: dict[tuple[str, str], Usage] = {}
        self._system_name = ""

    # -- the client's interface --------------------------------------------------------------------

    @property
    def system_name(self) -> str:
        return self._system_name

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
        _, reply = self._replies.next(messages, kind)
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
