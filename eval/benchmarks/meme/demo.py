"""``memsuite demo``: what the suite measures for real offline, then the answer step's wiring.

Two runs, both resumable (a second demo is served from the finished runs):

1. ``configs/demo.yaml``, the headline: MEME on generated episodes with filler, retrieval-only, bm25
   and dense against the extraction-oracle ceilings of the LLM paradigms. Printed: the LLM-free
   evidence verdict per task, the failure stages (encoded -> maintained -> retrieved) and how much
   of the memory k retrieved.
2. ``configs/demo_wiring.yaml``: answers from the embedded SmolLM2-135M on one episode without filler,
   judged by the rule judge. Printed below the headline and labelled: a 135M model proves the
   wiring, not answer quality.

Both go into one report (tables and plots, :func:`memsuite.eval.report.document.build_report`), whose
path is printed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from memsuite.eval.analysis.diagnostics import OUTCOMES, stage_table
from memsuite.eval.analysis.stats import MIN_N, MIN_UNITS, SEED, Interval
from memsuite.eval.benchmarks.meme.diagnostics import attribute_rows, load_snapshots
from memsuite.eval.benchmarks.meme.report import meme_intervals
from memsuite.eval.benchmarks.meme.scoring import TASKS
from memsuite.eval.report.document import build_report, write_report
from memsuite.eval.run.config import configs_dir, load_config
from memsuite.eval.run.folder import RunFolder, load_runs
from memsuite.eval.run.runner import run, stale_reasons

#: configs/demo.yaml and demo_wiring.yaml, shipped as package data: the demo runs the same from a wheel.
DEMO_CONFIG = configs_dir() / "demo.yaml"
WIRING_CONFIG = configs_dir() / "demo_wiring.yaml"
#: Marks the start of one MEME chunk in a bm25 snapshot (memory_systems/chunking.py's header).
_CHUNK_HEADER = "[Session: "


#: Width of a task column: room for an interval "0.00-1.00".
_COLUMN = 10


def _cell(value: float | None) -> str:
    return f"{'-':>{_COLUMN}s}" if value is None else f"{value:{_COLUMN}.2f}"


def _interval_cell(interval: Interval | None) -> str:
    return f"{'':{_COLUMN}s}" if interval is None else f"{interval.lo:.2f}-{interval.hi:.2f}".rjust(_COLUMN)


def _score_lines(
    summary: Mapping[str, Any], judge: str, width: int, run: RunFolder | None = None
) -> list[str]:
    """Per system: the per-task rates under ``judge`` and Overall; with the run, two more lines under
    each: the 95 % interval (resampling episodes) and n of every cell."""
    columns = (*TASKS, "Overall")
    width = max(width, len("  95% interval")) if run is not None else width
    lines = [f"{'system':{width}s} " + " ".join(f"{t:>{_COLUMN}s}" for t in columns)]
    for system, entry in summary.items():
        scores = entry["scores"]["by_judge"].get(judge)
        if scores is None:
            continue
        cells = [_cell(scores["tasks"][t]) for t in TASKS] + [_cell(scores["Overall"])]
        lines.append(f"{system:{width}s} " + " ".join(cells))
        if run is not None:
            found = meme_intervals(run, system, judge)
            bounds = [_interval_cell(found.get(c)) for c in columns]
            lines.append(f"{'  95% interval':{width}s} " + " ".join(bounds))
            counts = [
                f"{(str(found[c].n) + ('*' if found[c].too_small else '')) if c in found else '-':>{_COLUMN}}"
                for c in columns
            ]
            lines.append(f"{'  n':{width}s} " + " ".join(counts))
    return lines


def stage_lines(folder: RunFolder, width: int) -> list[str]:
    """Failure stages of the after-questions, all tasks pooled: one line per system.

    Shares of each system's questions whose first failing stage is each of :data:`OUTCOMES`
    (eval/analysis/diagnostics.py); the report has the same table per task.
    """
    pooled = [dataclasses.replace(a, task="all") for a in attribute_rows(folder.rows(), folder.path)]
    cells = stage_table(pooled, phase="after", tasks=("all",))
    outcomes = [o for o in OUTCOMES if o != "answered" or any(c.answer_judge for c in cells)]
    names = ["passed" if o == "none" else o for o in outcomes]
    lines = [f"{'system':{width}s} {'n':>4s} " + " ".join(f"{n:>10s}" for n in names)]
    for c in cells:
        lines.append(f"{c.system:{width}s} {c.n:4d} " + " ".join(f"{c.shares[o]:10.2f}" for o in outcomes))
    return lines


def memory_chunks(folder: RunFolder, system: str = "bm25") -> list[int]:
    """Chunks in ``system``'s memory at the end of each episode, read from its last snapshot."""
    units = sorted({u.unit_id for u in folder.units() if u.system == system and u.status == "done"})
    counts = []
    for unit in units:
        snapshots = load_snapshots(folder.path, system, unit)
        if snapshots:
            counts.append(snapshots[-1].count(_CHUNK_HEADER))
    return counts


def _usage_line(entry: Mapping[str, Any], width: int) -> str:
    usage = entry["usage"]
    return (
        f"{'':{width}s} usage: {usage['llm_calls']} LLM calls ({usage['cache_hits']} cached), "
        f"{usage['prompt_tokens'] + usage['completion_tokens']} tokens, wall {entry['wall_s']:.1f} s"
    )


def _width(*summaries: Mapping[str, Any]) -> int:
    return max(len("system"), *(len(s) for summary in summaries for s in summary))


def print_headline(folder: RunFolder, options: Mapping[str, Any], k: int) -> None:
    """The headline: evidence per task, failure stages, and the memory size against k."""
    summary = folder.summary
    width = _width(summary)
    chunks = memory_chunks(folder)
    low, high = min(chunks, default=0), max(chunks, default=0)
    span = f"{low}-{high}" if low != high else str(high)
    size = f"bm25's memory holds {span} chunks per episode, k = {k}" if chunks else f"k = {k}"
    print(
        f"\n== MEME, retrieval-only (no LLM anywhere): {options.get('episodes')} generated episodes, "
        f"filler {options.get('filler')}, seed {options.get('seed')}; {size}"
    )
    print("evidence verdict per task: does the retrieved context hold what the question needs?\n")
    (run,) = load_runs([folder.path])
    print("\n".join(_score_lines(summary, "evidence", width, run)))
    print(
        f"\n95% interval: bootstrap resampling episodes (seed {SEED}); n*: a cell of n < {MIN_N} questions "
        f"or fewer than {MIN_UNITS} episodes, too small to read -- two systems differ only where their "
        "intervals leave no doubt, or by `memsuite compare` (paired, per question)."
    )
    print(
        "\n*_oracle: the LLM paradigm fed each session's gold facts instead of its own extraction "
        "(no LLM call; filler\nnever enters its memory): the ceiling of its organisation, maintenance "
        "and retrieval."
    )
    print("\nFailure stages, after-questions of all tasks: share failing first at each stage\n")
    print("\n".join(stage_lines(folder, width)))
    print(
        "\nencoded: a needed value never reached memory; maintained: the memory at question time lacks "
        "the current state;\nretrieved: the top-k context lacks it; passed: every stage held "
        "(answers are not judged here)."
    )


def print_wiring(folder: RunFolder) -> None:
    """The wiring check: rule-judged answers of the embedded model, labelled as such."""
    header, summary = folder.header, folder.summary
    width = _width(summary)
    llm = (header.get("answer_llm") or {}).get("model", "none")
    print(
        f"\n== Wiring only: answers from {llm} (135M) on 1 episode without filler, judged by the rule "
        "judge.\nThey prove the answer step runs end to end (prompt, call, cache, accounting, judge), "
        "not quality;\nfor accuracy point answer_llm at a capable endpoint (docs/llm-endpoints.md).\n"
    )
    print("\n".join(_score_lines(summary, "rule", width)))
    for entry in summary.values():
        print(_usage_line(entry, width))


def run_demo(
    *,
    out_dir: Path,
    cache_dir: Path | None,
    config_path: Path = DEMO_CONFIG,
    wiring_path: Path | None = WIRING_CONFIG,
    show_progress: bool = True,
) -> Path:
    """Run the headline and the wiring config, print, write the report.

    A finished run is resumed instantly; one made by another config or code is recomputed (said so).

    Args:
        out_dir: Demo folder: the runs go to ``<out_dir>/<config name>``, the report to
            ``<out_dir>/report``.
        cache_dir: Embedding/LLM cache root (a rerun is served from it), or None.
        config_path: The headline config (retrieval-only).
        wiring_path: The answer-wiring config, or None to skip it.
        show_progress: Show each run's progress bar.

    Returns:
        The report's ``report.md``.
    """
    out_dir = Path(out_dir)
    folders: list[RunFolder] = []
    configs = [load_config(config_path)] + ([load_config(wiring_path)] if wiring_path else [])
    for config in configs:
        folder = out_dir / config.name
        # The demo shows what this code measures: rows another config or code made are recomputed.
        stale = stale_reasons(config, folder)
        if stale:
            print(f"{folder}: rows from another config or code ({'; '.join(stale)}); recomputing")
        folders.append(
            run(config, out_dir=folder, cache_dir=cache_dir, show_progress=show_progress, restart=bool(stale))
        )
    headline = folders[0]
    print_headline(headline, configs[0].benchmark_options, configs[0].k)
    if len(folders) > 1:
        print_wiring(folders[1])
    report = build_report(
        load_runs([f.path for f in folders]),
        title="memsuite demo",
        command="memsuite demo --out " + str(out_dir),
    )
    files = write_report(report, out_dir / "report")
    print(f"\nReport (tables and plots): {files[0]}\nPage (open in a browser): {files[1]}")
    print(f"Rows: {_rows_paths(folders)}")
    return files[0]


def _rows_paths(folders: Sequence[RunFolder]) -> str:
    return ", ".join(str(f.path / "rows.jsonl") for f in folders)


def demo(args: Any) -> int:
    """``memsuite demo``: :func:`run_demo` with the command line's folder and cache."""
    run_demo(out_dir=args.out, cache_dir=None if args.no_cache else args.cache_dir)
    return 0
