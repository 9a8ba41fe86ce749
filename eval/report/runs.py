"""The labels every report prints for a run (:class:`~memsuite.eval.run.folder.RunFolder`): its LLMs,
judges and data source, the runs table that gathers them and the warnings a reader sees first."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from memsuite.eval.report.model import Report, Table
from memsuite.eval.run.folder import RunFolder


def llm_label(identity: Mapping[str, Any] | None) -> str:
    """The model of an LLM identity from a run header ("none" when the run had no such LLM)."""
    if not identity:
        return "none"
    model = str(identity.get("model") or "?")
    if identity.get("oracle"):
        return f"{model} (oracle: replies from gold; rows are ceilings)"
    return f"{model} (wiring only)" if identity.get("wiring_only") else model


def internal_llm_label(run: RunFolder) -> str:
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


def data_source(run: RunFolder) -> str:
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
        source = run.scores(system).part("source")
        if source.get("kind"):
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


def judges_used(run: RunFolder) -> list[str]:
    """Judges whose verdicts a run's summary scores (falling back to the configured judges)."""
    found: list[str] = []
    for system in run.systems:
        scores = run.scores(system)
        # A mapping of judges holds exactly the judges the run applied; judges under keys of their own
        # include scorers no config names (LongMemEval's answer_in_context): there the config speaks.
        if scores.layout.under is not None:
            found += [j for j in scores.judges if j not in found]
    return found or list(run.config.get("judges") or [])


def _compact(value: Any) -> str:
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k}: {_compact(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_compact(v) for v in value) + "]"
    return str(value)


def runs_table(runs: Sequence[RunFolder]) -> Table:
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
            # The budget every system's context was cut to (a dash: none, or a run made before budgets).
            "context_tokens": (run.header.get("retrieval") or {}).get("context_tokens"),
            "embedder": (run.header.get("embedder") or {}).get("model"),
            "systems": ", ".join(run.systems),
            "units": (run.header.get("units") or {}).get("total"),
            "git_revision": run.header.get("git_revision"),
            "started_at": run.header.get("started_at"),
        }
        for run in runs
    ]
    return Table.from_records("runs", "Runs", tuple(records[0]) if records else ("run",), records)


def report_warnings(report: Report) -> list[str]:
    """What a reader must know before any rate (Markdown): wiring-only runs, unfinished runs, failed
    LLM calls."""
    warnings = []
    if any(run.header.get("wiring_only") for run in report.runs):
        warnings.append(
            "Runs marked *wiring only* used the embedded 135M model: they prove the pipeline end to "
            "end, not answer quality; quality numbers need a capable endpoint."
        )
    unfinished = [run.label for run in report.runs if run.header.get("status") != "complete"]
    if unfinished:
        warnings.append(
            f"Not complete (failed units or calls, stopped or interrupted): {', '.join(unfinished)}."
        )
    for run in report.runs:
        calls = run.header.get("failed_calls") or {}
        if any(calls.values()) or run.header.get("stop_reason"):
            warnings.append(
                f"**{run.label} had failed LLM calls**: {calls.get('answer', 0)} answer, "
                f"{calls.get('judge', 0)} judge. Their rows are left out of every rate (`n_failed` in "
                "summary.json counts them), so rates cover fewer questions than the run asked."
                + (f" Stopped early: {run.header['stop_reason']}" if run.header.get("stop_reason") else "")
            )
    return warnings
