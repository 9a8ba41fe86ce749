"""The Hindsight server the Hindsight adapter talks to: PostgreSQL and ``hindsight-api`` in one process
group, started under Hindsight's own venv, shared by the adapters of one process.

Private to ``memsuite.baselines.adapters.hindsight``. :class:`Server` is one running server
(``_hindsight_server.py`` under a lifeline: it dies with this process, however this process ends) and
its HTTP calls, each with a deadline. :func:`acquire` hands out the process's shared server for an
embedder (started on first use) and :func:`release` gives it back: a server starts in about 20 s on two
cores, so the adapters a run or a test module builds one after another share one (each in banks of its
own) instead of paying that per adapter. The last release stops it, at once or, with
``MEMSUITE_HINDSIGHT_LINGER_S`` set, that many seconds later unless an adapter takes it again.

Hindsight's LLM and embedding calls go to one loopback endpoint per server (the Cognee adapter's:
chat through the run's client, embeddings from the shared embedder). The server does not say which bank
a call is for, so every call to a shared server is made under its lock with the calling adapter's client
and embedder on the loopback; Hindsight's background consolidation, whose calls would come after the
request that caused them, is turned off (docs/libraries.md).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

from memsuite.baselines.adapters._common import ClientAccount
from memsuite.baselines.adapters._loopback import Loopback
from memsuite.memory_systems import lifeline
from memsuite.memory_systems.embedder import Embedder
from memsuite.memory_systems.errors import MemsuiteError, SystemTimeoutError

_SCRIPT = Path(__file__).with_name("_hindsight_server.py")
#: The embedding model name Hindsight is told (its OpenAI provider sends it back to the loopback).
EMBEDDING_MODEL = "sentence-transformers/all-MiniLM-L6-v2"


class HindsightError(MemsuiteError):
    """Hindsight's server refused a request, failed, or stopped."""


def server_environment(loopback_url: str, *, llm_timeout_s: float) -> dict[str, str]:
    """The ``HINDSIGHT_API_*`` settings (names from ``hindsight_api/config.py``, 1.1.0)."""
    return {
        "HINDSIGHT_API_LLM_PROVIDER": "openai",
        "HINDSIGHT_API_LLM_BASE_URL": loopback_url,
        "HINDSIGHT_API_LLM_API_KEY": "not-used",  # must be non-empty
        "HINDSIGHT_API_LLM_MODEL": "memsuite",
        # one call at a time: two shared cores, and the loopback serves one adapter at a time anyway
        "HINDSIGHT_API_LLM_MAX_CONCURRENT": "1",
        # the run's client has already retried what fails; a retry of a cached reply would repeat it
        "HINDSIGHT_API_LLM_MAX_RETRIES": "0",
        "HINDSIGHT_API_LLM_TIMEOUT": str(int(llm_timeout_s)),
        # a start-up probe call would reach the run's endpoint (and the oracle) as an unknown prompt
        "HINDSIGHT_API_SKIP_LLM_VERIFICATION": "true",
        "HINDSIGHT_API_EMBEDDINGS_PROVIDER": "openai",
        "HINDSIGHT_API_EMBEDDINGS_OPENAI_BASE_URL": loopback_url,
        "HINDSIGHT_API_EMBEDDINGS_OPENAI_API_KEY": "not-used",
        "HINDSIGHT_API_EMBEDDINGS_OPENAI_MODEL": EMBEDDING_MODEL,
        # the cross-encoder and flashrank rerankers would download models: reciprocal rank fusion only
        "HINDSIGHT_API_RERANKER_PROVIDER": "rrf",
        # consolidation runs in the server's worker after a retain has returned: its calls could not be
        # accounted to the session that caused them, and its observations carry no document
        "HINDSIGHT_API_ENABLE_OBSERVATIONS": "false",
        "HINDSIGHT_API_ENABLE_AUTO_CONSOLIDATION": "false",
        "HINDSIGHT_API_LOG_LEVEL": "warning",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "PYTHONPATH": "",
    }


class Server:
    """One Hindsight server (PostgreSQL and ``hindsight-api``) and the loopback it calls.

    Args:
        python: The Python of Hindsight's venv.
        pg_bin: The PostgreSQL ``bin`` folder ``make hindsight`` unpacked.
        pg_user: The system user PostgreSQL runs as (None: this process's user).
        embedder: The embedder the loopback serves first (the server probes its dimension at start).
        startup_s: Deadline of the start, PostgreSQL's and the API's migrations included.
        llm_timeout_s: Hindsight's own deadline on one LLM call.

    Raises:
        SystemTimeoutError: Not healthy within ``startup_s`` (every process it started is killed).
        HindsightError: It failed to start (the message carries its logs' tails).
    """

    def __init__(
        self,
        python: Path,
        pg_bin: Path,
        pg_user: str | None,
        embedder: Embedder,
        *,
        startup_s: float,
        llm_timeout_s: float,
    ) -> None:
        # its own folder, not an adapter's: a shared server outlives the adapter that started it
        self.logs = logs = Path(tempfile.mkdtemp(prefix="memsuite-hindsight-"))
        (logs / "owner.pid").write_text(str(os.getpid()))  # a later server removes it if this one dies
        self.lock = threading.RLock()
        self.loopback = Loopback(ClientAccount(None, "hindsight"), embedder, 2000, library="hindsight")
        env = {
            **os.environ,
            **server_environment(self.loopback.url, llm_timeout_s=llm_timeout_s),
            "MEMSUITE_HINDSIGHT_PG_BIN": str(pg_bin),
            "MEMSUITE_HINDSIGHT_PG_USER": pg_user or "",
            "MEMSUITE_HINDSIGHT_LOGS": str(logs),
            # the script's own deadline only backs the adapter's, which comes first and kills it
            "MEMSUITE_HINDSIGHT_STARTUP_S": str(startup_s + 30),
        }
        env.pop("VIRTUAL_ENV", None)
        started = time.monotonic()
        self.process = subprocess.Popen(
            lifeline.command(python, [str(_SCRIPT)], isolated=True),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=(logs / "server.log").open("ab"),
            env=env,
            cwd=logs,
            text=True,
            encoding="utf-8",
            **lifeline.popen_options(),
        )
        reply = self._ready_line(startup_s)
        if reply is None:
            self.kill()
            shutil.rmtree(logs, ignore_errors=True)
            raise SystemTimeoutError("hindsight", startup_s, "start", "PostgreSQL and hindsight-api")
        if not reply.get("ok"):
            tail = self.log_tail()
            self.stop()
            raise HindsightError(f"Hindsight's server did not start: {reply.get('error')}\n{tail}")
        self.url = reply["url"]
        self.startup_s = time.monotonic() - started
        self.users = 0
        self.timer: threading.Timer | None = None

    def _ready_line(self, timeout_s: float) -> dict[str, Any] | None:
        lines: list[str] = []
        reader = threading.Thread(target=lambda: lines.append(self.process.stdout.readline()), daemon=True)
        reader.start()
        reader.join(timeout_s)
        if not lines:
            return None
        if not lines[0]:
            return {"ok": False, "error": f"the server script exited ({self.process.poll()})"}
        return json.loads(lines[0])

    def log_tail(self, chars: int = 2000) -> str:
        tails = []
        for name in ("server.log", "hindsight-api.log", "postgres.log", "initdb.log"):
            path = self.logs / name
            if path.exists() and path.stat().st_size:
                tails.append(f"-- {name}:\n" + path.read_text(encoding="utf-8", errors="replace")[-chars:])
        return "\n".join(tails)

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    @contextlib.contextmanager
    def serving(self, account: ClientAccount, embedder: Embedder, max_tokens: int) -> Iterator[Loopback]:
        """Hold the server for one adapter's calls: its client and embedder answer the loopback."""
        with self.lock:
            loopback = self.loopback
            if loopback.account is not account:
                loopback._asked.clear()  # another adapter's requests are no retries of this one's
            loopback.account, loopback.embedder, loopback.max_tokens = account, embedder, max_tokens
            yield loopback

    def call(
        self, method: str, path: str, body: dict[str, Any] | None, *, timeout_s: float, verb: str
    ) -> tuple[int, Any]:
        """One HTTP request to ``hindsight-api``: its status and JSON reply, within ``timeout_s``.

        Raises:
            SystemTimeoutError: No reply in time (the server is killed: a stalled server fails by name).
            HindsightError: The server has stopped.
        """
        if not self.alive:
            raise HindsightError(
                f"Hindsight's server has stopped (exit {self.process.poll()})\n{self.log_tail()}"
            )
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            f"{self.url}{path}", data=data, method=method, headers={"Content-Type": "application/json"}
        )
        try:
            with urllib.request.urlopen(request, timeout=timeout_s) as reply:
                return reply.status, json.loads(reply.read() or b"null")
        except urllib.error.HTTPError as error:
            text = error.read().decode("utf-8", errors="replace")
            try:
                return error.code, json.loads(text)
            except ValueError:
                return error.code, {"detail": text[:2000]}
        except TimeoutError as error:
            self.kill()
            raise SystemTimeoutError(
                "hindsight", timeout_s, verb, f"hindsight-api's {method} {path}"
            ) from error
        except urllib.error.URLError as error:
            if isinstance(error.reason, (TimeoutError, socket.timeout)):
                self.kill()
                raise SystemTimeoutError(
                    "hindsight", timeout_s, verb, f"hindsight-api's {method} {path}"
                ) from error
            raise HindsightError(
                f"Hindsight's server did not answer {method} {path}: {error}\n{self.log_tail()}"
            ) from error

    def kill(self) -> None:
        """End the server and every process it started, now."""
        lifeline.kill_group(self.process.pid)
        self.process.wait()
        self.loopback.close()

    def stop(self) -> None:
        """Stop the API and PostgreSQL in order (the script does), then make sure of it."""
        if self.alive:
            with contextlib.suppress(BrokenPipeError):
                self.process.stdin.close()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=30)
        self.kill()
        shutil.rmtree(self.logs, ignore_errors=True)


def bank_path(bank: str, *parts: str) -> str:
    return "/".join([f"/v1/default/banks/{quote(bank, safe='')}", *(quote(p, safe="") for p in parts)])


_SERVERS: dict[tuple[str, str], Server] = {}
_GUARD = threading.Lock()


def acquire(key: tuple[str, str], start: Any) -> Server:
    """The process's server for ``key`` (Hindsight's Python, the embedder's model), started by
    ``start()`` when there is none or it has stopped."""
    with _GUARD:
        server = _SERVERS.get(key)
        if server is not None and server.timer is not None:
            server.timer.cancel()
            server.timer = None
        if server is None or not server.alive:
            server = _SERVERS[key] = start()
        server.users += 1
        return server


def release(key: tuple[str, str], server: Server) -> None:
    """Give a server back; the last user stops it (after ``MEMSUITE_HINDSIGHT_LINGER_S``, if set)."""
    with _GUARD:
        server.users -= 1
        if server.users > 0:
            return
        linger = float(os.environ.get("MEMSUITE_HINDSIGHT_LINGER_S") or 0)
        if linger <= 0 or not server.alive:
            _SERVERS.pop(key, None) if _SERVERS.get(key) is server else None
            server.stop()
            return
        server.timer = threading.Timer(linger, _stop_idle, args=(key, server))
        server.timer.daemon = True
        server.timer.start()


def _stop_idle(key: tuple[str, str], server: Server) -> None:
    with _GUARD:
        if server.users > 0:
            return
        if _SERVERS.get(key) is server:
            del _SERVERS[key]
    server.stop()


@atexit.register
def _stop_all() -> None:
    with _GUARD:
        servers = list(_SERVERS.values())
        _SERVERS.clear()
    for server in servers:
        if server.timer is not None:
            server.timer.cancel()
        server.stop()
