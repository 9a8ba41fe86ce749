"""What the library adapters share: optional imports, scope names, LLM accounting, a state folder.

Private to ``memsuite.baselines.adapters``; nothing here is promised.

- :func:`require_library` imports a library of the ``adapters`` extra or raises an error naming it.
- :func:`scope_id` turns a memsuite namespace into an identifier the libraries accept (mem0 refuses
  whitespace in ``user_id``; graphiti allows only ``[A-Za-z0-9_-]`` in ``group_id``).
- :class:`ClientAccount` is the run's :class:`~memsuite.memory_systems.llm.LLMClient` as one adapter instance
  uses it: every call the library makes goes through it, so it is accounted, cached and never raises
  on endpoint trouble (a failure comes back as :class:`LibraryLLMError`, which the adapter counts).
- :class:`StateFolder` is where a library keeps its files: the caller's ``workdir`` or a private
  temporary folder removed with the adapter.
"""

from __future__ import annotations

import importlib.metadata
import re
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memsuite.memory_systems.errors import ConfigError, require
from memsuite.memory_systems.llm.protocol import EndpointClient
from memsuite.memory_systems.records import Usage
from memsuite.memory_systems.store import check_k

#: The memsuite extra that installs every adapter's library.
EXTRA = "adapters"

_PLAIN_SCOPE = re.compile(r"[A-Za-z0-9_]+")
_LLM_FIELDS = ("llm_calls", "prompt_tokens", "completion_tokens", "llm_failures", "cache_hits")


def require_library(module: str, *, purpose: str) -> Any:
    """Import ``module``, or raise a :class:`~memsuite.memory_systems.errors.MissingDependencyError`
    naming the extra."""
    return require(module, extra=EXTRA, purpose=purpose)


def installed_version(distribution: str) -> str | None:
    """Installed version of a distribution, or None when it is absent."""
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def check_context_tokens(value: object) -> int | None:
    """A ``context_tokens`` setting (cl100k tokens): None, or a positive int."""
    return None if value is None else check_k(value, name="context_tokens")


def scope_id(namespace: str) -> str:
    """An identifier for ``namespace`` made of ``[A-Za-z0-9_-]`` only; distinct namespaces never collide.

    A namespace of letters, digits and underscores is kept as it is (readable in the library's own
    files); any other is ``ns-`` plus the hex of its UTF-8 bytes. The two forms cannot meet: only the
    second contains a dash.
    """
    if _PLAIN_SCOPE.fullmatch(namespace):
        return namespace
    return "ns-" + namespace.encode("utf-8").hex()


class LibraryLLMError(Exception):
    """A call a library made through :class:`ClientAccount` produced nothing usable.

    Raised into the library (which aborts the operation that needed the reply) and caught by the
    adapter, which counts it in ``IngestReport.failures``; the client has already counted the call.
    """


class ClientAccount:
    """The run's LLM client as one adapter instance uses it.

    Calls are accounted to the client view's system (the runner hands each system a view) or, for a
    shared client, to ``default_name``, through a private view: :meth:`usage` reports exactly this
    adapter's calls, though the runner builds a fresh system per unit around one long-lived client.

    Args:
        llm: An :class:`~memsuite.memory_systems.llm.LLMClient` (or anything with its ``chat`` / ``chat_json``
            / ``usage``), or None for an adapter used without ingestion.
        default_name: Name to account calls to when ``llm`` is not a per-system view.
    """

    def __init__(self, llm: EndpointClient | None, default_name: str) -> None:
        self.system_name = getattr(llm, "system_name", "") or default_name
        # A private view: its own account holds exactly this adapter's calls (never a difference of
        # a counter that concurrent units move too).
        self.client = llm.for_system(self.system_name) if llm is not None else None

    def require(self, adapter: str, what: str) -> None:
        """Raise :class:`ConfigError` when there is no client."""
        if self.client is None:
            raise ConfigError(
                f"{adapter}: {what} runs the library's own LLM extraction and needs an LLM; build the "
                "system with llm=<client> (in a run config: set internal_llm or answer_llm)"
            )

    def identity(self) -> dict[str, Any]:
        """Model and endpoint of the client (never its key), for ``params()``."""
        config = getattr(self.client, "config", None)
        if config is None:
            return {"model": None if self.client is None else type(self.client).__name__}
        return {"model": config.model, "base_url": config.base_url}

    def chat(self, messages: list[dict[str, Any]], **options: Any) -> Any:
        """``client.chat`` in the ``ingest`` phase, accounted to this adapter."""
        return self.client.chat(messages, phase="ingest", system_name=self.system_name, **options)

    def chat_json(self, messages: list[dict[str, Any]], **options: Any) -> Any:
        """``client.chat_json`` in the ``ingest`` phase, accounted to this adapter."""
        return self.client.chat_json(messages, phase="ingest", system_name=self.system_name, **options)

    def usage(self) -> Usage:
        """LLM calls, tokens, failures and cache hits of this adapter's calls (no wall time)."""
        if self.client is None:
            return Usage()
        total = self.client.usage()
        return Usage(**{name: getattr(total, name) for name in _LLM_FIELDS})


def adapter_usage(llm: Usage, embedder: Usage, wall_s: dict[str, float]) -> Usage:
    """An adapter's :class:`Usage`: its own LLM account, its own embedder view's counts, its wall time."""
    return Usage(
        **{name: getattr(llm, name) for name in _LLM_FIELDS},
        embedding_calls=embedder.embedding_calls,
        embedded_texts=embedder.embedded_texts,
        wall_s=dict(wall_s),
    )


class StateFolder:
    """The folder a library keeps its working files in.

    Args:
        workdir: A folder to use (kept afterwards: the run folder's per-unit work dir), or None for a
            private temporary folder removed by :meth:`cleanup` or when the adapter is collected.
        prefix: Prefix of the temporary folder's name.
    """

    def __init__(self, workdir: str | Path | None, prefix: str) -> None:
        self._temporary = None if workdir is not None else tempfile.TemporaryDirectory(prefix=prefix)
        self.path = Path(workdir) if workdir is not None else Path(self._temporary.name)
        self.path.mkdir(parents=True, exist_ok=True)

    @property
    def is_temporary(self) -> bool:
        return self._temporary is not None

    def cleanup(self) -> None:
        """Remove the folder if it is a temporary one."""
        if self._temporary is not None:
            self._temporary.cleanup()


_DATE = re.compile(r"(\d{4})[/-](\d{1,2})[/-](\d{1,2})")
_CLOCK = re.compile(r"\b(\d{1,2}):(\d{2})(?::(\d{2}))?\b")


def session_datetime(timestamp: str) -> datetime | None:
    """A benchmark timestamp ("2023/03/05 (Sun) 11:24", "2023-10-03 08:30:00") as a UTC datetime.

    Benchmarks give local times without a zone; they are read as UTC so that order is kept.
    Returns None when no date can be read.
    """
    day = _DATE.search(timestamp or "")
    if day is None:
        return None
    clock = _CLOCK.search(timestamp[day.end() :])
    hour, minute, second = (int(clock[1]), int(clock[2]), int(clock[3] or 0)) if clock else (0, 0, 0)
    try:
        return datetime(int(day[1]), int(day[2]), int(day[3]), hour, minute, second, tzinfo=UTC)
    except ValueError:
        return None
