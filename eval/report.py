"""Reports from run folders: each benchmark's paper tables (Markdown and CSV) and plots (PNG).

A report reads only run folders (``run.json``, ``summary.json``, ``rows.jsonl``, ``units.jsonl``):
never a memory system, a model or a dataset, so a copied folder renders the same report. Tables are
plain data (:class:`Table`) rendered by :func:`table_markdown` and :func:`table_csv`; figures are
deferred calls into :mod:`eval.plots`.

Every report labels what produced its numbers: the runs table names the answer LLM, the internal
LLM, the judges and the data source (generated or official) of each run, each score table names its
judge, and published numbers sit beside ours with the paper's own setup in the notes.

Each benchmark contributes one renderer, registered by name with :func:`register_renderer`: a
function ``(runs, options) -> Section`` over the runs of that benchmark. A benchmark without one gets
:func:`render_generic` (its summary's numbers, flattened). ``options.sweep`` is set for an ablation
(:mod:`eval.ablation`): the runs are its variants in sweep order, and renderers add sweep curves.

Cost and usage go in every section: LLM calls, tokens, cost under a :class:`PriceTable` (tokens x
the price of the model named in the run header's ``answer_llm`` / ``internal_llm`` identity), and
ingest / query wall time from each system's usage in ``summary.json``.
"""

from __future__ import annotations

import csv
import importlib
import io
import logging
import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property, partial
from pathlib import Path
from typing import Any

from eval import plots as plotting
from eval.benchmarks.dynamicmem import diagnostics as dynamicmem_diagnostics
from eval.benchmarks.dynamicmem.schema import CATEGORIES as DYNAMICMEM_CATEGORIES
from eval.benchmarks.meme.scoring import PAPER_MAIN_TABLE, PAPER_ROW_OF_SYSTEM
from eval.benchmarks.meme.scoring import TASKS as MEME_TASKS
from eval.benchmarks.wmb.schema import QTYPES as WMB_QTYPES
from eval.diagnostics import OUTCOMES as STAGE_OUTCOMES
from eval.diagnostics import StageCell, attribute_rows, stage_table
from eval.metrics import percentile
from eval.protocol import Row
from eval.runlog import RunFolder, load_run
from memory_systems.errors import ConfigError
from memory_systems.llm import PriceTable

logger = logging.getLogger(__name__)

#: A table cell: text, a count, a measurement, or None (printed as a dash: not measured).
Cell = str | int | float | None
#: Printed where a number is undefined by construction (e.g. no evidence rule for a task), as
#: opposed to None, which means nothing was measured.
NA = "n/a"


# -- runs ----------------------------------------------------------------------------------------------


@dataclass
class RunInfo:
    """One run folder as a report sees it (rows and units are read on first use)."""

    path: Path
    """The run folder."""
    label: str
    """Name of the run in tables: the folder name, or an ablation's variant label."""
    header: dict[str, Any]
    """``run.json``."""
    summary: dict[str, Any]
    """``summary.json``: system -> {scores, usage, units, wall_s}."""
    display: str = ""
    """Name in a table's run column when it differs from the label (an ablation's swept value)."""

    @property
    def name(self) -> str:
        """The run's cell in a table's run column."""
        return self.display or self.label

    @property
    def config(self) -> dict[str, Any]:
        """The resolved run config stored in the header."""
        return self.header.get("config") or {}

    @property
    def benchmark(self) -> str:
        """Benchmark registry name."""
        return str(self.config.get("benchmark", "?"))

    @property
    def systems(self) -> list[str]:
        """System labels in config order (then any other system of the summary)."""
        configured = [s.get("label") or s.get("name") for s in self.config.get("systems") or []]
        ordered = [s for s in configured if s in self.summary]
        return ordered + sorted(set(self.summary) - set(ordered))

    def registry_name(self, system: str) -> str:
        """The registry name behind a system label (labels distinguish variants of one system)."""
        for spec in self.config.get("systems") or []:
            if (spec.get("label") or spec.get("name")) == system:
                return str(spec.get("name"))
        return system

    def scores(self, system: str) -> dict[str, Any]:
        """The benchmark's scores of one system (``summary[system]["scores"]``)."""
        return (self.summary.get(system) or {}).get("scores") or {}

    @cached_property
    def rows_by_system(self) -> dict[str, list[Row]]:
        """``rows.jsonl`` grouped by system."""
        grouped: dict[str, list[Row]] = defaultdict(list)
        for row in RunFolder(self.path).rows():
            grouped[row.system].append(row)
        return dict(grouped)

    def rows(self, system: str) -> list[Row]:
        """Rows of one system."""
        return self.rows_by_system.get(system, [])


def load_runs(paths: Sequence[Path | str], labels: Sequence[str] | None = None) -> list[RunInfo]:
    """Open run folders for a report.

    Args:
        paths: Run folders (each holding ``run.json`` and ``summary.json``).
        labels: Names of the runs in tables; default each folder's name (its path when two share one).

    Returns:
        The runs, in the given order.

    Raises:
        ConfigError: A path is not a run folder, or its run never finished (no ``summary.json``).
    """
    paths = [Path(p) for p in paths]
    if labels is None:
        names = [p.name for p in paths]
        labels = [p.name if names.count(p.name) == 1 else str(p) for p in paths]
    if len(labels) != len(paths):
        raise ConfigError(f"{len(labels)} labels for {len(paths)} run folders")
    runs = []
    for path, label in zip(paths, labels, strict=True):
        try:
            folder = load_run(path)
        except FileNotFoundError as exc:
            raise ConfigError(str(exc)) from None
        if not (folder.path / "summary.json").exists():
            raise ConfigError(
                f"{path} has no summary.json: the run has not finished (run it again to resume it)"
            )
        runs.append(RunInfo(folder.path, label, folder.header(), folder.summary()))
    return runs


def llm_label(identity: Mapping[str, Any] | None) -> str:
    """The model of an LLM identity from a run header ("none" when the run had no such LLM)."""
    if not identity:
        return "none"
    model = str(identity.get("model") or "?")
    return f"{model} (wiring only)" if identity.get("wiring_only") else model


def internal_llm_label(run: RunInfo) -> str:
    """The internal LLM, saying when it is the answer LLM's client (the config left it unset)."""
    if run.config.get("internal_llm") in (None, run.config.get("answer_llm")) and run.header.get(
        "answer_llm"
    ):
        return f"{llm_label(run.header['answer_llm'])} (= answer LLM)"
    return llm_label(run.header.get("internal_llm"))


#: Benchmark options that point at released data; their presence makes a run's data "official".
_DATA_OPTIONS = ("data", "data_dir", "questions_file", "turn_files", "root", "path")


def data_source(run: RunInfo) -> str:
    """Where a run's data came from: "generated: ..." or "official: ...", with the benchmark options.

    A benchmark that records its source in its scores (MEME: ``scores["source"]["kind"]``) decides the
    kind; otherwise data-path options mean official data and their absence generated data.
    """
    kind = None
    for system in run.systems:
        source = run.scores(system).get("source")
        if isinstance(source, Mapping) and source.get("kind"):
            kind = str(source["kind"])
            break
    options = run.config.get("benchmark_options") or {}
    if kind is None:
        kind = "official" if any(key in options for key in _DATA_OPTIONS) else "generated"
    details = "; ".join(f"{key}={_compact(value)}" for key, value in options.items())
    return f"{kind}: {details}" if details else f"{kind} (benchmark defaults)"


def judges_used(run: RunInfo) -> list[str]:
    """Judges whose verdicts a run's summary scores (falling back to the configured judges)."""
    found: list[str] = []
    for system in run.systems:
        scores = run.scores(system)
        for key in ("by_judge", "judges"):
            if isinstance(scores.get(key), Mapping):
                found += [j for j in scores[key] if j not in found]
    return found or list(run.config.get("judges") or [])


def _compact(value: Any) -> str:
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k}: {_compact(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_compact(v) for v in value) + "]"
    return str(value)


# -- report model --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Table:
    """A table as plain data; :func:`table_markdown` and :func:`table_csv` render it."""

    name: str
    """File stem of its CSV (unique within a report), e.g. ``meme_main_rule``."""
    title: str
    """Heading above it in the Markdown report."""
    columns: tuple[str, ...]
    """Column names (also the CSV header)."""
    rows: tuple[tuple[Cell, ...], ...]
    """One tuple of cells per row, aligned with ``columns``."""
    notes: tuple[str, ...] = ()
    """Lines printed under it: judge, setup of the published numbers, caveats."""
    formats: Mapping[str, str] = field(default_factory=dict)
    """Column -> format spec of its floats in Markdown (default by column name, else ``.2f``)."""

    @classmethod
    def from_records(
        cls,
        name: str,
        title: str,
        columns: Sequence[str],
        records: Iterable[Mapping[str, Any]],
        notes: Iterable[str] = (),
        formats: Mapping[str, str] | None = None,
    ) -> Table:
        """A table from one mapping per row, keyed by column (a column a mapping lacks is None)."""
        rows = tuple(tuple(record.get(column) for column in columns) for record in records)
        return cls(name, title, tuple(columns), rows, tuple(notes), dict(formats or {}))

    def column(self, name: str) -> list[Cell]:
        """The cells of one column, top to bottom."""
        index = self.columns.index(name)
        return [row[index] for row in self.rows]


@dataclass(frozen=True)
class Figure:
    """A plot to draw: ``draw(path)`` writes the PNG (a call into :mod:`eval.plots`)."""

    name: str
    """File stem of the PNG."""
    title: str
    """Caption in the Markdown report."""
    draw: Callable[[Path], Path]
    """Writes the figure to the given path and returns it."""


@dataclass
class Section:
    """What one benchmark contributes to a report."""

    title: str
    tables: list[Table] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Sweep:
    """The swept key of an ablation: one value and one label per run, in run order."""

    key: str
    """Dotted config key, e.g. ``k`` or ``benchmark_options.filler``."""
    values: tuple[Any, ...]
    """The value of each run."""
    labels: tuple[str, ...]
    """The variant label of each run (its folder name)."""

    @property
    def axis(self) -> tuple[Any, ...]:
        """X positions for curves: the values when all are numbers, else the labels."""
        numeric = all(isinstance(v, int | float) and not isinstance(v, bool) for v in self.values)
        return self.values if numeric else self.labels


@dataclass(frozen=True)
class ReportOptions:
    """Settings every renderer receives."""

    prices: PriceTable = field(default_factory=PriceTable)
    """Prices of LLM tokens, USD per 1M, by model name."""
    sweep: Sweep | None = None
    """Set when the runs are the variants of one ablation."""


@dataclass
class Report:
    """A whole report: the runs it reads and one section per benchmark."""

    title: str
    runs: list[RunInfo]
    sections: list[Section]
    command: str | None = None
    """The command that regenerates it, printed at the top when given."""


Renderer = Callable[[list[RunInfo], ReportOptions], Section]
_RENDERERS: dict[str, Renderer] = {}


def register_renderer(benchmark: str) -> Callable[[Renderer], Renderer]:
    """Decorator: the report renderer of ``benchmark`` (one per benchmark; a duplicate is an error).

    A renderer takes the runs of its benchmark and the :class:`ReportOptions`, and returns a
    :class:`Section` of tables and figures. It reads only the runs (summary, header, rows).
    """

    def decorate(renderer: Renderer) -> Renderer:
        existing = _RENDERERS.get(benchmark)
        if existing is not None and existing is not renderer:
            raise ConfigError(f"report renderer for {benchmark!r} is registered twice")
        _RENDERERS[benchmark] = renderer
        return renderer

    return decorate


def renderer_for(benchmark: str) -> Renderer:
    """The registered renderer of a benchmark, or :func:`render_generic`."""
    if benchmark not in _RENDERERS:
        from eval.registry import _BUILTIN_MODULES  # a built-in benchmark registers its renderer on import

        if benchmark in _BUILTIN_MODULES:
            importlib.import_module(_BUILTIN_MODULES[benchmark])
    return _RENDERERS.get(benchmark, render_generic)


# -- usage and cost ------------------------------------------------------------------------------------


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


def run_cost(run: RunInfo, system: str, prices: PriceTable) -> float | None:
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


def usage_summary(run: RunInfo, system: str, prices: PriceTable) -> UsageSummary:
    """Usage of one system in a run, from ``summary.json`` (and rows, for a two-model cost split)."""
    entry = run.summary.get(system) or {}
    usage, units = entry.get("usage") or {}, entry.get("units") or {}
    phases = usage.get("wall_s") or {}
    return UsageSummary(
        units_done=int(units.get("done") or 0),
        units_failed=int(units.get("error") or 0),
        llm_calls=int(usage.get("llm_calls") or 0),
        cache_hits=int(usage.get("cache_hits") or 0),
        llm_failures=int(usage.get("llm_failures") or 0),
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
)


def usage_record(usage: UsageSummary) -> dict[str, Cell]:
    """A usage summary as cells keyed by column name (every :data:`USAGE_TABLE_COLUMNS` but the LLMs)."""
    return {name: getattr(usage, name) for name in (*USAGE_COLUMNS, *USAGE_TABLE_COLUMNS[2:])}


def _unpriced_models(runs: Iterable[RunInfo], prices: PriceTable) -> list[str]:
    models = {_model(run.header.get(role)) for run in runs for role in ("answer_llm", "internal_llm")}
    return sorted(m for m in models if m and prices.price(m) is None)


def usage_table(name: str, title: str, runs: Sequence[RunInfo], options: ReportOptions) -> Table:
    """The full usage and cost table of a set of runs: one row per (run, system)."""
    prefix = _run_column(runs, options)
    records = [
        {
            **_head(run, prefix),
            "system": system,
            "answer_llm": llm_label(run.header.get("answer_llm")),
            "internal_llm": internal_llm_label(run),
            **usage_record(usage_summary(run, system, options.prices)),
        }
        for run in runs
        for system in run.systems
    ]
    notes = list(USAGE_NOTES)
    unpriced = _unpriced_models(runs, options.prices)
    if unpriced:
        notes.append(f"no price for {', '.join(unpriced)}: cost shown as a dash; pass --prices FILE.")
    return Table.from_records(name, title, (*prefix, "system", *USAGE_TABLE_COLUMNS), records, notes)


def _run_column(runs: Sequence[RunInfo], options: ReportOptions) -> tuple[str, ...]:
    """The leading column naming the run: the swept key for an ablation, "run" for several runs."""
    if options.sweep is not None:
        return (options.sweep.key.split(".")[-1],)
    return ("run",) if len(runs) > 1 else ()


def _head(run: RunInfo, prefix: tuple[str, ...]) -> dict[str, Cell]:
    """The run column's cell of a record (nothing when the table has no run column)."""
    return {prefix[0]: run.name} if prefix else {}


def _ordered_systems(runs: Sequence[RunInfo]) -> list[str]:
    systems: list[str] = []
    for run in runs:
        systems += [s for s in run.systems if s not in systems]
    return systems


def _series(run: RunInfo, system: str, runs: Sequence[RunInfo]) -> str:
    """A curve's or box's name: the system, prefixed by the run when a report has several."""
    return system if len(runs) == 1 else f"{run.label} / {system}"


def _has_number(series: Mapping[str, Sequence[Cell]]) -> bool:
    return any(isinstance(v, int | float) for values in series.values() for v in values)


# -- MEME ----------------------------------------------------------------------------------------------

#: Published setup of the MEME main table (DESIGN.md §5 MEME).
MEME_PAPER_SETUP = (
    "paper rows: MEME (arXiv 2605.12477) main table -- gpt-4.1-mini answers, GPT-4o judge, "
    "100 released episodes with 32k filler; memsuite maps bm25 -> BM25, dense -> text-emb-3-small, "
    "llm_extraction/mem0ai -> Mem0, graphiti -> Graphiti, md_flat -> MD-flat, karpathy_wiki -> Karpathy Wiki."
)
#: MEME paper cost per episode in USD, (ingest, inference) (DESIGN.md §5 MEME).
MEME_PAPER_COST_PER_EPISODE: dict[str, tuple[float, float]] = {
    "Mem0": (0.10, 0.01),
    "Graphiti": (0.55, 0.00),
    "MD-flat": (0.04, 0.01),
    "Karpathy Wiki": (1.17, 0.22),
}
#: MEME judges from the most to the least paper-like; tables come in this order.
MEME_JUDGE_ORDER = ("llm", "rule", "evidence")
MEME_JUDGE_NOTES = {
    "evidence": "judge: evidence -- the retrieved context holds what the question needs (the value(s); "
    "for Cas the new value and the upstream change, for Abs the stated dependency and the change, for "
    "Del the deletion request or no trace of the value; eval/benchmarks/meme/evidence.py); no answer "
    "LLM is involved, so this is an upper bound on answer accuracy and not comparable to the paper's "
    "numbers. n/a: rows of a run made before a task had an evidence rule.",
    "rule": "judge: rule -- memsuite's deterministic judge of the answer LLM's answers (DESIGN.md §5 MEME).",
    "llm": "judge: llm -- the rubric judge asked through the run's answer LLM (the paper used GPT-4o).",
}
MEME_TABLE_NOTES = (
    MEME_PAPER_SETUP,
    "rates are over after-questions; Cas, Abs and Del pass only when the before-question on the same "
    "entity passed (trivial-pass filter); Overall = mean of the six task rates; questions = "
    "after-questions scored.",
    "paper cost_usd_per_unit = the paper's cost per episode, ingest + inference: "
    + ", ".join(f"{k} ${a:.2f}/${b:.2f}" for k, (a, b) in MEME_PAPER_COST_PER_EPISODE.items())
    + ".",
)
#: MEME asks before-questions for these tasks only (DESIGN.md §5 MEME).
MEME_BEFORE_TASKS = ("ER", "Del", "Cas", "Abs")
MEME_FILTER_LABELS = ("real", "trivial", "knew_but_failed", "never_knew", "unfiltered")


def _meme_judges(runs: Sequence[RunInfo]) -> list[str]:
    present = {j for run in runs for s in run.systems for j in (run.scores(s).get("by_judge") or {})}
    return [j for j in MEME_JUDGE_ORDER if j in present] + sorted(present - set(MEME_JUDGE_ORDER))


def _meme_scores(run: RunInfo, system: str, judge: str) -> Mapping[str, Any] | None:
    return (run.scores(system).get("by_judge") or {}).get(judge)


def meme_undefined_tasks(rows: Sequence[Row], judge: str) -> set[str]:
    """Tasks whose after-questions all lack a verdict of ``judge`` (no rule applies to them).

    Their rate in :func:`~eval.benchmarks.meme.scoring.meme_scores` is an artifact (a missing verdict
    counts as a fail), so tables print them as n/a.
    """
    verdicts: dict[str, list[Any]] = defaultdict(list)
    for row in rows:
        if row.metadata.get("phase") == "after":
            verdict = row.verdicts.get(judge)
            correct = verdict.get("correct") if isinstance(verdict, dict) else None
            verdicts[row.metadata.get("task")].append(correct)
    return {task for task, values in verdicts.items() if values and all(v is None for v in values)}


def meme_task_cells(run: RunInfo, system: str, judge: str) -> dict[str, Cell]:
    """ER..Abs and Overall of one system under one judge, with n/a for undefined tasks."""
    scores = _meme_scores(run, system, judge) or {}
    undefined = meme_undefined_tasks(run.rows(system), judge)
    cells: dict[str, Cell] = {
        task: NA if task in undefined else (scores.get("tasks") or {}).get(task) for task in MEME_TASKS
    }
    cells["Overall"] = NA if undefined else scores.get("Overall")
    return cells


def _paper_row_name(run: RunInfo, system: str) -> str | None:
    return PAPER_ROW_OF_SYSTEM.get(run.registry_name(system)) or PAPER_ROW_OF_SYSTEM.get(system)


@register_renderer("meme")
def render_meme(runs: list[RunInfo], options: ReportOptions) -> Section:
    """MEME: the paper's main table per judge beside the published rows, filter diagnostics, plots."""
    section = Section("MEME")
    prefix = _run_column(runs, options)
    judges = _meme_judges(runs)
    systems = _ordered_systems(runs)
    main_columns = (*prefix, "system", "from", *MEME_TASKS, "Overall", "questions", *USAGE_COLUMNS)
    for judge in judges:
        records: list[dict[str, Cell]] = []
        for system in systems:
            paper_name = None
            for run in runs:
                scores = _meme_scores(run, system, judge)
                if scores is None:
                    continue
                paper_name = paper_name or _paper_row_name(run, system)
                records.append(
                    {
                        **_head(run, prefix),
                        "system": system,
                        "from": "memsuite",
                        **meme_task_cells(run, system, judge),
                        "questions": sum((scores.get("n") or {}).values()) or None,
                        **usage_record(usage_summary(run, system, options.prices)),
                    }
                )
            if paper_name in PAPER_MAIN_TABLE:
                cost = MEME_PAPER_COST_PER_EPISODE.get(paper_name)
                records.append(
                    {
                        **({prefix[0]: "paper"} if prefix else {}),
                        "system": paper_name,
                        "from": "paper",
                        **PAPER_MAIN_TABLE[paper_name],
                        "cost_usd_per_unit": sum(cost) if cost else None,
                    }
                )
        notes = (MEME_JUDGE_NOTES.get(judge, f"judge: {judge}"), *MEME_TABLE_NOTES)
        title = f"MEME main table -- judge: {judge}"
        section.tables.append(Table.from_records(f"meme_main_{judge}", title, main_columns, records, notes))
    section.tables += [_meme_filter_table(runs, systems, judge, prefix) for judge in judges]
    agreement = _meme_agreement_table(runs, systems, prefix)
    if agreement is not None:
        section.tables.append(agreement)
    stages = _meme_stage_table(runs, systems, prefix)
    if stages is not None:
        section.tables.append(stages)
    section.tables.append(usage_table("meme_usage", "MEME usage and cost", runs, options))
    if judges:
        section.figures += _meme_figures(runs, systems, judges, options)
    if stages is not None and options.sweep is None:  # an ablation's variants would give one figure each
        section.figures += _stage_figures(runs, stages, prefix, "MEME", MEME_TASKS, "task")
    return section


MEME_STAGE_NOTES = (
    "Failure-stage attribution (eval/diagnostics.py), after-questions: share of each system's questions "
    "per task whose first failing stage is encoded (the value never reached memory after its session), "
    "maintained (the snapshot at question time lacks the current state: new value, deletion, history, "
    "stated dependency or uncertainty), retrieved (the context handed to the answer LLM lacks it), or "
    "answered (the judge failed the answer); none = no stage failed.",
    "answer_judge: the verdict behind 'answered' (llm, else rule); 'none' = the run had no answer LLM, so "
    "'answered' is undecided and 'none' means the question passed up to retrieval.",
)


def _meme_stage_cells(run: RunInfo, systems: Sequence[str]) -> list[StageCell]:
    rows = [row for system in systems for row in run.rows(system)]
    return stage_table(attribute_rows(rows, run.path))


def _meme_stage_table(runs, systems, prefix) -> Table | None:
    records = []
    for run in runs:
        for cell in _meme_stage_cells(run, systems):
            records.append(
                {
                    **_head(run, prefix),
                    "system": cell.system,
                    "task": cell.task,
                    "n": cell.n,
                    **cell.shares,
                    "answer_judge": cell.answer_judge or "none",
                }
            )
    if not records:
        return None
    columns = (*prefix, "system", "task", "n", *STAGE_OUTCOMES, "answer_judge")
    return Table.from_records(
        "meme_failure_stages", "MEME failure stages (after-questions)", columns, records, MEME_STAGE_NOTES
    )


def _stage_figures(runs, table: Table, prefix, benchmark: str, tasks: Sequence[str], column: str):
    """One stacked-bar figure per run, from a stage table's rows (``column``: its task or category)."""
    figures = []
    stem_base = f"{_slug(benchmark.lower())}_failure_stages"
    for run in runs:
        shares: dict[str, dict[str, dict[str, float]]] = defaultdict(dict)
        judges = set()
        for row in table.rows:
            record = dict(zip(table.columns, row, strict=True))
            if prefix and record.get(prefix[0]) != run.name:
                continue
            shares[str(record["system"])][str(record[column])] = {o: record[o] for o in STAGE_OUTCOMES}
            judges.add(record["answer_judge"])
        if not shares:
            continue
        stem = stem_base if len(runs) == 1 else f"{stem_base}_{_slug(run.label)}"
        answered = "/".join(sorted(judges)) if judges != {"none"} else "no answer LLM (up to retrieval)"
        title = f"{benchmark} failure stages -- {run.label}, answered by: {answered}"
        draw = partial(plotting.plot_failure_stages, dict(shares), tasks, STAGE_OUTCOMES, title=title)
        figures.append(Figure(stem, title, draw))
    return figures


def _meme_filter_table(runs, systems, judge, prefix) -> Table:
    records = []
    for system in systems:
        for run in runs:
            scores = _meme_scores(run, system, judge)
            if scores is None:
                continue
            before, counts = scores.get("before") or {}, scores.get("filter") or {}
            records.append(
                {
                    **_head(run, prefix),
                    "system": system,
                    **{f"before_{t}": before.get(t) for t in MEME_BEFORE_TASKS},
                    **{label: counts.get(label, 0) for label in MEME_FILTER_LABELS},
                    "judge_failures": scores.get("judge_failures"),
                }
            )
    columns = (*prefix, "system", *(f"before_{t}" for t in MEME_BEFORE_TASKS), *MEME_FILTER_LABELS)
    note = (
        "before_*: pass rate of the before-questions (asked for ER, Del, Cas, Abs only). Filter labels "
        "count Cas/Abs/Del after-answers: real = before and after pass; trivial = after passes without "
        "the before-question; knew_but_failed; never_knew; unfiltered = no before-question on that entity."
    )
    return Table.from_records(
        f"meme_filter_{judge}",
        f"MEME before-questions and trivial-pass filter -- judge: {judge}",
        (*columns, "judge_failures"),
        records,
        (note,),
    )


def _meme_agreement_table(runs, systems, prefix) -> Table | None:
    records = []
    for system in systems:
        for run in runs:
            agreement = run.scores(system).get("agreement_rule_llm")
            if isinstance(agreement, Mapping):
                records.append(
                    {
                        **_head(run, prefix),
                        "system": system,
                        **agreement,
                        "rule_only_true": agreement.get("a_only_true"),
                        "llm_only_true": agreement.get("b_only_true"),
                    }
                )
    if not records:
        return None
    return Table.from_records(
        "meme_judge_agreement",
        "MEME rule judge vs LLM judge",
        (*prefix, "system", "n", "agreement", "kappa", "rule_only_true", "llm_only_true", "excluded"),
        records,
        ("kappa: Cohen's kappa (a dash when undefined: one judge constant on the sample).",),
    )


def _meme_figures(runs, systems, judges, options: ReportOptions) -> list[Figure]:
    axis = (*MEME_TASKS, "Overall")
    if options.sweep is None:
        figures = []
        for run in runs:
            # Each run's bars use its own most paper-like judge (runs of one report may differ).
            judge = (_meme_judges([run]) or judges)[0]
            scores = {s: meme_task_cells(run, s, judge) for s in run.systems}
            # Published bars only beside answer judges: evidence is not what the paper measured.
            reference = {}
            if judge != "evidence":
                for system in run.systems:
                    name = _paper_row_name(run, system)
                    if name in PAPER_MAIN_TABLE:
                        reference[f"{name} (paper)"] = PAPER_MAIN_TABLE[name]
            stem = "meme_tasks" if len(runs) == 1 else f"meme_tasks_{_slug(run.label)}"
            answers = llm_label(run.header.get("answer_llm"))
            title = f"MEME per task -- {run.label}, judge {judge}, answers {answers}"
            draw = partial(plotting.plot_task_bars, scores, axis, title=title, reference=reference)
            figures.append(Figure(stem, title, draw))
        return figures
    judge, sweep = judges[0], options.sweep
    cells = {(run.label, s): meme_task_cells(run, s, judge) for run in runs for s in run.systems}

    def series(task: str) -> dict[str, list[Cell]]:
        return {s: [cells.get((run.label, s), {}).get(task) for run in runs] for s in systems}

    panels = {task: series(task) for task in axis if _has_number(series(task))}
    if "Overall" not in panels and panels:
        # Overall is n/a under the evidence judge: show the mean of the tasks that are defined.
        defined = list(panels)
        panels[f"mean of {' '.join(defined)}"] = {
            s: [_mean_of(cells.get((run.label, s), {}), defined) for run in runs] for s in systems
        }
    title = f"MEME vs {sweep.key} -- judge {judge}"
    draw = partial(plotting.plot_sweep_curves, sweep.axis, panels, title=title, xlabel=sweep.key)
    return [Figure(f"meme_sweep_{_slug(sweep.key.split('.')[-1])}", title, draw)]


def _mean_of(cells: Mapping[str, Cell], keys: Sequence[str]) -> float | None:
    values = [cells[k] for k in keys if isinstance(cells.get(k), int | float)]
    return sum(values) / len(values) if values else None


# -- WMB-100K ------------------------------------------------------------------------------------------

WMB_NOTES = (
    "published numbers: none -- the WMB-100K v2.1 README (wontopos/WMB-100K @ 436cba8) lists "
    "'No results yet', so there is no reference row.",
    "Part B / Score are the README's S1 headline (1,000 S1 questions x 0.1); the reference result file "
    "(scripts/score.py) counts S1-S7 -- see the result-fields table. Scores are not clamped.",
)
WMB_JUDGE_NOTES = {
    "rule": "judge: rule -- memsuite's deterministic coverage judge (a lexical lower-bound proxy, not an "
    "official WMB-100K mode).",
    "llm": "judge: llm -- the reference judge prompt asked through the run's answer LLM (README: quick mode "
    "GPT-4o-mini, official mode a 3-LLM majority).",
}
#: The README's results table, then S1 counts and the S1-S7 variant (Part B in points of 100).
WMB_RESULT_COLUMNS = (
    "Part B (/100)",
    "FM Penalty",
    "Speed Penalty",
    "Score (/100)",
    "Grade",
    "p50 ms",
    "p95 ms",
    "Judge",
    "S1 correct",
    "S1 total",
    "Part B S1-S7",
    "Score S1-S7",
)
#: The reference result file's fields (scripts/score.py ``result``), flattened.
WMB_RESULT_FIELDS = (
    "part_b.correct",
    "part_b.total",
    "part_b.score",
    "fm.probes",
    "fm.false_positives",
    "fm.penalty",
    "speed.p50_ms",
    "speed.p95_ms",
    "speed.penalty",
    "total",
)


def _wmb_result_record(s: Mapping[str, Any], judge_name: str) -> dict[str, Cell]:
    """One row of the README's results table (S1 headline), with the S1 counts and the S1-S7 variant."""
    return {
        "Part B (/100)": s["part_b"]["score"],
        "FM Penalty": s["fm"]["penalty"],
        "Speed Penalty": s["speed"]["penalty"],
        "Score (/100)": s["total"],
        "Grade": s["grade"],
        "p50 ms": s["speed"]["p50_ms"],
        "p95 ms": s["speed"]["p95_ms"],
        "Judge": judge_name,
        "S1 correct": s["part_b"]["correct"],
        "S1 total": s["part_b"]["total"],
        "Part B S1-S7": s["part_b_s1_s7"]["score"],
        "Score S1-S7": s["total_s1_s7"],
    }


def _wmb_judges(runs: Sequence[RunInfo]) -> list[str]:
    present = {j for run in runs for s in run.systems for j in (run.scores(s).get("judges") or {})}
    return [j for j in ("llm", "rule") if j in present] + sorted(present - {"llm", "rule"})


def _wmb_scores(run: RunInfo, system: str, judge: str) -> Mapping[str, Any] | None:
    scores = (run.scores(system).get("judges") or {}).get(judge)
    return scores if isinstance(scores, Mapping) else None


@register_renderer("wmb")
def render_wmb(runs: list[RunInfo], options: ReportOptions) -> Section:
    """WMB-100K: the README's results layout per judge, per-qtype accuracy, the result-file fields."""
    section = Section("WMB-100K")
    prefix = _run_column(runs, options)
    systems = _ordered_systems(runs)
    judges = _wmb_judges(runs)
    for judge in judges:
        results, accuracy = [], []
        for system in systems:
            for run in runs:
                s = _wmb_scores(run, system, judge)
                if s is None:
                    continue
                head = {**_head(run, prefix), "system": system}
                judge_name = judge if judge == "rule" else f"llm ({llm_label(run.header.get('answer_llm'))})"
                usage = usage_record(usage_summary(run, system, options.prices))
                results.append({**head, **_wmb_result_record(s, judge_name), **usage})
                qtypes, retrieval = s.get("qtype_accuracy") or {}, s.get("retrieval") or {}
                accuracy.append(
                    {
                        **head,
                        **{q: (qtypes.get(q) or {}).get("accuracy_pct") for q in WMB_QTYPES},
                        "gold turn retrieved %": retrieval.get("rate_pct"),
                        "questions with gold turns": retrieval.get("questions_with_gold"),
                    }
                )
        section.tables.append(
            Table.from_records(
                f"wmb_results_{judge}",
                f"WMB-100K results -- judge: {judge}",
                (*prefix, "system", *WMB_RESULT_COLUMNS, *USAGE_COLUMNS),
                results,
                (WMB_JUDGE_NOTES.get(judge, f"judge: {judge}"), *WMB_NOTES),
                formats={c: ".1f" for c in ("Part B (/100)", "Score (/100)", "Part B S1-S7", "Score S1-S7")},
            )
        )
        section.tables.append(
            Table.from_records(
                f"wmb_qtypes_{judge}",
                f"WMB-100K accuracy by question type (%) -- judge: {judge}",
                (*prefix, "system", *WMB_QTYPES, "gold turn retrieved %", "questions with gold turns"),
                accuracy,
                (
                    "FalseMemory: share of probes that returned nothing. 'gold turn retrieved': a returned "
                    "memory sits on a line carrying a gold turn id (memsuite's judge-free check).",
                ),
                formats={q: ".1f" for q in (*WMB_QTYPES, "gold turn retrieved %")},
            )
        )
    section.tables.append(_wmb_result_fields(runs, systems, prefix))
    section.tables.append(usage_table("wmb_usage", "WMB-100K usage and cost", runs, options))
    section.figures += _wmb_figures(runs, systems, judges, options)
    return section


def _dotted(mapping: Mapping[str, Any], path: str) -> Any:
    """``mapping["part_b"]["score"]`` for ``"part_b.score"`` (None where a key is missing)."""
    value: Any = mapping
    for key in path.split("."):
        value = value.get(key) if isinstance(value, Mapping) else None
    return value


def _wmb_result_fields(runs, systems, prefix) -> Table:
    records = []
    for system in systems:
        for run in runs:
            result = run.scores(system).get("result_json")
            if isinstance(result, Mapping):
                fields = {f: _dotted(result, f) for f in ("system_name", "scoring_mode", *WMB_RESULT_FIELDS)}
                records.append({**_head(run, prefix), **fields})
    return Table.from_records(
        "wmb_result_fields",
        "WMB-100K reference result file fields (scripts/score.py; Part B over S1-S7)",
        (*prefix, "system_name", "scoring_mode", *WMB_RESULT_FIELDS),
        records,
        ("Values as the reference result JSON rounds them (one decimal).",),
        formats={c: ".1f" for c in ("part_b.score", "fm.penalty", "speed.penalty", "total")},
    )


def _wmb_figures(runs, systems, judges, options: ReportOptions) -> list[Figure]:
    latencies = {
        (run.label, system): [float(r.usage.get("latency_ms") or 0.0) for r in run.rows(system)]
        for run in runs
        for system in run.systems
    }
    figures = []
    if any(latencies.values()):
        title = "WMB-100K search latency per question (penalty bands dashed)"
        named = {_series(run, s, runs): latencies[(run.label, s)] for run in runs for s in run.systems}
        draw = partial(plotting.plot_latency_distribution, named, title=title)
        figures.append(Figure("wmb_latency", title, draw))
    if options.sweep is not None and judges:
        judge, sweep = judges[0], options.sweep

        def points(run: RunInfo, system: str) -> dict[str, Cell]:
            s = _wmb_scores(run, system, judge)
            if s is None:
                return {}
            # Unrounded median: the result file's whole-ms p50 is 0 for any in-memory index.
            return {
                "Score (/100), S1": s["total"],
                "Part B S1-S7 (/100)": s["part_b_s1_s7"]["score"],
                "median search latency, ms": percentile(latencies[(run.label, system)], 0.5),
            }

        values = {(run.label, system): points(run, system) for run in runs for system in systems}
        names = ("Score (/100), S1", "Part B S1-S7 (/100)", "median search latency, ms")
        panels = {
            name: {system: [values[(run.label, system)].get(name) for run in runs] for system in systems}
            for name in names
        }
        title = f"WMB-100K vs {sweep.key} -- judge {judge}"
        draw = partial(
            plotting.plot_sweep_curves,
            sweep.axis,
            panels,
            title=title,
            xlabel=sweep.key,
            ylabel="value",
            unit_range=False,
        )
        figures.append(Figure(f"wmb_sweep_{_slug(sweep.key.split('.')[-1])}", title, draw))
    return figures


# -- DynamicMem ----------------------------------------------------------------------------------------

#: Headline DynamicMem metrics (keys of the summary's ``curves``) and their names in tables.
DYNAMICMEM_METRICS = {
    "state_completion": "State Completion",
    "personalized_service": "Personalized Service",
    "evidence_f1": "Evidence F1 (retrieved)",
}
DYNAMICMEM_SPLITS = ("retained", "updated", "new")
DYNAMICMEM_NOTES = (
    "a score is 0.8 core + 0.2 detail/2 per field; State Completion = mean over fields, Personalized "
    "Service = mean over items (an identity-gate failure zeroes its item); Evidence F1 = retrieved "
    "events vs gold evidence ids; per checkpoint, averaged within a user, then over users. A dash: "
    "nothing scored (State Completion and Personalized Service need an answer LLM).",
    "published numbers: none in DESIGN.md §5 for DynamicMem (arXiv 2606.22877), so no reference row.",
)


def dynamicmem_by_judge(scores: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """Judge -> DynamicMem summary (``checkpoints``, ``curves``, splits) from a system's scores.

    Reads the protocol's layout -- the rule judge's summary at the top level and the LLM judge's
    under ``llm_judge`` -- and also summaries nested under ``by_judge`` / ``judges``.
    """
    found: dict[str, Mapping[str, Any]] = {}
    if "curves" in scores:
        found[str(scores.get("judge") or "rule")] = scores
    for key, value in scores.items():
        if isinstance(value, Mapping) and "curves" in value:
            found[str(value.get("judge") or key)] = value
    for key in ("by_judge", "judges"):
        nested = scores.get(key)
        if isinstance(nested, Mapping):
            found.update({j: s for j, s in nested.items() if isinstance(s, Mapping) and "curves" in s})
    return found


def _checkpoint_key(label: str) -> tuple[int, str]:
    return (int(label[1:]), "") if label[1:].isdigit() else (10**9, label)


def _dm_curve(summary: Mapping[str, Any], checkpoints: Sequence[str], metric: str, split: str | None = None):
    """One metric per checkpoint of ``checkpoints`` (None where the summary has no value)."""
    source = summary.get(split) if split else summary.get("curves")
    values = dict(zip(summary.get("checkpoints") or [], (source or {}).get(metric) or [], strict=False))
    return [values.get(c) for c in checkpoints]


@register_renderer("dynamicmem")
def render_dynamicmem(runs: list[RunInfo], options: ReportOptions) -> Section:
    """DynamicMem: C1..Cn curves of State Completion and Personalized Service, retention vs update."""
    section = Section("DynamicMem")
    prefix = _run_column(runs, options)
    summaries = {
        (run.label, system, judge): summary
        for run in runs
        for system in run.systems
        for judge, summary in dynamicmem_by_judge(run.scores(system)).items()
    }
    judges = list(dict.fromkeys(key[2] for key in summaries))
    judge = next((j for j in ("llm", "rule") if j in judges), judges[0] if judges else None)
    usage = usage_table("dynamicmem_usage", "DynamicMem usage and cost", runs, options)
    if judge is None:
        section.notes.append("No DynamicMem curves in these runs' summaries.")
        section.tables.append(usage)
        return section
    picked = {(label, system): s for (label, system, j), s in summaries.items() if j == judge}
    checkpoints = sorted(
        {c for s in picked.values() for c in s.get("checkpoints") or []}, key=_checkpoint_key
    )
    records, split_records = [], []
    for system in _ordered_systems(runs):
        for run in runs:
            summary = picked.get((run.label, system))
            if summary is None:
                continue
            head = {**_head(run, prefix), "system": system}
            for metric, name in DYNAMICMEM_METRICS.items():
                curve = dict(zip(checkpoints, _dm_curve(summary, checkpoints, metric), strict=True))
                records.append(
                    {**head, "metric": name, **curve, "mean": (summary.get("overall") or {}).get(metric)}
                )
            for split in DYNAMICMEM_SPLITS:
                for metric in DYNAMICMEM_METRICS:
                    values = _dm_curve(summary, checkpoints, metric, split)
                    if any(v is not None for v in values):
                        split_records.append(
                            {
                                **head,
                                "keys": split,
                                "metric": DYNAMICMEM_METRICS[metric],
                                **dict(zip(checkpoints, values, strict=True)),
                            }
                        )
    section.tables.append(
        Table.from_records(
            "dynamicmem_checkpoints",
            f"DynamicMem per checkpoint -- judge: {judge}",
            (*prefix, "system", "metric", *checkpoints, "mean"),
            records,
            (f"judge: {judge}.", *DYNAMICMEM_NOTES),
        )
    )
    section.tables.append(
        Table.from_records(
            "dynamicmem_retention",
            f"DynamicMem retention vs update -- judge: {judge}",
            (*prefix, "system", "keys", "metric", *checkpoints),
            split_records,
            (
                "keys: retained = gold value unchanged since the previous checkpoint, updated = changed, "
                "new = not asked before.",
            ),
        )
    )
    stages = _dynamicmem_stage_table(runs, prefix)
    if stages is not None:
        section.tables.append(stages)
    section.tables.append(usage)
    section.figures += _dynamicmem_figures(runs, picked, judge, checkpoints, options)
    if stages is not None and options.sweep is None:  # an ablation's variants would give one figure each
        section.figures += _stage_figures(
            runs, stages, prefix, "DynamicMem", DYNAMICMEM_CATEGORIES, "category"
        )
    return section


DYNAMICMEM_STAGE_NOTES = (
    "Failure-stage attribution (eval/benchmarks/dynamicmem/diagnostics.py), State Completion keys over "
    "all checkpoints: share of each system's (checkpoint, state key) rows per state category whose first "
    "failing stage is encoded (no memory probe up to the checkpoint held the current value), maintained "
    "(the probe at the checkpoint lacks it), retrieved (no gold evidence event of the current value among "
    "the retrieved events), or answered (a field's core verdict failed); none = no stage failed.",
    "Holding the value: a memory or context that carries event ids (raw events, e.g. bm25, dense) holds "
    "it when one of the current value's gold evidence events is there; one without ids (LLM memories) "
    "when the rule judge accepts every field of the gold value from its text.",
    "answer_judge: the verdict behind 'answered' (llm, else rule); 'none' = the run had no answer model, "
    "so 'answered' is undecided and 'none' means the key passed up to retrieval.",
)


def _dynamicmem_stage_table(runs, prefix) -> Table | None:
    records = []
    for run in runs:
        rows = [row for system in run.systems for row in run.rows(system)]
        attributions = dynamicmem_diagnostics.attribute_rows(rows, run.path)
        for cell in dynamicmem_diagnostics.stage_table(attributions):
            records.append(
                {
                    **_head(run, prefix),
                    "system": cell.system,
                    "category": cell.task,
                    "n": cell.n,
                    **cell.shares,
                    "answer_judge": cell.answer_judge or "none",
                }
            )
    if not records:
        return None
    columns = (*prefix, "system", "category", "n", *STAGE_OUTCOMES, "answer_judge")
    return Table.from_records(
        "dynamicmem_failure_stages",
        "DynamicMem failure stages (State Completion keys)",
        columns,
        records,
        DYNAMICMEM_STAGE_NOTES,
    )


def _dynamicmem_figures(runs, picked, judge, checkpoints, options) -> list[Figure]:
    def series(metric: str, split: str | None = None) -> dict[str, list[Cell]]:
        out = {}
        for run in runs:
            for system in run.systems:
                if (run.label, system) in picked:
                    name = _series(run, system, runs) + (f" {split}" if split else "")
                    out[name] = _dm_curve(picked[(run.label, system)], checkpoints, metric, split)
        return out

    panels = {name: series(m) for m, name in DYNAMICMEM_METRICS.items() if _has_number(series(m))}
    # Retention vs update on the first headline metric that has values (State Completion normally).
    for metric, name in DYNAMICMEM_METRICS.items():
        split_series = {**series(metric, "retained"), **series(metric, "updated")}
        if _has_number(split_series):
            panels[f"retained vs updated: {name}"] = split_series
            break
    if not panels:
        return []
    title = f"DynamicMem C1..C{len(checkpoints)} -- judge {judge}"
    draw = partial(plotting.plot_checkpoint_curves, checkpoints, panels, title=title)
    figures = [Figure("dynamicmem_checkpoints", title, draw)]
    if options.sweep is not None:
        sweep, systems = options.sweep, _ordered_systems(runs)
        sweep_panels = {
            name: {
                system: [
                    (picked[(run.label, system)].get("overall") or {}).get(metric)
                    if (run.label, system) in picked
                    else None
                    for run in runs
                ]
                for system in systems
            }
            for metric, name in DYNAMICMEM_METRICS.items()
        }
        sweep_title = f"DynamicMem (mean over checkpoints) vs {sweep.key}"
        draw = partial(
            plotting.plot_sweep_curves, sweep.axis, sweep_panels, title=sweep_title, xlabel=sweep.key
        )
        figures.append(Figure(f"dynamicmem_sweep_{_slug(sweep.key.split('.')[-1])}", sweep_title, draw))
    return figures


# -- any other benchmark -------------------------------------------------------------------------------


def _numeric_leaves(value: Any, prefix: str = "", depth: int = 3) -> dict[str, float]:
    if isinstance(value, bool):
        return {}
    if isinstance(value, int | float):
        return {prefix or "value": value}
    if isinstance(value, Mapping) and depth > 0:
        out: dict[str, float] = {}
        for key, item in value.items():
            out.update(_numeric_leaves(item, f"{prefix}.{key}" if prefix else str(key), depth - 1))
        return out
    return {}


def render_generic(runs: list[RunInfo], options: ReportOptions) -> Section:
    """A benchmark without a renderer: the numbers of its summary scores, flattened, one row per system.

    Register a renderer (:func:`register_renderer`) to get the benchmark's own table layout and plots.
    """
    benchmark = runs[0].benchmark if runs else "?"
    prefix = _run_column(runs, options)
    records = [
        {**_head(run, prefix), "system": s, **_numeric_leaves(run.scores(s))}
        for run in runs
        for s in run.systems
    ]
    columns = list(dict.fromkeys(c for r in records for c in r if c not in (*prefix, "system")))
    note = f"no report renderer is registered for {benchmark!r}: every number of its summary is shown."
    section = Section(benchmark)
    section.tables.append(
        Table.from_records(
            f"{_slug(benchmark)}_scores",
            f"{benchmark} scores",
            (*prefix, "system", *columns),
            records,
            (note,),
        )
    )
    section.tables.append(
        usage_table(f"{_slug(benchmark)}_usage", f"{benchmark} usage and cost", runs, options)
    )
    return section


# -- building ------------------------------------------------------------------------------------------


def runs_table(runs: Sequence[RunInfo]) -> Table:
    """Who produced what: one row per run with its LLMs, judges, data source and code revision."""
    records = [
        {
            "run": run.label,
            "benchmark": run.benchmark,
            "status": run.header.get("status"),
            "data": data_source(run),
            "answer_llm": llm_label(run.header.get("answer_llm")),
            "internal_llm": internal_llm_label(run),
            "judges": ", ".join(judges_used(run)),
            "k": run.config.get("k"),
            "embedder": (run.header.get("embedder") or {}).get("model"),
            "systems": ", ".join(run.systems),
            "units": (run.header.get("units") or {}).get("total"),
            "git_revision": run.header.get("git_revision"),
            "started_at": run.header.get("started_at"),
        }
        for run in runs
    ]
    return Table.from_records("runs", "Runs", tuple(records[0]) if records else ("run",), records)


def build_report(
    runs: Sequence[RunInfo],
    *,
    prices: PriceTable | None = None,
    sweep: Sweep | None = None,
    title: str | None = None,
    command: str | None = None,
) -> Report:
    """Tables and figures of a set of runs: one section per benchmark, in the order runs name them.

    Args:
        runs: Loaded runs (:func:`load_runs`).
        prices: Price table for costs; default the built-in one.
        sweep: The ablation these runs are the variants of (their order must match its values).
        title: Report title; default names the runs.
        command: The command that regenerates the report, printed in it.

    Returns:
        The report (nothing is written; see :func:`write_report`).

    Raises:
        ConfigError: No runs, or a sweep whose length differs from the runs'.
    """
    runs = list(runs)
    if not runs:
        raise ConfigError("a report needs at least one run folder")
    if sweep is not None and len(sweep.values) != len(runs):
        raise ConfigError(f"sweep over {sweep.key} has {len(sweep.values)} values for {len(runs)} runs")
    options = ReportOptions(prices=prices or PriceTable(), sweep=sweep)
    if sweep is not None:
        # The run column of an ablation shows the swept value itself (k = 3, filler = 32k) when it
        # is a plain value; a mapping (an LLM endpoint) shows the variant label instead.
        shown = [
            str(v) if isinstance(v, str | int | float) else label
            for v, label in zip(sweep.values, sweep.labels, strict=True)
        ]
        if len(set(shown)) == len(shown):
            runs = [replace(run, display=name) for run, name in zip(runs, shown, strict=True)]
    by_benchmark: dict[str, list[RunInfo]] = {}
    for run in runs:
        by_benchmark.setdefault(run.benchmark, []).append(run)
    sections = []
    for benchmark, group in by_benchmark.items():
        # A sweep belongs to one benchmark; with several, curves would pair unrelated runs.
        group_options = options if len(by_benchmark) == 1 else ReportOptions(prices=options.prices)
        sections.append(renderer_for(benchmark)(group, group_options))
    title = title or "memsuite report: " + ", ".join(run.label for run in runs)
    return Report(title, runs, sections, command)


# -- rendering -----------------------------------------------------------------------------------------


def _float_format(column: str, table: Table) -> str:
    if column in table.formats:
        return table.formats[column]
    if "usd" in column:
        return ".4f"
    if column.endswith("_ms") or column.endswith(" ms"):
        return ".0f"
    return ".2f"


def format_cell(value: Cell, spec: str = ".2f") -> str:
    """A cell as Markdown text: None -> "–", floats with ``spec``, ints with thousands separators."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return format(value, spec)
    return str(value).replace("|", "\\|").replace("\n", " ")


def table_markdown(table: Table) -> str:
    """A GitHub-flavoured Markdown table, numbers right-aligned, followed by its notes."""
    numeric = [
        any(isinstance(row[i], int | float) and not isinstance(row[i], bool) for row in table.rows)
        for i in range(len(table.columns))
    ]
    lines = [
        "| " + " | ".join(format_cell(c) for c in table.columns) + " |",
        "|" + "|".join("---:" if is_num else "---" for is_num in numeric) + "|",
    ]
    for row in table.rows:
        cells = [format_cell(v, _float_format(c, table)) for c, v in zip(table.columns, row, strict=True)]
        lines.append("| " + " | ".join(cells) + " |")
    if not table.rows:
        lines.append("| " + " | ".join("" for _ in table.columns) + " |")
    text = "\n".join(lines)
    if table.notes:
        text += "\n\n" + "\n".join(f"- {note}" for note in table.notes)
    return text


def table_csv(table: Table) -> str:
    """The table as CSV: full-precision numbers (6 significant digits), empty cells for None."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(table.columns)
    for row in table.rows:
        writer.writerow(["" if v is None else format(v, ".6g") if isinstance(v, float) else v for v in row])
    return out.getvalue()


def report_markdown(report: Report, figures: Mapping[str, str] | None = None) -> str:
    """The report as one Markdown document.

    Args:
        report: The report.
        figures: Figure name -> PNG file name (relative to the document) of the figures drawn;
            figures not listed are left out.
    """
    figures = figures or {}
    parts = [f"# {report.title}"]
    if report.command:
        parts.append(f"Regenerate with `{report.command}`.")
    runs = runs_table(report.runs)
    parts.append(f"## {runs.title}\n\n{table_markdown(runs)}")
    warnings = []
    if any(run.header.get("wiring_only") for run in report.runs):
        warnings.append(
            "Runs marked *wiring only* used the embedded 135M model: they prove the pipeline end to "
            "end, not answer quality; quality numbers need a capable endpoint."
        )
    unfinished = [run.label for run in report.runs if run.header.get("status") != "complete"]
    if unfinished:
        warnings.append(f"Not complete (failed units or interrupted): {', '.join(unfinished)}.")
    if warnings:
        parts.append("\n".join(f"> {w}" for w in warnings))
    for section in report.sections:
        parts.append(f"## {section.title}")
        parts += [note for note in section.notes]
        for table in section.tables:
            parts.append(f"### {table.title}\n\n{table_markdown(table)}")
        for figure in section.figures:
            if figure.name in figures:
                parts.append(f"![{figure.title}]({figures[figure.name]})")
    return "\n\n".join(parts) + "\n"


def write_report(report: Report, out_dir: Path | str, *, plots: bool = True) -> list[Path]:
    """Write ``report.md``, one CSV per table and (unless ``plots`` is False) one PNG per figure.

    Args:
        report: The report.
        out_dir: Folder to write into (created).
        plots: Draw the figures.

    Returns:
        The files written, ``report.md`` first.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    tables = [runs_table(report.runs)] + [t for s in report.sections for t in s.tables]
    for table in tables:
        path = out_dir / f"{table.name}.csv"
        path.write_text(table_csv(table), encoding="utf-8")
        written.append(path)
    drawn: dict[str, str] = {}
    if plots:
        for section in report.sections:
            for figure in section.figures:
                path = figure.draw(out_dir / f"{figure.name}.png")
                drawn[figure.name] = path.name
                written.append(path)
    markdown = out_dir / "report.md"
    markdown.write_text(report_markdown(report, drawn), encoding="utf-8")
    return [markdown, *written]


def _slug(text: str) -> str:
    """A file-name-safe form of a label."""
    return "".join(c if c.isalnum() or c in "-._" else "_" for c in str(text)).strip("_") or "x"
