"""The loopback endpoint of a library that runs in a process of its own: an OpenAI-compatible server on
127.0.0.1 whose chat calls go through the run's LLM client (counted in the system's account) and whose
embeddings come from the run's embedder, so the library calls no network model and every call it makes
is the run's."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from memsuite.baselines.adapters._common import ClientAccount
from memsuite.memory_systems.embedder import Embedder


class Loopback:
    """The OpenAI-compatible endpoint a library in a process of its own calls (cognee, Hindsight): chat
    through the run's client, embeddings from the run's embedder.

    A chat call that fails (or arrives while the adapter has no client) is answered with HTTP 404, which
    cognee takes as final: the run's client has already retried it, and cognee retries any other error
    for at least 240 s (``LLM_MIN_RETRY_SECONDS``, ``infrastructure/llm/retry_config.py``), sleeping
    8 to 128 s between attempts, before it gives up. :attr:`failures` counts them.

    The same holds for a reply that fails cognee's validation (a summary or graph whose JSON does not
    fit its schema): cognee's retry sends the identical request again and again for those 240 s. When
    the run's client answers such a repeat from its response cache, the reply is the one cognee could
    not use, so the retry can only fail the same way, idle: it is answered 404 at once, and counted.
    (A repeat the client sends to the endpoint, with no cache, goes through: a sampled reply may
    differ.) Two chunks with the very same text in one adapter would also ask the same request; the
    second then fails like a retry.
    """

    def __init__(self, account: ClientAccount, embedder: Embedder, max_tokens: int, library: str) -> None:
        self.account, self.embedder, self.max_tokens, self.library = account, embedder, max_tokens, library
        self.failures = 0
        self._asked: set[str] = set()
        """Every chat request answered so far, by :func:`_request_key`."""
        self._lock = threading.Lock()
        loopback = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                self._send(200, {"object": "list", "data": [{"id": "memsuite", "object": "model"}]})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                if self.path.rstrip("/").endswith("/embeddings"):
                    self._send(200, loopback.embeddings(body))
                else:
                    self._send(*loopback.chat(body))

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def embeddings(self, body: dict[str, Any]) -> dict[str, Any]:
        inputs = body.get("input")
        texts = [str(t) for t in (inputs if isinstance(inputs, list) else [inputs])]
        vectors = self.embedder.encode(texts) if texts else []
        data = [
            {"object": "embedding", "index": i, "embedding": [float(x) for x in v]}
            for i, v in enumerate(vectors)
        ]
        return {
            "object": "list",
            "data": data,
            "model": body.get("model"),
            "usage": {"prompt_tokens": 0, "total_tokens": 0},
        }

    def chat(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if self.account.client is None:
            self.failures += 1
            return 404, {"error": {"message": f"the {self.library} adapter was built without an LLM"}}
        messages = [{"role": m.get("role"), "content": m.get("content")} for m in body.get("messages") or []]
        # the adapter's budget: a library may send its model's whole context size as max_tokens
        options = {"max_tokens": self.max_tokens}
        if body.get("temperature") is not None:
            options["temperature"] = body["temperature"]
        wants_json = (body.get("response_format") or {}).get("type") in ("json_object", "json_schema")
        key = _request_key(messages, wants_json)
        with self._lock:
            repeat = key in self._asked
            self._asked.add(key)
        result = (self.account.chat_json if wants_json else self.account.chat)(messages, **options)
        if result.failure is not None:
            self.failures += 1
            return 404, {"error": {"message": f"{result.failure.kind}: {result.failure.message[:500]}"}}
        if repeat and result.cached:
            self.failures += 1
            message = f"{self.library} retried a request whose reply the run's client serves from its cache"
            return 404, {"error": {"message": f"{message}: the retry would get the same reply"}}
        text = json.dumps(result.data, ensure_ascii=False) if wants_json else result.text
        return 200, {
            "id": "memsuite",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model"),
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
            ],
            "usage": {
                "prompt_tokens": result.prompt_tokens,
                "completion_tokens": result.completion_tokens,
                "total_tokens": result.prompt_tokens + result.completion_tokens,
            },
        }

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _request_key(messages: list[dict[str, Any]], wants_json: bool) -> str:
    return json.dumps([messages, wants_json], sort_keys=True, ensure_ascii=False)
