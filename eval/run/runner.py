"""The one runner: systems x units of one benchmark, resumable, with progress and a typed run folder.

It never names a system or a benchmark: systems come from the registry and take shared resources by
signature (embedder, llm); benchmarks supply units and a protocol (eval/protocol.py).
"""

from __future__ import annotations

import logging
import time
from contextlib import ExitStack, contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from memsuite.eval.budget import check_budget
from memsuite.eval.definition import BenchmarkDefinition
from memsuite.eval.oracle.run import NOTE as ORACLE_NOTE
from memsuite.eval.oracle.run import bind_gold, is_oracle, mark_oracle, open_oracle, oracle_roles, served
from memsuite.eval.protocol import Row
from memsuite.eval.registry import check_judges, defining, definition, get_benchmark, seeded_options
from memsuite.eval.run.folder import (
    RunFolder,
    UnitRecord,
    base_header,
    check_resume,
    config_changes,
    header_config,
    resumed_header,
)
from memsuite.eval.run.preflight import check_endpoints
from memsuite.eval.run.provenance import check_code, code_changes, code_identity
from memsuite.eval.run.schema import RunConfig
from memsuite.eval.run.stopping import stop_on_signals
from memsuite.eval.run.units import run_units, say_resumed, unit_or_error
from memsuite.memory_systems.embedder import Embedder
from memsuite.memory_systems.errors import ConfigError, require
from memsuite.memory_systems.records import Usage
from memsuite.memory_systems.registry import get_system

logger = logging.getLogger(__name__)

CODE_ROOT = Path(__file__).resolve().parents[2]
EXECUTORS = ("threads", "ray")


def _seeded(config: RunConfig) -> RunConfig:
    """``config`` as run: the run's seed seeds generated data unless the options give their own (the
    header records it)."""
    options = seeded_options(config.benchmark, config.benchmark_options, config.seed)
    return config.model_copy(update={"benchmark_options": options})


def stale_reasons(config: RunConfig, out_dir: Path) -> list[str]:
    """Why ``out_dir`` cannot resume ``config`` as it is: one line per config key or code that changed
    since its rows were made. Empty for a folder that resumes cleanly, or holds no run yet."""
    folder = RunFolder(out_dir)
    if not folder.header_path.exists():
        return []
    previous = folder.header
    config = _seeded(config)
    reasons = [
        f"config {c['key']}: {c['old']!r} -> {c['new']!r}"
        for c in config_changes(previous.get("config"), header_config(config.to_dict()))
    ]
    code = code_identity({spec.key: spec.name for spec in config.systems}, CODE_ROOT)
    return reasons + code_changes(previous.get("code"), code)


@contextmanager
def _llm(spec: Any, cache_dir: Path | None):
    """A ready LLM client for ``spec`` (None -> None; "local" starts and stops the embedded server,
    "oracle" the gold-backed endpoint)."""
    if spec in (None, "none"):
        yield None
        return
    if is_oracle(spec):  # the gold-backed endpoint: started here, given the benchmark's gold once built
        with open_oracle(spec) as client:
            yield client
        return
    from memsuite.memory_systems.llm import open_llm  # the LLM layer is only needed when a config asks for it

    with open_llm(spec, cache_dir=cache_dir) as client:
        yield client


def run(
    config: RunConfig,
    *,
    out_dir: Path,
    cache_dir: Path | None = None,
    restart: bool = False,
    show_progress: bool = True,
    workers: int = 1,
    executor: str = "threads",
    ray_address: str | None = None,
    allow_config_change: bool = False,
    allow_code_change: bool = False,
) -> RunFolder:
    """Run every system of ``config`` over every unit of its benchmark; resume what is done.

    Args:
        config: The validated run config.
        out_dir: The run folder (created; resumed when it holds a run of the same config).
        cache_dir: Root of the embedding and LLM caches, or None.
        restart: Start over even if the folder holds finished units.
        show_progress: Show a progress bar (units done / total, ETA).
        workers: Units run concurrently; rows are the same as with one worker, order aside.
        executor: "threads" (this process) or "ray" (Ray tasks; needs the ``ray`` extra).
        ray_address: Address of an existing Ray cluster ("auto" for the local one); default: start
            a local Ray instance for this run.
        allow_config_change: Resume a folder made with a different resolved config (the header's
            ``resumes`` entry records the changed keys) instead of refusing.
        allow_code_change: Resume a folder whose rows were made by other code (memsuite's own, or a
            system's distribution, version or module source: the header's ``code``) instead of refusing.

    Returns:
        The run folder, with ``summary.json`` written. Its header's ``status`` is ``complete``,
        ``complete_with_errors`` (failed units, or failed answer/judge calls: ``failed_calls``) or
        ``stopped`` (every answer call of the first finished unit failed: ``stop_reason`` names the
        endpoint; the rest is left for a rerun once the endpoint works) or ``interrupted`` (SIGINT or
        SIGTERM: ``signal`` names it, ``units.done_after_stop`` counts the units done; a rerun resumes).

    Raises:
        RunInterrupted: A signal arrived before this session wrote its header (nothing was written).
        ConfigError: The folder holds a run of a different config (and neither ``restart`` nor
            ``allow_config_change``), or one made by other code (and not ``allow_code_change``); the
            message names the differing keys or code.
    """
    if executor not in EXECUTORS:
        raise ConfigError(f"unknown executor {executor!r}; choose one of {', '.join(EXECUTORS)}")
    config = _seeded(config)
    # The folder handed back reads its summary with its benchmark's layout.
    folder = RunFolder(out_dir, layout=definition(config.benchmark).scores_layout)
    if restart:
        folder.clear()
    # A resume keeps the first session's header (its rows were made with that code) and appends to it.
    previous = folder.header if folder.header_path.exists() and not restart else None
    changes = (
        check_resume(previous, config.to_dict(), out_dir, allow_config_change=allow_config_change)
        if previous is not None
        else []
    )
    code = code_identity({spec.key: spec.name for spec in config.systems}, CODE_ROOT)
    old_code = previous.get("code") if previous is not None else None
    code_diff = check_code(old_code, code, out_dir, allow=allow_code_change)

    # A signal while the clients start or the data is built stops here, before any folder is written;
    # once the header is written, the unit loop records it as the folder's status.
    with stop_on_signals():
        return _run_units(
            config,
            folder,
            previous,
            changes,
            cache_dir=cache_dir,
            show_progress=show_progress,
            workers=workers,
            executor=executor,
            ray_address=ray_address,
            code=(code, code_diff),
        )


def _run_units(
    config: RunConfig,
    folder: RunFolder,
    previous: dict[str, Any] | None,
    changes: list[dict[str, Any]],
    *,
    cache_dir: Path | None,
    show_progress: bool,
    workers: int,
    executor: str,
    ray_address: str | None,
    code: tuple[dict[str, Any], list[str]],
) -> RunFolder:
    """Build the benchmark and clients, then write the header and every unit not done yet through the
    unit loop (:func:`~memsuite.eval.run.units.run_units`).

    ``code`` is this session's :func:`code_identity` and its changes since the folder's header.
    """
    judges = check_judges(config.benchmark, config.judges)  # before building (or generating) data
    found = definition(config.benchmark)
    llm_judges = [name for name, judge in zip(config.judges, judges, strict=False) if judge.uses_llm]
    with ExitStack() as stack:
        clients = _open_clients(stack, config, cache_dir)
        check_endpoints(clients)  # a dead endpoint stops the run here: no data built, no folder touched
        check_budget(config.context_tokens, clients["answer"])
        benchmark = get_benchmark(config.benchmark, **config.benchmark_options)
        units = benchmark.units()
        bind_gold(
            clients, found, benchmark, lambda: defining("oracle_gold")
        )  # an oracle endpoint answers from this gold
        embedder = make_embedder(config, cache_dir)
        folder.prepare()
        done = folder.done_units()
        specs = {spec.key: spec for spec in config.systems}
        todo = [(spec.key, unit) for spec in config.systems for unit in units if (spec.key, unit) not in done]
        total = len(units) * len(config.systems)
        if previous is not None:
            say_resumed(folder.path, previous, total, len(todo))
        if llm_judges and config.judge_llm is None and clients["answer"] is not None:
            # An LLM grading its own answers is a weaker judge: allowed, but said and recorded.
            logger.warning(
                "judges %s use the answer LLM (no judge_llm in the config): a separate judge is better",
                ", ".join(llm_judges),
            )
        header = run_header(config, embedder, clients, uses_llm_judges=bool(llm_judges))
        oracle = oracle_roles(config)
        if oracle:
            header["oracle_llm"] = {"roles": oracle, "note": ORACLE_NOTE}
        describe = getattr(benchmark, "header", None)
        if callable(describe):  # optional: what the benchmark read (absent files, skipped records)
            header["benchmark"] = describe()
        header["units"] = {"total": total, "already_done": len(done)}
        header["code"] = code[0]
        if previous is not None:
            header = resumed_header(previous, header, changes)
            header["code"] = code[0]  # the next resume compares against this session's code
            if code[1]:
                header["resumes"][-1]["code_changes"] = code[1]

        def compute(key: str, unit: str) -> tuple[UnitRecord, list[Row]]:
            # Per-unit views of the shared clients: one endpoint and cache, usage kept per unit, so
            # concurrent units of one system never mix their accounting.
            views = {role: _view(client, f"{key}@{unit}") for role, client in clients.items()}
            resources = {"embedder": embedder, "llm": views["internal"]}
            record, rows = _compute_unit(benchmark, found, specs[key], unit, config, folder, resources, views)
            return record, [mark_oracle(row, oracle) for row in rows]

        def last_entries() -> None:
            # The device that ``auto`` resolved to, once a unit embedded.
            header["embedder"] = embedder.identity()
            if oracle:  # what the oracle answered this session, per role and prompt kind
                header["oracle_llm"]["served"] = served(clients)

        ray = executor == "ray"
        on_ray = _run_on_ray(todo, config, folder, cache_dir, clients, workers, ray_address) if ray else None
        return run_units(
            folder,
            header,
            todo,
            compute,
            benchmark=benchmark,
            workers=workers,
            show_progress=show_progress,
            desc=config.benchmark,
            label="ray" if ray else f"{workers} workers" if workers > 1 else "",
            finished=on_ray,
            stop_before_write=lambda: _endpoint_down(clients),
            stop_after_first=lambda record, rows: _dead_answer_endpoint(record, rows, clients["answer"]),
            before_close=last_entries,
        )


def make_embedder(config: RunConfig, cache_dir: Path | None) -> Embedder:
    """The run's shared embedder, as its config's ``embedder`` entry describes it."""
    spec = config.embedder
    return Embedder(
        spec.path,
        batch_size=spec.batch_size,
        device=spec.device,
        cache_dir=cache_dir / "embeddings" if cache_dir else None,
    )


def _open_clients(stack: ExitStack, config: RunConfig, cache_dir: Path | None) -> dict[str, Any]:
    """The run's LLM clients by role (answer, internal, judge); a role configured like the answer LLM,
    or not at all, shares the answer client (one endpoint, one cache and one ledger)."""
    answer = stack.enter_context(_llm(config.answer_llm, cache_dir))
    clients = {"answer": answer}
    for role, spec in (("internal", config.internal_llm), ("judge", config.judge_llm)):
        shared = spec in (None, config.answer_llm)
        clients[role] = answer if shared else stack.enter_context(_llm(spec, cache_dir))
    return clients


def run_header(
    config: RunConfig, embedder: Embedder, clients: dict[str, Any], *, uses_llm_judges: bool
) -> dict[str, Any]:
    """What a run's ``run.json`` records before any unit: config, code, packages, the embedder and the
    identity of each LLM, and whether any output is from the offline wiring-only model."""
    answer_llm, internal_llm, judge_llm = clients["answer"], clients["internal"], clients["judge"]
    header = base_header(config.to_dict(), CODE_ROOT, definition(config.benchmark).data)
    header["embedder"] = embedder.identity()
    # What every system was asked for and what it could hand over: k as configured (None: unset) and
    # as used, and the budget.
    header["retrieval"] = {"k": config.k, "depth": config.depth, "context_tokens": config.context_tokens}
    header["answer_llm"] = answer_llm.identity() if answer_llm is not None else None
    header["internal_llm"] = internal_llm.identity() if internal_llm is not None else None
    header["judge_llm"] = judge_llm.identity() if judge_llm is not None and uses_llm_judges else None
    header["judge_llm_is_answer_llm"] = uses_llm_judges and answer_llm is not None and judge_llm is answer_llm
    header["wiring_only"] = any(
        llm is not None and llm.identity().get("wiring_only")
        for llm in (answer_llm, internal_llm, judge_llm if uses_llm_judges else None)
    )
    return header


def _endpoint_down(clients: dict[str, Any]) -> str | None:
    """Why to stop, when an endpoint failed too many calls in a row (its unit's rows would only record
    that failure); None while every endpoint works."""
    for role, client in clients.items():
        reason = client.down() if client is not None else None
        if reason:
            return (
                f"{role}_llm is down: {reason}. The unit running then was not written; check the endpoint"
                " (or raise max_consecutive_failures), then rerun the same command to resume"
            )
    return None


def _dead_answer_endpoint(record: UnitRecord, rows: list[Row], answer_llm: Any) -> str | None:
    """Why to stop, when every answer call of a unit failed (an unreachable or misconfigured endpoint).

    Grinding through the rest of the dataset would only record the same failure for every question.
    """
    calls = sum(int(row.usage.get("answer_calls") or 0) for row in rows)
    failures = [str(row.usage["answer_failure"]) for row in rows if row.usage.get("answer_failure")]
    if not calls or len(failures) < calls:
        return None
    identity = answer_llm.identity() if answer_llm is not None else {}
    return (
        f"all {calls} answer calls of the first finished unit ({record.system} {record.unit_id}) failed, "
        f"e.g. {failures[0]!r}: check the answer LLM endpoint base_url={identity.get('base_url')} "
        f"model={identity.get('model')}; stopped after that unit (rerun to resume)"
    )


def _run_on_ray(todo, config, folder, cache_dir, clients, workers, ray_address):
    """The same units as Ray tasks; yields each finished unit as it completes (this process writes).

    Each task rebuilds the benchmark, embedder and LLM clients in its worker process (once per run
    and process) from plain data: the config, and the resolved endpoint of each LLM (an embedded
    server started here keeps serving the workers of a local cluster).
    """
    ray = require("ray", extra="ray", purpose="--executor ray")
    started_here = not ray.is_initialized()
    if started_here:
        options = {"address": ray_address} if ray_address else {"num_cpus": max(1, workers)}
        ray.init(include_dashboard=False, log_to_driver=False, ignore_reinit_error=True, **options)
    try:
        endpoints = {role: _endpoint(client) for role, client in clients.items()}
        # Roles served by the answer client itself (one client, one cache and ledger per worker).
        shared = [
            role
            for role in ("internal", "judge")
            if clients["answer"] is not None and clients[role] is clients["answer"]
        ]
        task = ray.remote(_ray_unit)
        specs = {spec.key: spec for spec in config.systems}
        pending = [
            task.remote(config, specs[key], unit, str(folder.path), cache_dir, endpoints, shared)
            for key, unit in todo
        ]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            yield ray.get(done[0])
    finally:
        if started_here:
            ray.shutdown()


def _endpoint(client: Any) -> tuple[Any, dict[str, Any]] | None:
    if client is None:
        return None
    return client.config, {k: v for k, v in client.identity().items() if k in ("server", "n_ctx")}


# Per worker process: what _ray_unit builds once per run (Ray reuses worker processes across tasks).
_RAY_WORKER_STATE: dict[str, tuple[Any, Embedder, dict[str, Any]]] = {}


def _ray_unit(config, spec, unit, out_dir, cache_dir, endpoints, shared) -> tuple[UnitRecord, list[Row]]:
    """One unit inside a Ray worker: the same :func:`_compute_unit` as the thread executor (a unit that
    raises is an error record here too)."""
    from memsuite.memory_systems.llm import LLMClient

    state = _RAY_WORKER_STATE.get(out_dir)
    if state is None:
        benchmark = get_benchmark(config.benchmark, **config.benchmark_options)
        embedder = make_embedder(config, Path(cache_dir) if cache_dir else None)
        cache_path = Path(cache_dir) / "llm" / "responses.sqlite" if cache_dir else None
        clients: dict[str, Any] = {}
        for role, endpoint in endpoints.items():
            if endpoint is not None and role not in shared:
                llm_config, extra = endpoint
                clients[role] = LLMClient(llm_config, cache_path=cache_path, identity_extra=extra)
        for role in shared:
            clients[role] = clients["answer"]
        state = _RAY_WORKER_STATE[out_dir] = (benchmark, embedder, clients)
    benchmark, embedder, clients = state

    def compute(key: str, unit: str) -> tuple[UnitRecord, list[Row]]:
        account = f"{key}@{unit}"
        views = {role: _view(clients.get(role), account) for role in ("answer", "internal", "judge")}
        resources = {"embedder": embedder, "llm": views["internal"]}
        found = definition(config.benchmark)
        record, rows = _compute_unit(
            benchmark, found, spec, unit, config, RunFolder(Path(out_dir)), resources, views
        )
        return record, [mark_oracle(row, oracle_roles(config)) for row in rows]

    return unit_or_error(spec.key, unit, compute)


def _view(client: Any, account: str) -> Any:
    return client.for_system(account) if client is not None else None


def _compute_unit(
    benchmark, found: BenchmarkDefinition, spec, unit, config, folder, resources, views
) -> tuple[UnitRecord, list[Row]]:
    """Run one (system, unit) of the benchmark ``found`` defines (the caller turns a failure into an
    error record: :func:`~memsuite.eval.run.units.unit_or_error`)."""
    started = time.perf_counter()
    ctx = found.context(
        k=config.depth,
        context_tokens=config.context_tokens,
        answer_llm=views["answer"],
        judges=config.judges,
        judge_llm=views.get("judge"),
        seed=config.seed,
        workdir=folder.work_dir(spec.key, unit),
        options=dict(config.benchmark_options),
    )
    if config.context_tokens is not None:  # a system with a limit of its own is given the budget too
        resources = {**resources, "context_tokens": config.context_tokens}
    system = get_system(spec.name, resources=resources, **spec.args)
    rows = [_label(row, spec.key) for row in benchmark.run_unit(system, unit, ctx)]
    usage = _unit_usage(system.usage(), _llm_usage(views.values()))
    record = UnitRecord(
        spec.key, unit, "done", rows=len(rows), wall_s=time.perf_counter() - started, usage=usage.to_dict()
    )
    return record, rows


def _llm_usage(views) -> Usage:
    """LLM use of one unit: the sum of its views' own accounts.

    Each view counts exactly the calls made through it (and through the views systems make from it),
    so two views of one client (answer and internal roles) never count a call twice, and units
    running at once never see each other's calls.
    """
    total, seen = Usage(), set()
    for view in views:
        if view is not None and id(view) not in seen:
            seen.add(id(view))
            total = total + view.usage()
    return total


def _unit_usage(system_usage: Usage, llm_usage: Usage) -> Usage:
    """The system's own counters with the LLM fields replaced by the unit's LLM accounts.

    A system may also report its LLM client's usage itself; the unit's accounts are the one source,
    so nothing is counted twice.
    """
    wall = dict(system_usage.wall_s)
    for phase in ("answer", "judge"):
        if llm_usage.wall_s.get(phase):
            wall[phase] = llm_usage.wall_s[phase]
    return replace(
        system_usage,
        llm_calls=llm_usage.llm_calls,
        prompt_tokens=llm_usage.prompt_tokens,
        completion_tokens=llm_usage.completion_tokens,
        llm_failures=llm_usage.llm_failures,
        cache_hits=llm_usage.cache_hits,
        wall_s=wall,
    )


def _label(row: Row, label: str) -> Row:
    if row.system == label:
        return row
    return Row(**{**row.to_dict(), "system": label})
