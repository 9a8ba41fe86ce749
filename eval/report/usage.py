"""Usage and cost of every run, the same for all benchmarks: context tokens handed over per question,
LLM calls, tokens, USD cost under a :class:`~memsuite.memory_systems.llm.PriceTable`, ingest / query /
judge wall time; the columns every score table appends and the full usage table every section ends with."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from memsuite.eval.analysis.metrics import percentile
from memsuite.eval.protocol import Row
from memsuite.eval.report.context import CONTEXT_COLUMNS, CONTEXT_FORMATS, CONTEXT_NOTE, context_record
from memsuite.eval.report.layout import run_cell, run_column, series_name
from memsuite.eval.report.model import Cell, Figure, ReportOptions, Table
from memsuite.eval.report.runs import internal_llm_label, llm_label
from memsuite.eval.run.folder import RunFolder
from memsuite.memory_systems.llm import PriceTable


@dataclass(frozen=True)
class UsageSummary:
    """Resource use of one system in one run."""

    units_done: int
    units_failed: int
    llm_calls: int
    """Requests sent to LLM endpoints (retries included, cache hits excluded)."""
    cache_hits: int
    """LLM responses served from the on-disk cache."""
    llm_failures: int
    failed_answer_calls: int
    """Answer calls that failed for good: their rows are left out of every rate (``failed_calls``)."""
    failed_judge_calls: int
    """LLM-judge calls that failed for good: their verdicts are left out of that judge's rates."""
    prompt_tokens: int
    """Prompt tokens of every LLM response, cached ones included (the workload)."""
    completion_tokens: int
    embedded_texts: int
    """Texts the embedding model encoded (cache hits excluded)."""
    cost_usd: float | None
    """Prompt and completion tokens x the model's price; None when a model has no price."""
    ingest_s: float
    """Wall time in ingestion (the system's own work, including its internal LLM calls), seconds."""
    query_s: float
    """Wall time answering questions: retrieval plus the answer LLM, seconds."""
    judge_s: float
    """Wall time in LLM judges, seconds."""
    wall_s: float
    """Wall time of all finished units, seconds."""

    @property
    def tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    @property
    def cost_usd_per_unit(self) -> float | None:
        """Cost of one unit (MEME episode, WMB category, DynamicMem user)."""
        if self.cost_usd is None or not self.units_done:
            return None
        return self.cost_usd / self.units_done


def _model(identity: Any) -> str | None:
    return str(identity["model"]) if isinstance(identity, Mapping) and identity.get("model") else None


def _answer_tokens(row: Row, kind: str) -> int:
    """Answer-call tokens a row records: MEME ``answer_<kind>_tokens``, DynamicMem ``<kind>_tokens``."""
    value = row.usage.get(f"answer_{kind}_tokens", row.usage.get(f"{kind}_tokens"))
    return int(value or 0)


def run_cost(run: RunFolder, system: str, prices: PriceTable) -> float | None:
    """USD cost of one system's LLM tokens in a run, at the prices of the models in the run header.

    With one model (or the internal LLM unset) every token is priced at it. With two, the answer
    calls' tokens recorded in the rows (MEME: ``answer_prompt_tokens`` / ``answer_completion_tokens``;
    DynamicMem: ``prompt_tokens`` / ``completion_tokens``) are priced at the answer model and the
    rest at the internal model. Usage is not split by phase otherwise, so LLM-judge tokens count at
    the internal model's price then.

    Returns:
        USD, 0.0 without LLM tokens, None when a model involved has no price.
    """
    usage = (run.summary.get(system) or {}).get("usage") or {}
    prompt, completion = int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)
    if prompt + completion == 0:
        return 0.0
    answer, internal = _model(run.header.get("answer_llm")), _model(run.header.get("internal_llm"))
    if answer is None or internal is None or answer == internal:
        model = answer or internal
        return prices.cost(model, prompt, completion) if model else None
    answer_prompt = sum(_answer_tokens(r, "prompt") for r in run.rows(system))
    answer_completion = sum(_answer_tokens(r, "completion") for r in run.rows(system))
    parts = (
        prices.cost(answer, answer_prompt, answer_completion),
        prices.cost(internal, max(0, prompt - answer_prompt), max(0, completion - answer_completion)),
    )
    return None if None in parts else sum(parts)


def usage_summary(run: RunFolder, system: str, prices: PriceTable) -> UsageSummary:
    """Usage of one system in a run, from ``summary.json`` (and rows, for a two-model cost split)."""
    entry = run.summary.get(system) or {}
    usage, units = entry.get("usage") or {}, entry.get("units") or {}
    phases, calls = usage.get("wall_s") or {}, entry.get("failed_calls") or {}
    return UsageSummary(
        units_done=int(units.get("done") or 0),
        units_failed=int(units.get("error") or 0),
        llm_calls=int(usage.get("llm_calls") or 0),
        cache_hits=int(usage.get("cache_hits") or 0),
        llm_failures=int(usage.get("llm_failures") or 0),
        failed_answer_calls=int(calls.get("answer") or 0),
        failed_judge_calls=int(calls.get("judge") or 0),
        prompt_tokens=int(usage.get("prompt_tokens") or 0),
        completion_tokens=int(usage.get("completion_tokens") or 0),
        embedded_texts=int(usage.get("embedded_texts") or 0),
        cost_usd=run_cost(run, system, prices),
        ingest_s=float(phases.get("ingest") or 0.0),
        query_s=float(phases.get("retrieve") or 0.0) + float(phases.get("answer") or 0.0),
        judge_s=float(phases.get("judge") or 0.0),
        wall_s=float(entry.get("wall_s") or 0.0),
    )


#: Usage columns appended to every score table; ``cost_usd_per_unit`` is per episode / category / user.
USAGE_COLUMNS = ("llm_calls", "tokens", "cost_usd_per_unit", "ingest_s", "query_s")
#: Columns of the full usage table after the run and system columns.
USAGE_TABLE_COLUMNS = (
    "answer_llm",
    "internal_llm",
    "units_done",
    "units_failed",
    "llm_calls",
    "cache_hits",
    "llm_failures",
    "failed_answer_calls",
    "failed_judge_calls",
    "prompt_tokens",
    "completion_tokens",
    "cost_usd",
    "cost_usd_per_unit",
    "embedded_texts",
    "ingest_s",
    "query_s",
    "judge_s",
    "wall_s",
)
USAGE_NOTES = (
    "cost = prompt/completion tokens x the price (USD per 1M tokens) of the model named in the run "
    "header; tokens of cached responses count, so a rerun served from the cache shows the cost of the "
    "workload, not of that rerun.",
    "ingest_s: ingestion including a system's internal LLM calls; query_s: retrieval plus the answer "
    "LLM; judge_s: LLM judges; wall_s: all finished units (the first unit of a run also loads models).",
    "llm_failures: failed requests, retries included; failed_answer_calls / failed_judge_calls: calls that "
    "failed for good (summary.json failed_calls), whose rows are left out of the rates above.",
)


#: Latency percentiles of the usage table: (column prefix, quantile).
LATENCY_QUANTILES = (("p50", 0.5), ("p95", 0.95), ("p99", 0.99))
LATENCY_COLUMNS = tuple(
    f"{call} {name} ms" for call in ("retrieve", "answer") for name, _ in LATENCY_QUANTILES
)
LATENCY_NOTE = (
    "retrieve / answer p50 / p95 / p99 ms: percentiles over questions of the retrieval call (row usage "
    "retrieve_ms, or latency_ms where the benchmark times its search so) and of the answer LLM call "
    "(answer_wall_s; answers served from the LLM cache are left out, they time no call); a dash: no such "
    "call in the run."
)


def retrieve_ms(row: Row) -> float | None:
    """A row's retrieval latency: ``usage.retrieve_ms``, else ``usage.latency_ms`` (WMB, DynamicMem)."""
    value = row.usage.get("retrieve_ms", row.usage.get("latency_ms"))
    return None if value is None else float(value)


def answer_ms(row: Row) -> float | None:
    """A row's answer-call latency, None without a timed (uncached) answer call."""
    wall = row.usage.get("answer_wall_s")
    if wall is None or row.usage.get("answer_cached"):
        return None
    return 1000 * float(wall)


def latency_record(rows: Sequence[Row]) -> dict[str, Cell]:
    """p50 / p95 / p99 of the retrieval and answer latencies of a system's rows (:data:`LATENCY_COLUMNS`)."""
    out: dict[str, Cell] = {}
    for call, latency in (("retrieve", retrieve_ms), ("answer", answer_ms)):
        values = [v for v in (latency(row) for row in rows) if v is not None]
        for name, q in LATENCY_QUANTILES:
            out[f"{call} {name} ms"] = percentile(values, q)
    return out


def usage_record(usage: UsageSummary) -> dict[str, Cell]:
    """A usage summary as cells keyed by column name (every :data:`USAGE_TABLE_COLUMNS` but the LLMs)."""
    return {name: getattr(usage, name) for name in (*USAGE_COLUMNS, *USAGE_TABLE_COLUMNS[2:])}


def _unpriced_models(runs: Iterable[RunFolder], prices: PriceTable) -> list[str]:
    models = {_model(run.header.get(role)) for run in runs for role in ("answer_llm", "internal_llm")}
    return sorted(m for m in models if m and prices.price(m) is None)


def usage_table(name: str, title: str, runs: Sequence[RunFolder], options: ReportOptions) -> Table:
    """The full usage and cost table of a set of runs: one row per (run, system)."""
    prefix = run_column(runs, options)
    records = [
        {
            **run_cell(run, prefix),
            "system": system,
            "answer_llm": llm_label(run.header.get("answer_llm")),
            "internal_llm": internal_llm_label(run),
            **usage_record(usage_summary(run, system, options.prices)),
            **context_record(run.rows(system)),
            **latency_record(run.rows(system)),
        }
        for run in runs
        for system in run.systems
    ]
    notes = [*USAGE_NOTES, CONTEXT_NOTE, LATENCY_NOTE]
    unpriced = _unpriced_models(runs, options.prices)
    if unpriced:
        notes.append(f"no price for {', '.join(unpriced)}: cost shown as a dash; pass --prices FILE.")
    # Context beside the cost: how much each system handed over is what its rates were bought with.
    columns = (*prefix, "system", *CONTEXT_COLUMNS, *USAGE_TABLE_COLUMNS, *LATENCY_COLUMNS)
    formats = {**CONTEXT_FORMATS, **{c: ".1f" for c in LATENCY_COLUMNS}}
    return Table.from_records(name, title, columns, records, notes, formats)


def latency_figure(stem: str, benchmark: str, runs: Sequence[RunFolder]) -> Figure | None:
    """Retrieval latency per question, one box per (run, system): the plot every benchmark gets
    (WMB draws its own, with its penalty bands); None when no row records a latency."""
    from functools import partial

    from memsuite.eval.analysis import plots as plotting

    latencies = {
        series_name(run, system, runs): [ms for ms in map(retrieve_ms, run.rows(system)) if ms is not None]
        for run in runs
        for system in run.systems
    }
    if not any(latencies.values()):
        return None
    title = f"{benchmark} retrieval latency per question (ms; box 25-75 %, whiskers 5-95 %)"
    draw = partial(plotting.plot_latency_distribution, latencies, title=title, bands_ms=())
    return Figure(stem, title, draw)
