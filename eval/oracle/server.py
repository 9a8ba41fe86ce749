"""The oracle endpoint: OpenAI-compatible chat completions on a loopback port, answered from gold.

``POST /v1/chat/completions`` finds the caller's unit from the ``X-Memsuite-Account`` header (the
``<system>@<unit>`` account every run view sends to an oracle endpoint), recognises the prompt's kind
(:mod:`.prompts`) and replies as a capable model would, from the unit's gold. ``GET /v1/models`` lists
the one model, :data:`ORACLE_MODEL`. Embeddings are not served: the adapters use the run's embedder.

A prompt no kind recognises gets HTTP 422 naming its first line and the caller; a recognised prompt the
gold cannot answer (no such session or question in the unit) gets 422 too. The client counts both as
failed calls: never a silent wrong reply. Token counts are cl100k tokens of the messages' contents and
of the reply, and :attr:`OracleServer.served` logs every call per account (kind, tokens, status, the
caller's phase from the ``X-Memsuite-Phase`` header, and the seconds the server took to answer), so a
run's accounting can be checked against what the server saw, and each library's LLM traffic and the
LLM's time are counted in one place whatever client the library calls through.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from memsuite.eval.oracle.gold import UnitGold
from memsuite.eval.oracle.kinds import OracleRequest, PromptKind, ToolCalls, Unservable, first_line, render
from memsuite.eval.oracle.prompts import all_kinds
from memsuite.memory_systems.llm.client import ACCOUNT_HEADER, PHASE_HEADER
from memsuite.memory_systems.tokens import count_tokens

logger = logging.getLogger(__name__)

#: The model name the oracle serves and run headers record.
ORACLE_MODEL = "memsuite-gold-oracle"


@dataclass(frozen=True)
class ServedCall:
    """One request the oracle answered (or refused)."""

    account: str
    kind: str | None
    """The recognised kind, or None for an unrecognised prompt."""
    status: int
    prompt_tokens: int
    completion_tokens: int
    gold_answer: bool = False
    phase: str = ""
    """The caller's phase (``ingest``, ``retrieve``, ``answer``, ``judge``; "" when not sent)."""
    started: float = 0.0
    """``time.perf_counter()`` when the request's body was read."""
    seconds: float = 0.0
    """Time the server took to answer (the LLM's time, as a model endpoint's would be)."""


def _tally(calls: Sequence[ServedCall]) -> dict[str, int]:
    return {
        "calls": len(calls),
        "prompt_tokens": sum(c.prompt_tokens for c in calls if c.status == 200),
        "completion_tokens": sum(c.completion_tokens for c in calls),
    }


def busy_seconds(calls: Sequence[ServedCall]) -> float:
    """Seconds during which at least one of ``calls`` was being answered: a library that sends calls
    at once (graphiti does) waits for the LLM once, not once per call."""
    total, end = 0.0, float("-inf")
    for call in sorted(calls, key=lambda c: c.started):
        finish = call.started + call.seconds
        if finish > end:
            total += finish - max(call.started, end)
            end = finish
    return total


def forced_tool(body: dict[str, Any]) -> str | None:
    """The function a request forces (``tool_choice: {"type": "function", "function": {"name": ...}}``)."""
    choice = body.get("tool_choice")
    if isinstance(choice, dict) and isinstance(choice.get("function"), dict):
        name = choice["function"].get("name")
        return name if isinstance(name, str) and name else None
    return None


class OracleServer:
    """The oracle endpoint on 127.0.0.1 (a free port unless ``port`` is given).

    Args:
        gold: The unit's gold by unit id (None when the unit is unknown); :meth:`bind` sets it later.
        kinds: The prompt kinds to serve; default :func:`all_kinds`.
        port: Loopback port; 0 picks a free one.
    """

    def __init__(
        self,
        gold: Callable[[str], UnitGold | None] | None = None,
        kinds: Sequence[PromptKind] | None = None,
        port: int = 0,
    ) -> None:
        self.kinds = tuple(kinds if kinds is not None else all_kinds())
        self._gold = gold
        self._units: dict[str, UnitGold | None] = {}
        self._lock = threading.Lock()
        self._seen: Counter = Counter()
        self.served: dict[str, list[ServedCall]] = defaultdict(list)
        """Every call by account, in arrival order."""
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models"):
                    model = {"id": ORACLE_MODEL, "object": "model", "owned_by": "memsuite"}
                    server._send(self, 200, {"object": "list", "data": [model]})
                else:
                    server._send(self, 404, {"error": {"message": f"not found: {self.path}"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                try:
                    body = json.loads(self.rfile.read(length))
                except ValueError:
                    server._send(self, 400, {"error": {"message": "request body is not JSON"}})
                    return
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    message = f"the oracle serves chat completions only, not {self.path}"
                    server._send(self, 404, {"error": {"message": message}})
                    return
                account = self.headers.get(ACCOUNT_HEADER) or ""
                phase = self.headers.get(PHASE_HEADER) or ""
                status, payload = server.complete(body, account, phase)
                server._send(self, status, payload)

        self._server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def bind(self, gold: Callable[[str], UnitGold | None]) -> None:
        """Serve units' gold from ``gold`` (a run binds it once its benchmark is built)."""
        with self._lock:
            self._gold = gold
            self._units.clear()

    def unit_of(self, account: str) -> UnitGold | None:
        """The gold of the unit an account names (``<system>@<unit>``), or None."""
        if "@" not in account or self._gold is None:
            return None
        parts = account.split("@")
        for i in range(1, len(parts)):  # a system label holding "@" still finds its unit
            unit_id = "@".join(parts[i:])
            with self._lock:
                if unit_id in self._units:
                    cached = self._units[unit_id]
                    if cached is not None:
                        return cached
                    continue
            try:
                found = self._gold(unit_id)
            except KeyError:
                found = None
            with self._lock:
                self._units[unit_id] = found
            if found is not None:
                return found
        return None

    def complete(self, body: dict[str, Any], account: str, phase: str = "") -> tuple[int, dict[str, Any]]:
        """The status and JSON payload answering one chat-completion request body."""
        started = time.perf_counter()

        def call(
            kind: PromptKind | None, status: int, prompt_tokens: int, completion_tokens: int
        ) -> ServedCall:
            gold_answer = bool(kind and kind.gold_answer and status == 200)
            name = kind.name if kind else None
            seconds = time.perf_counter() - started
            return ServedCall(
                account, name, status, prompt_tokens, completion_tokens, gold_answer, phase, started, seconds
            )

        messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        prompt_tokens = sum(count_tokens(str(m.get("content") or "")) for m in messages)

        def seen(key: str) -> int:
            with self._lock:
                count = self._seen[(account, key)]
                self._seen[(account, key)] += 1
            return count

        request = OracleRequest(messages, body, account, self.unit_of(account), seen)
        kind = next((k for k in self.kinds if k.matches(request)), None)
        if kind is None:
            message = (
                f"oracle: unrecognised prompt from {account or 'an unnamed caller'}: first line"
                f" {first_line(messages)!r}"
            )
            return self._refuse(call(None, 422, prompt_tokens, 0), message)
        try:
            reply = kind.reply(request)
        except Unservable as exc:
            return self._refuse(
                call(kind, 422, prompt_tokens, 0), f"oracle: {kind.name} from {account}: {exc}"
            )
        text = render(reply)
        completion_tokens = max(1, count_tokens(text))
        self._log(call(kind, 200, prompt_tokens, completion_tokens))
        message: dict[str, Any] = {"role": "assistant", "content": text}
        finish = "stop"
        tool = forced_tool(body)
        if isinstance(reply, ToolCalls):
            message = {"role": "assistant", "content": "" if not reply.calls else None}
            if reply.calls:
                message["tool_calls"] = [
                    {
                        "id": f"call_oracle_{time.monotonic_ns()}_{i}",
                        "type": "function",
                        "function": {"name": name, "arguments": json.dumps(arguments, ensure_ascii=False)},
                    }
                    for i, (name, arguments) in enumerate(reply.calls)
                ]
                finish = "tool_calls"
        elif tool is not None and not isinstance(reply, str):
            # A forced function call (tool_choice naming it) is answered as that call, as an endpoint
            # that constrains the call to its schema would.
            call = {"name": tool, "arguments": text}
            message = {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": f"call_oracle_{time.monotonic_ns()}", "type": "function", "function": call}
                ],
            }
            finish = "tool_calls"
        return 200, {
            "id": f"chatcmpl-oracle-{time.monotonic_ns()}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model") or ORACLE_MODEL,
            "system_fingerprint": f"oracle:{kind.name}",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }

    def _refuse(self, call: ServedCall, message: str) -> tuple[int, dict[str, Any]]:
        logger.warning("%s", message)
        self._log(call)
        return 422, {"error": {"message": message, "type": "oracle_unrecognised_prompt", "code": 422}}

    def _log(self, call: ServedCall) -> None:
        with self._lock:
            self.served[call.account].append(call)

    def kinds_served(self) -> dict[str, int]:
        """Calls answered per kind (refusals as ``unrecognised`` / ``<kind>:refused``)."""
        counts: Counter = Counter()
        with self._lock:
            for calls in self.served.values():
                for call in calls:
                    name = call.kind or "unrecognised"
                    counts[name if call.status == 200 else f"{name}:refused"] += 1
        return dict(sorted(counts.items()))

    def accounts(self) -> dict[str, dict[str, Any]]:
        """Per named account: calls received (answered or refused) and the tokens counted for them, in
        all and per caller phase (``phases``), each phase with ``llm_s``, the time the server spent
        answering it (calls answered at once count once: the union of their intervals)."""
        out: dict[str, dict[str, Any]] = {}
        with self._lock:
            for account, calls in self.served.items():
                if account:
                    by_phase: dict[str, list[ServedCall]] = defaultdict(list)
                    for c in calls:
                        by_phase[c.phase or "unknown"].append(c)
                    out[account] = {
                        **_tally(calls),
                        "phases": {
                            phase: {**_tally(mine), "llm_s": busy_seconds(mine)}
                            for phase, mine in sorted(by_phase.items())
                        },
                    }
        return out

    @staticmethod
    def _send(handler: BaseHTTPRequestHandler, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload, ensure_ascii=False).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> OracleServer:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
