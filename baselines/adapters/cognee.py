"""Cognee adapter: cognee's own add / cognify / search behind the memsuite contract (README: Systems).

cognee 1.6.5 (``TESTED_VERSION``) cannot share the project's venv (it pins openai, huggingface-hub,
pandas, sqlalchemy and tokenizers at other versions: docs/libraries.md), so it runs in a venv of its
own that ``make cognee`` builds (``.venv-cognee``; ``MEMSUITE_COGNEE_PYTHON`` names another Python).
The adapter starts ``_cognee_worker.py`` under that Python and drives it over JSON lines; every row a
run makes with this system records that venv, its Python and the cognee version in ``params()``.

Cognee's LLM and embedding calls go to a loopback OpenAI-compatible endpoint the adapter serves
(:class:`Loopback`): chat completions are forwarded through the run's LLM client (accounted, cached,
failures counted, the oracle sees them under this system's account) and ``/v1/embeddings`` is
answered from the run's shared embedder (the same MiniLM as every other system). Cognee stores its
data in embedded files in the adapter's state folder (SQLite, LanceDB and its Kuzu fork), with its
backend access control on (its default): each dataset (one per namespace) gets databases of its own.
With it off, every dataset shares one vector store and a search with ``datasets=[...]`` returns other
datasets' chunks too.

Verbs:

- ``ingest_session`` adds the session as one text (``"role: content"`` lines) to the namespace's
  dataset and runs ``cognify`` on it: per chunk, a summary and a knowledge-graph extraction (two LLM
  calls, JSON replies validated by cognee). A session whose ``cognify`` fails is deleted again (its
  chunks were never indexed) and counted in ``IngestReport.failures``;
- ``store`` adds each text and runs ``cognify``'s default tasks without its LLM step
  (``extract_graph_and_summarize``) through cognee's ``run_custom_pipeline``: each text is chunked and
  its chunks embedded and indexed, with no graph and no summary, and no LLM call;
- ``search`` is cognee's ``search`` (``cognee/api/v1/search/search.py``, cognee 1.6.5) with
  ``SearchType.CHUNKS`` (``ChunksRetriever``, ``cognee/modules/retrieval/chunks_retriever.py``: the
  ``top_k`` nearest chunks; no LLM call), ``k`` as its ``top_k``. Cognee returns no score for a chunk,
  so a hit's score is its rank's ``1 / (1 + rank)``; a chunk's memory id is the data item it was cut
  from. ``CHUNKS`` has no token limit of its own: a run's context budget (``context_tokens``) is
  recorded in the settings, ``k`` stays the chunk count and the caller cuts the chunks in their order.
  Cognee's default search type, ``HYBRID_COMPLETION``, is not used (docs/libraries.md says what it
  would add);
- ``delete`` is cognee's ``datasets.delete_data`` (hard: the item's chunks, graph nodes and vectors);
  ``update`` is that delete then a ``store`` of the new text (cognee's own ``update`` deletes and adds
  too), under a new id inside cognee, kept under the old id here.

``save`` writes each namespace's memories (id, text, metadata); ``load`` stores them again into a
fresh cognee (chunked and indexed as ``store`` does, under their saved ids). What ``cognify`` built
beside the chunks (graph, summaries) is not saved: ``CHUNKS`` search does not read it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import queue
import subprocess
import threading
import time
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memsuite.baselines.adapters._common import (
    ClientAccount,
    StateFolder,
    adapter_usage,
    check_context_tokens,
    scope_id,
)
from memsuite.baselines.adapters._loopback import Loopback
from memsuite.memory_systems import lifeline
from memsuite.memory_systems.base import MemorySystem
from memsuite.memory_systems.embedder import Embedder
from memsuite.memory_systems.errors import (
    InvalidInputError,
    MemsuiteError,
    MissingDependencyError,
    SystemTimeoutError,
    UnknownMemoryError,
)
from memsuite.memory_systems.llm.protocol import EndpointClient
from memsuite.memory_systems.records import Hit, IngestReport, MemoryRecord, Session, Usage
from memsuite.memory_systems.registry import accepted_resources, register
from memsuite.memory_systems.store import (
    check_k,
    check_memory_id,
    check_namespace,
    check_session,
    check_texts,
)

logger = logging.getLogger(__name__)

#: The cognee version this adapter was written and tested against (pinned by ``make cognee``).
TESTED_VERSION = "1.6.5"
#: The make target that builds cognee's venv.
MAKE_TARGET = "cognee"
_ROOT = Path(__file__).resolve().parents[2]
_WORKER = Path(__file__).with_name("_cognee_worker.py")
#: The embedding model name cognee is told (its tokenizer is looked up under it in the Hub cache).
_EMBEDDING_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
_SAVED = "cognee_memories.json"


def cognee_python() -> Path:
    """The Python of cognee's venv (``MEMSUITE_COGNEE_PYTHON``, else ``.venv-cognee`` in the checkout).

    Raises:
        MissingDependencyError: It does not exist (names the make target).
    """
    python = Path(os.environ.get("MEMSUITE_COGNEE_PYTHON") or _ROOT / ".venv-cognee" / "bin" / "python")
    if not python.exists():
        raise MissingDependencyError(
            f"the Cognee adapter runs cognee in its own venv, and {python} does not exist: build it with "
            f"`make {MAKE_TARGET}` (or set MEMSUITE_COGNEE_PYTHON to a Python with cognee=={TESTED_VERSION})"
        )
    return python


def site_packages() -> list[str]:
    """The site-packages folders of cognee's venv ([] when it is not built)."""
    try:
        python = cognee_python()
    except MissingDependencyError:
        return []
    return [str(p) for p in (python.parent.parent / "lib").glob("python3*/site-packages")]


def venv_versions() -> dict[str, str]:
    """cognee's version in its venv and the venv's folder, for a run's header ({} when not built)."""
    import importlib.metadata

    found = next(iter(importlib.metadata.distributions(name="cognee", path=site_packages())), None)
    if found is None:
        return {}
    return {"cognee": found.version, "cognee_venv": str(cognee_python().parent.parent)}


class CogneeError(MemsuiteError):
    """Cognee's worker reported an error or stopped."""


class _Worker:
    """``_cognee_worker.py`` running under cognee's venv, one JSON request and reply at a time.

    Every request has a deadline: a worker that gives no reply within ``timeout_s`` is killed with
    the helpers it started (its process group) and the call raises :class:`SystemTimeoutError`, so a
    stalled library fails its unit by name instead of stalling the run. The worker also runs under a
    lifeline (memory_systems/lifeline.py): it dies with this process, however this process ends.
    """

    def __init__(
        self, python: Path, folder: Path, endpoint: str, tokenizer_dir: Path, *, timeout_s: float
    ) -> None:
        env = {
            **os.environ,
            "DATA_ROOT_DIRECTORY": str(folder / "data"),
            "SYSTEM_ROOT_DIRECTORY": str(folder / "system"),
            "ENABLE_BACKEND_ACCESS_CONTROL": "true",
            "TELEMETRY_DISABLED": "1",
            "COGNEE_SKIP_CONNECTION_TEST": "true",
            "COGNEE_LOG_FILE": "false",
            "LOG_LEVEL": "ERROR",
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "LLM_PROVIDER": "custom",
            "LLM_MODEL": "openai/memsuite",
            "LLM_ENDPOINT": endpoint,
            "LLM_API_KEY": "not-used",
            "EMBEDDING_PROVIDER": "openai_compatible",
            "EMBEDDING_MODEL": _EMBEDDING_MODEL,
            "EMBEDDING_ENDPOINT": endpoint,
            "EMBEDDING_API_KEY": "not-used",
            "EMBEDDING_DIMENSIONS": "384",
            "HF_HUB_OFFLINE": "1",
            "HF_HUB_CACHE": str(folder / "hub"),
            "TIKTOKEN_CACHE_DIR": str(folder / "tiktoken"),
            "MEMSUITE_COGNEE_TOKENIZER_DIR": str(tokenizer_dir),
            "PYTHONPATH": "",
        }
        env.pop("VIRTUAL_ENV", None)
        self.log = folder / "worker.log"
        self.timeout_s = timeout_s
        self.process = subprocess.Popen(
            # -I: the script's folder (this package, with its own cognee.py) stays off sys.path
            lifeline.command(python, [str(_WORKER)], isolated=True),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log.open("ab"),
            env=env,
            cwd=folder,
            text=True,
            encoding="utf-8",
            **lifeline.popen_options(),
        )
        self.lock = threading.Lock()
        self._lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True, name="cognee-worker-reader").start()
        self._reply("start", "import cognee")  # "ready": cognee imported

    def _read(self) -> None:
        """Every line the worker writes, onto the queue; "" once its stdout closes."""
        for line in self.process.stdout:
            self._lines.put(line)
        self._lines.put("")

    def _reply(self, verb: str, op: str) -> Any:
        try:
            line = self._lines.get(timeout=self.timeout_s)
        except queue.Empty:
            self.kill()
            raise SystemTimeoutError("cognee", self.timeout_s, verb, f"cognee's {op}") from None
        if not line:
            self._lines.put("")  # every later call finds the worker stopped too
            tail = self.log.read_text(encoding="utf-8", errors="replace")[-2000:]
            raise CogneeError(f"cognee's worker stopped (exit {self.process.poll()}); its log ends:\n{tail}")
        reply = json.loads(line)
        if not reply["ok"]:
            raise CogneeError(f"cognee: {reply['error']}")
        return reply["result"]

    def call(self, op: str, *, verb: str, **args: Any) -> Any:
        """Send request ``op`` made by the adapter's ``verb``; its result, within the deadline.

        Raises:
            SystemTimeoutError: No reply within the deadline (the worker is killed).
            CogneeError: cognee raised, or the worker has stopped.
        """
        with self.lock:
            if self.process.poll() is None:
                with contextlib.suppress(BrokenPipeError):  # a worker gone: _reply reports it, with its log
                    self.process.stdin.write(json.dumps({"op": op, **args}) + "\n")
                    self.process.stdin.flush()
            return self._reply(verb, op)

    def kill(self) -> None:
        """End the worker and every process it started, now."""
        lifeline.kill_group(self.process.pid)
        self.process.wait()

    def close(self) -> None:
        if self.process.poll() is None:
            with contextlib.suppress(BrokenPipeError):
                self.process.stdin.close()
            # Every request was answered, so what cognee wrote is on disk; its own shutdown (the event
            # loop, executor and resource tracker) takes seconds more and is not waited for.
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=3)
        self.kill()  # and the database workers cognee started, whatever the worker did


@register("cognee")
class CogneeMemory(MemorySystem):
    """Cognee (cognee, pinned, in its own venv) over a worker process, the run's LLM and embedder.

    Args:
        embedder: The shared embedder; default the offline all-MiniLM-L6-v2.
        llm: The LLM client cognee's ``cognify`` calls go through; None allows search and delete only.
        workdir: Folder for cognee's files (the run's work dir); default a temporary folder removed
            with the adapter.
        top_k: Default number of hits of :meth:`retrieve`.
        max_tokens: Completion budget of each cognee call that sets none.
        call_timeout_s: Deadline of each request to cognee's worker (a ``cognify`` makes several LLM
            calls, each with the client's own timeout and retries): past it the worker is killed and
            the call raises :class:`SystemTimeoutError`, failing the unit by name.
        context_tokens: A run's context budget in cl100k tokens, recorded: ``CHUNKS`` search has no
            token limit to pass it to, so ``k`` stays the number of chunks.

    Raises:
        MissingDependencyError: cognee's venv does not exist.
    """

    name = "cognee"

    def __init__(
        self,
        *,
        embedder: Embedder | None = None,
        llm: EndpointClient | None = None,
        workdir: str | Path | None = None,
        top_k: int = 5,
        max_tokens: int = 2000,
        call_timeout_s: float = 900.0,
        context_tokens: int | None = None,
    ) -> None:
        super().__init__(top_k=top_k)
        self.max_tokens = check_k(max_tokens)
        self.context_tokens = check_context_tokens(context_tokens)
        if not call_timeout_s > 0:
            raise InvalidInputError(f"call_timeout_s must be positive, got {call_timeout_s!r}")
        self.call_timeout_s = float(call_timeout_s)
        self.embedder = (embedder or Embedder()).account()
        python = cognee_python()
        self._state = StateFolder(workdir, prefix="memsuite-cognee-")
        self._account = ClientAccount(llm, self.name)
        self._loopback = Loopback(self._account, self.embedder, self.max_tokens, library="cognee")
        tokenizer_dir = Path(self.embedder.model_path or _default_model_dir())
        try:
            self._worker = _Worker(
                python, self._state.path, self._loopback.url, tokenizer_dir, timeout_s=self.call_timeout_s
            )
            self._venv = self._worker.call("version", verb="start")
        except BaseException:
            self._loopback.close()
            raise
        # the worker and the endpoint stop when the adapter is collected, if close() was not called
        self._stop = weakref.finalize(self, _stop, self._worker, self._loopback)
        if self._venv["cognee"] != TESTED_VERSION:
            self.close()
            raise MissingDependencyError(
                f"{python} has cognee {self._venv['cognee']}; the adapter needs cognee=={TESTED_VERSION} "
                f"(`make {MAKE_TARGET}`)"
            )
        self._records: dict[str, dict[str, MemoryRecord]] = {}
        """Per scope, memory id -> the record (cognee keeps the text in files; the adapter its id map)."""
        self._data: dict[str, dict[str, str]] = {}
        """Per scope, cognee's data id -> memory id (an updated memory keeps its id)."""

    def params(self) -> dict[str, Any]:
        return {
            "top_k": self.top_k,
            "max_tokens": self.max_tokens,
            "call_timeout_s": self.call_timeout_s,
            "context_tokens": self.context_tokens,
            "embedder": self.embedder.model_name,
            "cognee_version": self._venv["cognee"],
            "cognee_tested_version": TESTED_VERSION,
            "venv": self._venv["prefix"],
            "venv_python": self._venv["python"],
            "search": "cognee search, SearchType.CHUNKS",
            "ingest_session": "cognee add (the session as one text) + cognify",
            "llm": self._account.identity(),
        }

    def usage(self) -> Usage:
        return adapter_usage(self._account.usage(), self.embedder.usage, self._usage.wall_s)

    def close(self) -> None:
        """Stop the worker and the endpoint; remove a temporary state folder."""
        self._stop()
        self._state.cleanup()

    # -- helpers ---------------------------------------------------------------------------------

    def _add(self, scope: str, texts: list[str]) -> tuple[list[str], int]:
        """Add ``texts`` to the scope's dataset and cognify it: cognee's data ids and the failed calls.

        When ``cognify`` fails, the texts are deleted again (cognee indexes chunks only in a cognify
        that completes, so they could not be found) and no id is returned; the failures are counted.
        """
        self._account.require(self.name, "ingest_session (cognee's cognify)")
        failures = self._loopback.failures
        ids = self._worker.call("add", verb="ingest_session", dataset=scope, texts=texts)
        try:
            self._worker.call("cognify", verb="ingest_session", dataset=scope)
        except CogneeError as error:
            logger.info("cognee cognify failed: %s", error)
            for data_id in ids:
                self._worker.call("delete", verb="ingest_session", dataset=scope, data_id=data_id)
            return [], max(1, self._loopback.failures - failures)
        return ids, self._loopback.failures - failures

    def _owned(self, memory_id: object, namespace: str) -> tuple[str, MemoryRecord]:
        check_memory_id(memory_id)
        scope = scope_id(check_namespace(namespace))
        record = self._records.get(scope, {}).get(memory_id)  # type: ignore[arg-type]
        if record is None:
            raise UnknownMemoryError(f"unknown memory id {memory_id!r} in namespace {namespace!r}")
        return scope, record

    def _data_id(self, scope: str, memory_id: str) -> str:
        return next(d for d, m in self._data[scope].items() if m == memory_id)

    # -- the four verbs --------------------------------------------------------------------------

    def store(
        self,
        items: Sequence[str],
        *,
        namespace: str = "default",
        metadata: Sequence[dict[str, Any]] | None = None,
    ) -> list[str]:
        texts = check_texts(items)
        scope = scope_id(check_namespace(namespace))
        if metadata is not None and len(metadata) != len(texts):
            raise InvalidInputError(f"metadata has {len(metadata)} entries for {len(texts)} texts")
        with self.timed("ingest"):
            ids = self._worker.call("add", verb="store", dataset=scope, texts=texts)
            self._worker.call("chunk", verb="store", dataset=scope, ids=ids)
        for i, (data_id, text) in enumerate(zip(ids, texts, strict=True)):
            meta = dict(metadata[i]) if metadata is not None else {}
            self._records.setdefault(scope, {})[data_id] = MemoryRecord(data_id, text, namespace, meta)
            self._data.setdefault(scope, {})[data_id] = data_id
        return ids

    def _search(self, query: str, *, k: int, namespace: str) -> list[Hit]:
        scope = scope_id(namespace)
        if not self._records.get(scope):
            return []
        hits = []
        rows = self._worker.call("search", verb="search", dataset=scope, query=query, k=k)
        for rank, row in enumerate(rows):
            memory_id = self._data[scope].get(row["document_id"], row["id"])
            record = self._records[scope].get(memory_id)
            meta = {**(record.metadata if record else {}), "chunk_id": row["id"]}
            hits.append(Hit(memory_id, row["text"], 1.0 / (1 + rank), meta))
        return hits

    def update(self, memory_id: str, text: str, *, namespace: str = "default") -> None:
        scope, record = self._owned(memory_id, namespace)
        (text,) = check_texts([text])
        with self.timed("ingest"):
            self._worker.call("delete", verb="update", dataset=scope, data_id=self._data_id(scope, memory_id))
            (data_id,) = self._worker.call("add", verb="update", dataset=scope, texts=[text])
            self._worker.call("chunk", verb="update", dataset=scope, ids=[data_id])
        self._data[scope] = {d: m for d, m in self._data[scope].items() if m != memory_id}
        self._data[scope][data_id] = memory_id
        self._records[scope][memory_id] = MemoryRecord(memory_id, text, namespace, record.metadata)

    def delete(self, memory_id: str, *, namespace: str = "default") -> None:
        scope, _ = self._owned(memory_id, namespace)
        self._worker.call("delete", verb="delete", dataset=scope, data_id=self._data_id(scope, memory_id))
        self._data[scope] = {d: m for d, m in self._data[scope].items() if m != memory_id}
        del self._records[scope][memory_id]

    # -- lifecycle -------------------------------------------------------------------------------

    def records(self, *, namespace: str = "default") -> list[MemoryRecord]:
        return list(self._records.get(scope_id(check_namespace(namespace)), {}).values())

    def namespaces(self) -> list[str]:
        return [r.namespace for records in self._records.values() for r in list(records.values())[:1]]

    def ingest_session(self, session: Session, *, namespace: str = "default") -> IngestReport:
        """Add the session as one text to the namespace's dataset and cognify it.

        Raises:
            InvalidInputError: ``session`` is not a Session, or a bad namespace.
            ConfigError: The adapter has no LLM.
        """
        check_session(session)
        scope = scope_id(check_namespace(namespace))
        self._account.require(self.name, "ingest_session")
        report = IngestReport(session.session_id)
        started = time.perf_counter()
        text = "\n".join(f"{t.role}: {t.content}" for t in session.turns if t.content.strip())
        if text:
            with self.timed("ingest"):
                ids, report.failures = self._add(scope, [text])
            for data_id in ids:
                meta = {"session_id": session.session_id}
                self._records.setdefault(scope, {})[data_id] = MemoryRecord(data_id, text, namespace, meta)
                self._data.setdefault(scope, {})[data_id] = data_id
            report.added = len(ids)
        report.wall_s = time.perf_counter() - started
        return report

    # -- persistence -----------------------------------------------------------------------------

    def _save_state(self, folder: Path) -> None:
        saved = [
            {"namespace": r.namespace, "id": r.id, "text": r.text, "metadata": r.metadata}
            for records in self._records.values()
            for r in records.values()
        ]
        (folder / _SAVED).write_text(json.dumps({"memories": saved}), encoding="utf-8")

    @classmethod
    def _load_state(cls, folder: Path, params: dict[str, Any], **kwargs: Any) -> CogneeMemory:
        keys = ("top_k", "max_tokens", "call_timeout_s", "context_tokens")
        settings = {key: params[key] for key in keys if key in params}
        system = cls(**{**settings, **accepted_resources(cls, kwargs)})
        if system.embedder.model_name != params["embedder"]:
            system.close()
            raise InvalidInputError(
                f"{folder} was built with embedder {params['embedder']!r}, not {system.embedder.model_name!r}"
            )
        by_scope: dict[str, list[dict[str, Any]]] = {}
        for memory in json.loads((folder / _SAVED).read_text(encoding="utf-8"))["memories"]:
            by_scope.setdefault(scope_id(memory["namespace"]), []).append(memory)
        for scope, memories in by_scope.items():  # one chunking pipeline per namespace, not per memory
            texts = [memory["text"] for memory in memories]
            data_ids = system._worker.call("add", verb="load", dataset=scope, texts=texts)
            system._worker.call("chunk", verb="load", dataset=scope, ids=data_ids)
            for memory, data_id in zip(memories, data_ids, strict=True):
                record = MemoryRecord(memory["id"], memory["text"], memory["namespace"], memory["metadata"])
                system._records.setdefault(scope, {})[memory["id"]] = record
                system._data.setdefault(scope, {})[data_id] = memory["id"]
        return system


def _stop(worker: _Worker, loopback: Loopback) -> None:
    worker.close()
    loopback.close()


def _default_model_dir() -> Path:
    from memsuite.memory_systems.embedder import default_model_path

    return default_model_path()
