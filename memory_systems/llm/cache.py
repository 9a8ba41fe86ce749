"""The response cache: LLM responses in one SQLite file keyed by the SHA-256 of the request."""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import threading
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memsuite.memory_systems.errors import InvalidInputError

logger = logging.getLogger(__name__)


#: Bump when the request or stored-response layout changes: old cache rows then simply miss.
CACHE_VERSION = 1


def request_key(request: Mapping[str, Any]) -> str:
    """Cache key of a request: SHA-256 of its canonical JSON (sorted keys, no whitespace).

    Raises:
        InvalidInputError: The request holds something that is not JSON (e.g. an SDK object).
    """
    try:
        canonical = json.dumps(
            {"cache_version": CACHE_VERSION, **request},
            sort_keys=True,
            ensure_ascii=False,
            separators=(",", ":"),
            allow_nan=False,
        )
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"LLM request is not plain JSON (messages, tools): {exc}") from exc
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class ResponseCache:
    """LLM responses in one SQLite file, keyed by :func:`request_key`.

    Safe with several threads (one connection per thread) and several processes (WAL journal, a
    busy timeout, and ``INSERT OR REPLACE``: two writers of the same key store the same response).

    Args:
        path: The SQLite file (its folder is created).
        busy_timeout_s: How long a writer waits for another's lock before giving up.
    """

    def __init__(self, path: str | Path, *, busy_timeout_s: float = 30.0) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.busy_timeout_s = busy_timeout_s
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self._conn()  # create the schema now, so a bad path fails at construction

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(
                self.path, timeout=self.busy_timeout_s, isolation_level=None, check_same_thread=False
            )
            # busy_timeout first: switching to WAL needs a lock another process may briefly hold.
            conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout_s * 1000)}")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")  # WAL + NORMAL: durable across app crashes
            conn.execute(
                "CREATE TABLE IF NOT EXISTS responses ("
                " key TEXT PRIMARY KEY, request TEXT NOT NULL, response TEXT NOT NULL,"
                " created_at TEXT NOT NULL)"
            )
            self._local.conn = conn
            with self._lock:
                self._connections.append(conn)
        return conn

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored response for ``key``, or None."""
        row = self._conn().execute("SELECT response FROM responses WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        try:
            return json.loads(row[0])
        except ValueError:  # a row written by a broken build: treat as a miss, it gets overwritten
            logger.warning("unreadable LLM cache row %s in %s; ignoring it", key[:12], self.path)
            return None

    def put(self, key: str, request: Mapping[str, Any], response: Mapping[str, Any]) -> None:
        """Store a response (the request is kept too, to make the cache inspectable)."""
        self._conn().execute(
            "INSERT OR REPLACE INTO responses (key, request, response, created_at) VALUES (?, ?, ?, ?)",
            (
                key,
                json.dumps(request, ensure_ascii=False, sort_keys=True),
                json.dumps(response, ensure_ascii=False),
                datetime.now(UTC).isoformat(timespec="seconds"),
            ),
        )

    def __len__(self) -> int:
        return self._conn().execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        """Close every thread's connection."""
        with self._lock:
            for conn in self._connections:
                conn.close()
            self._connections.clear()
        self._local = threading.local()
