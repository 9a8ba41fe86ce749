"""A scripted OpenAI-compatible endpoint on a loopback port, the test double of a remote LLM (no SDK mocks).

It misbehaves on request (timeouts, dropped connections, HTTP errors, garbage), can add a fixed
latency to every answer (``latency_s``: a stand-in for a remote endpoint), and records when each
request arrived and how many were in flight at once, so rate limits can be checked from the
server's side.

Behaviours come from a fixed ``script`` or, when a ``responder`` is given, from a function of each
request: tests/fakes.py uses that to replay prompt-aware scripted replies to the LLM baselines, so
their logic tests go through the real :class:`~memsuite.memory_systems.llm.LLMClient` over HTTP.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: A function from a request body to the behaviour that answers it (see :class:`FakeEndpoint`).
Responder = Callable[[dict[str, Any]], tuple[Any, ...]]


class FakeEndpoint:
    """``/v1/chat/completions`` on a loopback port, answering from a script of behaviours.

    Each request takes the next behaviour of ``script``; the last one repeats. Behaviours:
    ``("text", s)``, ``("tool", name, arguments_json)``, ``("status", code, message)``,
    ``("sleep", seconds)``, ``("drop",)`` (close without answering), ``("garbage",)`` (200, not JSON),
    ``("no_choices",)``. ``GET /v1/models`` lists one model, ``fake``.

    Args:
        responder: Called with each request body (under a lock, in arrival order) to choose its
            behaviour; when given, ``script`` is not used.
    """

    def __init__(self, responder: Responder | None = None) -> None:
        self.script: list[tuple[Any, ...]] = [("text", "hello")]
        self.responder = responder
        self.requests: list[dict[str, Any]] = []
        self.latency_s = 0.0
        """Delay before every answer, seconds."""
        self.arrivals: list[float] = []
        """``time.monotonic()`` of each request's arrival."""
        self.peak_in_flight = 0
        """Most requests being answered at the same time."""
        self._in_flight = 0
        self._lock = threading.Lock()
        self._release = threading.Event()
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models"):
                    model = {"id": "fake", "object": "model", "owned_by": "memsuite"}
                    payload = {"object": "list", "data": [model]}
                    endpoint._send(self, 200, json.dumps(payload).encode())
                else:
                    endpoint._send(self, 404, b'{"error": {"message": "not found"}}')

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with endpoint._lock:
                    endpoint.requests.append(body)
                    endpoint.arrivals.append(time.monotonic())
                    endpoint._in_flight += 1
                    endpoint.peak_in_flight = max(endpoint.peak_in_flight, endpoint._in_flight)
                    if endpoint.responder is not None:
                        step = endpoint.responder(body)
                    else:
                        step = endpoint.script.pop(0) if len(endpoint.script) > 1 else endpoint.script[0]
                try:
                    if endpoint.latency_s:
                        endpoint._release.wait(endpoint.latency_s)
                    endpoint._answer(self, step, body)
                finally:
                    with endpoint._lock:
                        endpoint._in_flight -= 1

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def _answer(self, handler: BaseHTTPRequestHandler, step: tuple[Any, ...], body: dict[str, Any]) -> None:
        kind = step[0]
        if kind == "sleep":
            self._release.wait(step[1])  # released at teardown so no handler outlives the test
            return
        if kind == "drop":
            handler.close_connection = True
            handler.connection.shutdown(2)
            return
        if kind == "status":
            payload = {"error": {"message": step[2], "type": "invalid_request_error"}}
            self._send(handler, step[1], json.dumps(payload).encode())
            return
        if kind == "garbage":
            self._send(handler, 200, b"<html>gateway says hi</html>", content_type="text/html")
            return
        message: dict[str, Any] = {"role": "assistant", "content": None}
        finish = "stop"
        if kind == "text":
            message["content"] = step[1]
        elif kind == "tool":
            message["tool_calls"] = [
                {"id": "call_1", "type": "function", "function": {"name": step[1], "arguments": step[2]}}
            ]
            finish = "tool_calls"
        choices = [] if kind == "no_choices" else [{"index": 0, "message": message, "finish_reason": finish}]
        # Tokens are words here: enough for accounting to be checked, no tokenizer needed.
        prompt_tokens = sum(len(str(m.get("content") or "").split()) for m in body["messages"])
        written = str(message["content"] or "") + "".join(
            c["function"]["arguments"] for c in message.get("tool_calls", ())
        )
        completion_tokens = len(written.split()) or 1
        payload = {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": 0,
            "model": body["model"],
            "choices": choices,
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
        self._send(handler, 200, json.dumps(payload).encode())

    @staticmethod
    def _send(
        handler: BaseHTTPRequestHandler, status: int, data: bytes, content_type: str = "application/json"
    ) -> None:
        handler.send_response(status)
        handler.send_header("Content-Type", content_type)
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    def close(self) -> None:
        self._release.set()
        self._server.shutdown()
        self._server.server_close()
