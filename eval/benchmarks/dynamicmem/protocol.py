"""The DynamicMem protocol: incremental ingest to each quarterly checkpoint, then one query per target.

Per user (one work unit), for each checkpoint C1..Cn in order (DynamicMem paper, arXiv 2606.22877; the
release's ``docs/protocols/tce_generation_and_adapter_contract.md``):

1. **Ingest** the events that became visible since the previous checkpoint, in order, so that the
   memory reflects exactly the events up to the checkpoint. Default (``ingest: store``, the
   release's RAG reference): one document per event, its raw JSON (:attr:`AppLog.memory_text`:
   id, time, app, API, request, response; never the gold fields), stored with ``system.store`` in
   batches under the user's namespace, with the event's ``app_log_id`` in the metadata. With
   ``ingest: session`` (for systems whose own processing works on conversations) each day's events
   become one :class:`~memsuite.memory_systems.records.Session` whose turns are the release's lossless
   dialogue wrapper: ``user`` = the raw event JSON, ``assistant`` = ``[ingested]``. ``finalize`` is
   called after each checkpoint's batch.
2. **Save** the store to ``<workdir>/C<i>`` (``system.save``), so that building and predicting can run
   separately (``memory_action``: ``build_then_predict``, ``build_only``, ``predict_from_prebuilt``,
   the release's three modes), and append a probe of the memory to ``<workdir>/snapshots.jsonl.gz``
   (:func:`probe_record`, for failure-stage attribution).
3. **Ask**: per State Completion key one retrieval (its ``retrieval_query``, ``system.search`` with
   ``top_k``) and, with an answer model, one answer prompt filling its ``answer_template``; per
   Personalized Service item (the first of each key, as the release consumes) one retrieval and one
   answer. Queries must not change memory: the memory's snapshot is compared before and after (when
   the system can list it) and a change fails the unit.
4. **Record** a :class:`~memsuite.eval.protocol.Row` per key and item (checkpoint, state key, category,
   retrieved event ids, gold evidence ids, prediction, field verdicts), and the predictions in
   the release's format (``snapshot_state``, ``evidence``, ``rq3_apply_answers``) to
   ``<workdir>/prediction_C<i>.json`` and, for all checkpoints, ``<workdir>/prediction.json``.

The answer call, its usage, the failed-call rule and the judges (``rule``, ``llm``: defined in
:mod:`.judges`) run in the shared step (:mod:`memsuite.eval.answer`). A failed answer
call is recorded in its row (``metadata.answer_failure``, ``usage.answer_failure``) and every judge's
verdict is ``correct: None`` with the failure kind: the row is left out of the scores, never scored 0. Without
an answer model the run is retrieval-only: rows carry the retrieved ids, from which the evidence
metrics are computed.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import json
import logging
import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from itertools import groupby
from pathlib import Path
from typing import Any

from memsuite.eval import answer as shared
from memsuite.eval.benchmarks.dynamicmem import scoring
from memsuite.eval.benchmarks.dynamicmem.judges import FieldsCase, service_fields, value_fields
from memsuite.eval.benchmarks.dynamicmem.loader import (
    load_user,
    parse_app_logs,
    parse_task_packs,
    user_folders,
)
from memsuite.eval.benchmarks.dynamicmem.prompts import (
    MEMORY_SEPARATOR,
    Answer,
    completion_prompt,
    messages_for,
    parse_completion,
    parse_service,
    service_prompt,
)
from memsuite.eval.benchmarks.dynamicmem.schema import (
    APP_LOG_FILE,
    TASK_PACK_FILE,
    AppLog,
    Checkpoint,
    ServiceItem,
    UserData,
    category_of,
)
from memsuite.eval.budget import hits_within
from memsuite.eval.protocol import JudgeScores, Row, RunContext, Scores
from memsuite.memory_systems.base import NO_MEMORY, MemorySystem
from memsuite.memory_systems.chunking import chunk_documents
from memsuite.memory_systems.errors import ConfigError
from memsuite.memory_systems.persist import atomic_write_text
from memsuite.memory_systems.records import Hit, Session, Turn
from memsuite.memory_systems.registry import accepted_resources

logger = logging.getLogger(__name__)

#: The release's RAG reference depth.
DEFAULT_TOP_K = 20
MEMORY_ACTIONS = ("build_then_predict", "build_only", "predict_from_prebuilt")
INGEST_MODES = ("store", "session")
#: The assistant turn of the release's dialogue wrapper (a literal acknowledgement, no content).
INGESTED_ACK = "[ingested]"
_ID_IN_TEXT = re.compile(r'"app_log_id":\s*"([^"]+)"')
#: A chunk's first line (:func:`memsuite.memory_systems.chunking.session_header`).
_SESSION_HEADER = re.compile(r"\[Session: [^\]]*\]")
_SNIPPET_CHARS = 200
#: Per-checkpoint memory probes in the unit's work folder (:func:`.diagnostics.probe_record`).
SNAPSHOT_FILE = "snapshots.jsonl.gz"
_CACHED_USERS = 4


def _ids_of(hit: Hit) -> list[str]:
    """The event ids behind a hit: its metadata's ``app_log_id``, else every id in its text."""
    metadata = hit.metadata if isinstance(hit.metadata, Mapping) else {}
    if metadata.get("app_log_id"):
        return [str(metadata["app_log_id"])]
    return _ID_IN_TEXT.findall(hit.text)


def _snippet(text: str) -> str:
    """A short evidence_content for a retrieved event: its request and response, compact."""
    try:
        event = json.loads(text)
        text = json.dumps(
            {"request": event.get("request"), "response": event.get("response")}, ensure_ascii=False
        )
    except (ValueError, AttributeError):
        pass
    return text if len(text) <= _SNIPPET_CHARS else text[: _SNIPPET_CHARS - 1] + "…"


def probe_record(index: int, checkpoint: str, snapshot: str) -> dict[str, Any]:
    """One checkpoint's memory probe (:mod:`.diagnostics` documents the fields and why the text is dropped
    when the memory holds raw events)."""
    ids = sorted(set(_ID_IN_TEXT.findall(snapshot)))
    return {
        "index": index,
        "checkpoint": checkpoint,
        "chars": len(snapshot),
        "app_log_ids": ids,
        "snapshot": _beside_events(snapshot) if ids else snapshot,
    }


def _beside_events(snapshot: str) -> str | None:
    """The text a memory holds beside raw events, each line once (None when there is none).

    A memory may hold both: LlamaIndex Memory keeps its latest messages (raw events here) in its
    short-term queue beside the facts its fact block extracted. Lines carrying an event id are the
    events; the day header and the acknowledgement turn are this protocol's own session text.
    """
    lines = (line.strip() for line in snapshot.splitlines())
    kept = [
        line
        for line in lines
        if line
        and not _ID_IN_TEXT.search(line)
        and not line.endswith(INGESTED_ACK)
        and not _SESSION_HEADER.fullmatch(line)
    ]
    return "\n".join(dict.fromkeys(kept)) or None


def _fingerprint(system: MemorySystem, namespace: str) -> str | None:
    """A hash of the memory's snapshot, or None when the system cannot list its memory."""
    try:
        return hashlib.sha256(system.snapshot(namespace=namespace).encode("utf-8")).hexdigest()
    except NotImplementedError:
        return None


class DynamicMemBenchmark:
    """DynamicMem as the runner sees it: units are users, rows are state keys and service items.

    Args:
        data: A folder of user folders (each with ``app_log_large.json`` and ``task_packs.json``, as
            released or written by ``memsuite generate dynamicmem``), or one user folder.
        users: Instead of ``data``: generate this many users in memory.
        months: Trajectory length of generated users (15 gives C1..C5).
        seed: Seed of generated users.
        activity: Event volume of generated users (1.0 is ~1,500-2,000 events per 15 months).
        top_k: Retrieval depth (default 20, the release's RAG default); None takes the run's ``k``.
        ingest: ``store`` (one document per event) or ``session`` (one dialogue session per day).
        batch_size: Events per ``store`` call.
        memory_action: ``build_then_predict``, ``build_only`` (ingest and save, ask nothing) or
            ``predict_from_prebuilt`` (load the saved stores and ask).
        prebuilt_dir: Where ``predict_from_prebuilt`` finds the stores: a folder holding
            ``<unit>/C<i>`` (it may contain ``{system}`` for the registry name); default the unit's
            work folder, i.e. rerun the build's run folder with ``--restart``.
        checkpoints: Ask only at these checkpoints (numbers or labels like ``C5``); memory is still
            built through all of them. Default: all.
        service: Ask the Personalized Service items too.
        verify_read_only: Compare the memory before and after each checkpoint's queries.
        snapshots: Record a probe of the memory after each checkpoint's ingest to the unit's work folder
            (``snapshots.jsonl.gz``, for failure-stage attribution: :mod:`.diagnostics`); not in
            ``predict_from_prebuilt``, which ingests nothing.

    Raises:
        ConfigError: Conflicting or invalid options.
    """

    def __init__(
        self,
        *,
        data: str | Path | None = None,
        users: int | None = None,
        months: int = 15,
        seed: int = 0,
        activity: float = 1.0,
        top_k: int | None = DEFAULT_TOP_K,
        ingest: str = "store",
        batch_size: int = 256,
        memory_action: str = "build_then_predict",
        prebuilt_dir: str | Path | None = None,
        checkpoints: list[int | str] | None = None,
        service: bool = True,
        verify_read_only: bool = True,
        snapshots: bool = True,
    ) -> None:
        if (data is None) == (users is None):
            raise ConfigError(
                "dynamicmem needs exactly one of benchmark_options.data (a folder of users) or "
                "benchmark_options.users (generate that many users)"
            )
        if users is not None and (isinstance(users, bool) or not isinstance(users, int) or users < 1):
            raise ConfigError(f"dynamicmem: 'users' must be a positive integer, got {users!r}")
        if isinstance(months, bool) or not isinstance(months, int) or months < 1:
            raise ConfigError(f"dynamicmem: 'months' must be a positive integer, got {months!r}")
        if not isinstance(activity, int | float) or not activity > 0:
            raise ConfigError(f"dynamicmem: 'activity' must be a positive number, got {activity!r}")
        if top_k is not None and (isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1):
            raise ConfigError(f"dynamicmem: 'top_k' must be a positive integer or null, got {top_k!r}")
        if ingest not in INGEST_MODES:
            raise ConfigError(f"dynamicmem: 'ingest' must be one of {INGEST_MODES}, got {ingest!r}")
        if memory_action not in MEMORY_ACTIONS:
            raise ConfigError(
                f"dynamicmem: 'memory_action' must be one of {MEMORY_ACTIONS}, got {memory_action!r}"
            )
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ConfigError(f"dynamicmem: 'batch_size' must be a positive integer, got {batch_size!r}")
        self.top_k, self.ingest, self.batch_size = top_k, ingest, batch_size
        self.memory_action, self.prebuilt_dir = memory_action, prebuilt_dir
        self.service, self.verify_read_only = bool(service), bool(verify_read_only)
        self.snapshots = bool(snapshots)
        self.months, self.seed, self.activity = months, int(seed), float(activity)
        self.asked = self._labels(checkpoints)
        # A few users stay in memory: with several systems or --workers the same user is asked for again.
        self._cache: dict[str, UserData] = {}
        self._cache_lock = threading.Lock()
        if data is not None:
            self._folders = {folder.name: folder for folder in user_folders(data)}
            self._units = list(self._folders)
        else:
            from memsuite.eval.benchmarks.dynamicmem.generator import user_id_of

            self._folders = {}
            self._units = [user_id_of(i) for i in range(1, users + 1)]

    @staticmethod
    def _labels(checkpoints: list[int | str] | None) -> set[str] | None:
        if checkpoints is None:
            return None
        if not isinstance(checkpoints, list) or not checkpoints:
            raise ConfigError(f"dynamicmem: 'checkpoints' must be a non-empty list, got {checkpoints!r}")
        labels = set()
        for c in checkpoints:
            label = f"C{c}" if isinstance(c, int) and not isinstance(c, bool) else str(c)
            if not re.fullmatch(r"C[1-9]\d*", label):
                raise ConfigError(f"dynamicmem: checkpoint {c!r} is not a number or a label like 'C5'")
            labels.add(label)
        return labels

    # -- the Benchmark protocol --------------------------------------------------------------------

    def units(self) -> list[str]:
        """User ids (folder names for data on disk), in order."""
        return list(self._units)

    def user(self, unit_id: str) -> UserData:
        """The validated data of one user (read from disk or generated)."""
        with self._cache_lock:
            if unit_id in self._cache:
                return self._cache[unit_id]
        if unit_id not in self._units:
            raise ConfigError(f"dynamicmem: unknown user {unit_id!r}")
        if self._folders:
            user = load_user(self._folders[unit_id])
        else:
            from memsuite.eval.benchmarks.dynamicmem.generator import generate_user, user_rng

            index = self._units.index(unit_id) + 1
            generated = generate_user(
                index, rng=user_rng(self.seed, index), months=self.months, activity=self.activity
            )
            where = Path(f"<generated seed={self.seed}>") / unit_id
            logs = parse_app_logs(generated.app_logs, path=where / APP_LOG_FILE, user_id=unit_id)
            user = parse_task_packs(
                generated.task_packs, path=where / TASK_PACK_FILE, user_id=unit_id, app_logs=logs
            )
        with self._cache_lock:
            self._cache[unit_id] = user
            while len(self._cache) > _CACHED_USERS:
                self._cache.pop(next(iter(self._cache)))
        return user

    def run_unit(self, system: MemorySystem, unit_id: str, ctx: RunContext) -> Iterator[Row]:
        """Drive ``system`` through one user's checkpoints; yield one row per key and service item."""
        user = self.user(unit_id)
        namespace = user.user_id
        k = self.top_k or ctx.k
        workdir = Path(ctx.workdir) if ctx.workdir is not None else None
        if workdir is None and self.memory_action != "build_then_predict":
            raise ConfigError(f"dynamicmem: memory_action {self.memory_action!r} needs a work folder")
        with contextlib.suppress(NotImplementedError):  # a fresh system from the registry is empty anyway
            system.reset(namespace=namespace)
        predictions: list[dict[str, Any]] = []
        visible, previous_gold = 0, None
        probes = None
        if self.snapshots and workdir is not None and self.memory_action != "predict_from_prebuilt":
            probes = workdir / SNAPSHOT_FILE
            probes.unlink(missing_ok=True)  # a rerun unit starts its probes afresh
        for index, checkpoint in enumerate(user.checkpoints):
            count = user.visible_count(checkpoint)
            if self.memory_action != "predict_from_prebuilt":
                self._ingest(system, user.app_logs[visible:count], namespace)
                visible = count
                if workdir is not None:
                    system.save(workdir / checkpoint.label)
                if probes is not None:
                    self._probe(system, namespace, index, checkpoint.label, probes)
            gold = {key: checkpoint.gold_value(key) for key in checkpoint.completion}
            if self.memory_action != "build_only" and (self.asked is None or checkpoint.label in self.asked):
                memory = system
                if self.memory_action == "predict_from_prebuilt":
                    memory = self._load_prebuilt(system, unit_id, checkpoint, workdir)
                before = _fingerprint(memory, namespace) if self.verify_read_only else None
                rows, prediction = self._ask(memory, user, checkpoint, previous_gold, namespace, k, ctx)
                if before is not None and _fingerprint(memory, namespace) != before:
                    raise RuntimeError(
                        f"{system.name} changed its memory while answering {checkpoint.label} of {unit_id}: "
                        "queries must not mutate memory (DynamicMem protocol)"
                    )
                predictions.append(prediction)
                if workdir is not None:
                    atomic_write_text(
                        workdir / f"prediction_{checkpoint.label}.json",
                        json.dumps(prediction, ensure_ascii=False, indent=1),
                    )
                yield from rows
            previous_gold = gold
        if workdir is not None and predictions:
            payload = {
                "user_id": user.user_id,
                "task_contract_version": user.task_contract_version,
                "research_frame_version": user.research_frame_version,
                "predictions": predictions,
            }
            atomic_write_text(workdir / "prediction.json", json.dumps(payload, ensure_ascii=False, indent=1))

    def summarize(self, rows: list[Row]) -> Scores:
        """Rule-judge scores (:func:`.scoring.summarize`), and the LLM judge's when rows have its verdicts."""
        judges = {"rule": JudgeScores(scoring.summarize(rows, "rule"))}
        if any("llm" in row.verdicts for row in rows):
            judges["llm"] = JudgeScores(scoring.summarize(rows, "llm"))
        return Scores(judges, layout=scoring.DYNAMICMEM_LAYOUT)

    # -- steps -------------------------------------------------------------------------------------

    def _ingest(self, system: MemorySystem, logs: tuple[AppLog, ...], namespace: str) -> None:
        if not logs:
            return
        if self.ingest == "store":
            for start in range(0, len(logs), self.batch_size):
                batch = logs[start : start + self.batch_size]
                metadata = [
                    {"app_log_id": log.app_log_id, "timestamp": log.timestamp, "app_name": log.app_name}
                    for log in batch
                ]
                with system.timed("ingest"):
                    system.store([log.memory_text for log in batch], namespace=namespace, metadata=metadata)
        else:
            for day, group in groupby(logs, key=lambda log: log.timestamp[:10]):
                day_logs = list(group)
                turns = tuple(
                    turn
                    for log in day_logs
                    for turn in (Turn("user", log.memory_text), Turn("assistant", INGESTED_ACK))
                )
                session = Session(
                    f"{namespace}:{day}:{day_logs[0].app_log_id}",
                    day_logs[0].timestamp,
                    turns,
                    {"app_log_ids": [log.app_log_id for log in day_logs]},
                )
                # Raw-text systems store the day as token-bounded chunks (the MEME reference's layout).
                session = replace(session, documents=chunk_documents(session))
                system.ingest_session(session, namespace=namespace)
        system.finalize(namespace=namespace)

    @staticmethod
    def _probe(system: MemorySystem, namespace: str, index: int, label: str, path: Path) -> None:
        """Append the checkpoint's memory probe (one gzip member per checkpoint, so nothing is rewritten)."""
        try:
            snapshot = system.snapshot(namespace=namespace)
        except NotImplementedError:
            return  # attribution then leaves encoded/maintained undecided
        with gzip.open(path, "at", encoding="utf-8") as fh:
            fh.write(json.dumps(probe_record(index, label, snapshot), ensure_ascii=False) + "\n")

    def _load_prebuilt(
        self, system: MemorySystem, unit_id: str, checkpoint: Checkpoint, workdir: Path | None
    ) -> MemorySystem:
        registry_name = getattr(system, "registry_name", system.name)
        if self.prebuilt_dir is None:
            assert workdir is not None  # checked in run_unit
            path = workdir / checkpoint.label
        else:
            path = Path(str(self.prebuilt_dir).format(system=registry_name)) / unit_id / checkpoint.label
        if not path.exists():
            raise ConfigError(
                f"dynamicmem: no prebuilt store at {path}; build it first with memory_action build_only"
            )
        # Shared resources (the embedder, an LLM) are not saved with a store: hand over the live ones.
        shared = {name: getattr(system, name) for name in ("embedder", "llm") if hasattr(system, name)}
        return type(system).load(path, **accepted_resources(type(system), shared))

    def _retrieve(
        self, system: MemorySystem, query: str, k: int, namespace: str, budget: int | None
    ) -> tuple[list[Hit], float, dict[str, Any]]:
        """The hits of one search, cut to the run's context budget in rank order
        (:func:`memsuite.eval.budget.hits_within`), its latency, and the row's record of the cut."""
        started = time.perf_counter()
        with system.timed("retrieve"):
            found = system.search(query, k=k, namespace=namespace)
        handed = hits_within(found, budget)
        latency = (time.perf_counter() - started) * 1000
        return list(handed.hits), latency, {"context_tokens": handed.tokens, "context_cut": handed.cut}

    def _ask(
        self,
        system: MemorySystem,
        user: UserData,
        cp: Checkpoint,
        previous_gold: dict[str, Any] | None,
        namespace: str,
        k: int,
        ctx: RunContext,
    ) -> tuple[list[Row], dict[str, Any]]:
        rows: list[Row] = []
        prediction: dict[str, Any] = {
            "checkpoint_id": cp.checkpoint_id,
            "metadata": {
                "checkpoint_timestamp": cp.timestamp,
                "checkpoint": cp.label,
                "system": system.name,
                "top_k": k,
                "mode": "answer" if ctx.answer_llm is not None else "retrieval_only",
            },
            "snapshot_state": {},
            "evidence": {},
            "rq3_apply_answers": {},
        }
        visible = user.visible_count(cp)
        flags = shared.memory_flags(system, namespace, k)  # queries do not change memory: count it once

        def change_of(key: str) -> str:
            if previous_gold is None or key not in previous_gold or previous_gold[key] is None:
                return "new"
            return "retained" if previous_gold[key] == cp.gold_value(key) else "updated"

        def base_metadata(key: str) -> dict[str, Any]:
            return {
                "checkpoint": cp.label,
                "checkpoint_id": cp.checkpoint_id,
                "checkpoint_timestamp": cp.timestamp,
                "visible_events": visible,
                "state_key": key,
                "category": category_of(key),
                "change": change_of(key),
                **flags,
            }

        for key in cp.completion_keys():
            task, gold = cp.completion[key], cp.gold_value(key)
            hits, latency, handed = self._retrieve(
                system, task.retrieval_query, k, namespace, ctx.context_tokens
            )
            blocks = [hit.text for hit in hits]
            retrieved = list(dict.fromkeys(i for hit in hits for i in _ids_of(hit)))
            metadata = {
                **base_metadata(key),
                "task": scoring.STATE_COMPLETION,
                "retrieval_query": task.retrieval_query,
                "retrieved_app_log_ids": retrieved,
                "gold_evidence_ids": list(cp.gold_evidence_ids(key)),
                # The evidence of the current value only, for failure-stage attribution (.diagnostics).
                "value_evidence_ids": list(user.value_evidence_ids(cp, key)),
                **handed,
            }
            usage: dict[str, Any] = {"latency_ms": latency, "k": k, "hits": len(hits)}
            answer_text, verdicts = None, {}
            if ctx.answer_llm is None:
                evidence = [
                    {"app_log_id": i, "evidence_content": _snippet(h.text)}
                    for h in hits
                    for i in _ids_of(h)[:1]
                ]
                prediction["snapshot_state"][key] = None
            else:
                case = FieldsCase(
                    lambda value, gold=gold: value_fields(gold, value),
                    {"task": "state completion", "state_key": key, "question": task.question_text},
                )
                parse = lambda data, key=key: parse_completion(data, key)  # noqa: E731
                prompt = completion_prompt(task, blocks)
                answer, answer_text, verdicts = self._answer_and_judge(
                    ctx, case, blocks, prompt, usage, metadata, parse
                )
                evidence = list(answer.evidence)
                prediction["snapshot_state"][key] = answer.value
            prediction["evidence"][key] = evidence
            rows.append(
                Row(
                    system.name,
                    ctx.benchmark,
                    user.user_id,
                    f"{cp.label}/{key}",
                    task.question_text,
                    gold,
                    MEMORY_SEPARATOR.join(blocks) if blocks else NO_MEMORY,
                    answer_text,
                    verdicts,
                    usage,
                    metadata,
                )
            )
        if not self.service:
            return rows, prediction
        for key in sorted(cp.service):
            if not cp.service[key] or cp.gold_value(key) is None:
                continue
            item = cp.service[key][0]  # the release consumes one item per key
            rows.append(
                self._ask_item(system, user, cp, item, base_metadata(key), namespace, k, ctx, prediction)
            )
        return rows, prediction

    def _ask_item(
        self,
        system: MemorySystem,
        user: UserData,
        cp: Checkpoint,
        item: ServiceItem,
        metadata: dict[str, Any],
        namespace: str,
        k: int,
        ctx: RunContext,
        prediction: dict[str, Any],
    ) -> Row:
        hits, latency, handed = self._retrieve(system, item.retrieval_query, k, namespace, ctx.context_tokens)
        blocks = [hit.text for hit in hits]
        metadata = {
            **metadata,
            "task": scoring.PERSONALIZED_SERVICE,
            "service_family": item.service_family,
            "qa_id": item.qa_id,
            "retrieval_query": item.retrieval_query,
            "retrieved_app_log_ids": list(dict.fromkeys(i for hit in hits for i in _ids_of(hit))),
            "gold_evidence_ids": list(item.gold_evidence_ids),
            "scoring_points": [p.to_dict() for p in item.answer_scoring_points],
            **handed,
        }
        usage: dict[str, Any] = {"latency_ms": latency, "k": k, "hits": len(hits)}
        answer_text, verdicts = None, {}
        answer_key = "output" if item.structured else "answer"
        if ctx.answer_llm is None:
            evidence = [
                {"app_log_id": i, "evidence_content": _snippet(h.text)} for h in hits for i in _ids_of(h)[:1]
            ]
            entry: dict[str, Any] = {"qa_id": item.qa_id, answer_key: None, "evidence": evidence}
        else:
            case = FieldsCase(
                lambda value: service_fields(
                    item.service_family, item.reference, item.answer_scoring_points, value
                ),
                {
                    "task": "personalized service",
                    "service_family": item.service_family,
                    "scenario": item.scenario,
                    "task_instruction": item.task_instruction,
                },
            )
            prompt = service_prompt(item, blocks)
            parse = lambda data: parse_service(data, item)  # noqa: E731
            answer, answer_text, verdicts = self._answer_and_judge(
                ctx, case, blocks, prompt, usage, metadata, parse
            )
            entry = {"qa_id": item.qa_id, answer_key: answer.value, "evidence": list(answer.evidence)}
        prediction["rq3_apply_answers"].setdefault(item.state_key, {"items": []})["items"].append(entry)
        body = f"[Scenario]\n{item.scenario}\n\n[Task Instruction]\n{item.task_instruction}"
        return Row(
            system.name,
            ctx.benchmark,
            user.user_id,
            f"{cp.label}/{item.state_key}/{item.qa_id}",
            body,
            item.reference,
            MEMORY_SEPARATOR.join(blocks) if blocks else NO_MEMORY,
            answer_text,
            verdicts,
            usage,
            metadata,
        )

    def _answer_and_judge(
        self,
        ctx: RunContext,
        case: FieldsCase,
        blocks: list[str],
        prompt: str,
        usage: dict[str, Any],
        metadata: dict[str, Any],
        parse: Callable[[Any], Answer],
    ) -> tuple[Answer, str | None, dict[str, Any]]:
        """The shared answer-and-judge step; (parsed answer, raw reply, verdicts), metadata updated."""
        answered, verdicts = shared.answer_and_judge(
            ctx,
            case=case,
            context=MEMORY_SEPARATOR.join(blocks) if blocks else NO_MEMORY,
            messages=messages_for(prompt),
            usage=usage,
            json=True,
            parse=lambda a: parse(a.data),
        )
        assert answered is not None  # only called with an answer model
        failure = {"kind": answered.failure, "message": answered.message} if answered.failed else None
        answer = Answer(None, ()) if answered.failed else answered.data
        metadata.update(
            prediction=answer.value, predicted_evidence_ids=answer.evidence_ids, answer_failure=failure
        )
        return answer, answered.text, verdicts
