"""Run folders as a report reads them: :class:`RunInfo`, :func:`load_runs`, and the labels every
report prints for a run (its LLMs, judges and data source)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from memsuite.eval.protocol import Row
from memsuite.eval.report.summary import Summary, SystemSummary
from memsuite.eval.run.folder import RunFolder, load_run
from memsuite.memory_systems.errors import ConfigError


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

    @cached_property
    def typed_summary(self) -> Summary:
        """``summary.json`` as typed data."""
        return Summary.from_json(self.summary)

    def system_summary(self, system: str) -> SystemSummary:
        """One system's entry of ``summary.json`` (empty for a system the run did not score)."""
        return self.typed_summary.system(system)

    def scores(self, system: str) -> Mapping[str, Any]:
        """The benchmark's scores of one system (``summary[system]["scores"]``)."""
        return self.system_summary(system).scores

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
    if identity.get("oracle"):
        return f"{model} (oracle: replies from gold; rows are ceilings)"
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


def data_name(record: Mapping[str, Any]) -> str | None:
    """A run header's ``data`` record by name, never a machine's path where a name exists: the catalogue
    entry with its revision and sha256, a development copy by its path under ``$MEMSUITE_SHARED_DATA``,
    else the user's path."""
    digest = f" (sha256 {str(record['sha256'])[:12]})" if record.get("sha256") else ""
    if record.get("catalogue"):
        part = f"/{record['file']}" if record.get("file") else ""
        return f"{record['catalogue']}{part}@{str(record.get('revision', ''))[:12]}{digest}"
    if record.get("shared_dev"):
        return f"dev copy ${record.get('variable', 'MEMSUITE_SHARED_DATA')}/{record['shared_dev']}{digest}"
    if record.get("path"):
        return f"{record['path']}{digest}"
    return None


def data_source(run: RunInfo) -> str:
    """Where a run's data came from: "generated: ..." or "official: ...", with the benchmark options.

    The run header's ``data`` record names real data (catalogue entry, development copy, or a user's
    file with its hash). Otherwise a benchmark that records its source in its scores (MEME, LoCoMo:
    ``scores["source"]["kind"]``) decides the kind, and the ``path`` it records is named when no option
    gave one; otherwise data-path options mean official data and their absence generated data.
    """
    record = run.header.get("data")
    named = data_name(record) if isinstance(record, Mapping) else None
    kind, path = None, None
    for system in run.systems:
        source = run.scores(system).get("source")
        if isinstance(source, Mapping) and source.get("kind"):
            kind, path = str(source["kind"]), source.get("path")
            break
    options = run.config.get("benchmark_options") or {}
    if kind is None:
        kind = "official" if named or any(key in options for key in _DATA_OPTIONS) else "generated"
    details = "; ".join(f"{key}={_compact(value)}" for key, value in options.items())
    if named is not None:
        kept = "; ".join(f"{k}={_compact(v)}" for k, v in options.items() if k not in _DATA_OPTIONS)
        details = f"data={named}" + (f"; {kept}" if kept else "")
    elif path and not any(key in options for key in _DATA_OPTIONS):
        # The benchmark chose its data file itself (LoCoMo's shared dev file): name the file it read.
        details = f"data={path}" + (f"; {details}" if details else "")
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
