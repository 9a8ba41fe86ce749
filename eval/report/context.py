"""The context each system handed over, for every benchmark: the tokens per question in the usage table,
a warning above a section whose systems were handed very different amounts of context, and, for an
ablation, each system's verdict rate against its mean context tokens.

Everything here reads the rows' ``metadata.context_tokens`` (cl100k tokens the answer model and the
judges were given, after the run's ``context_tokens`` budget) and ``metadata.context_cut`` (whether the
budget cut anything). Rows of runs made before rows recorded them have neither: their cells are dashes
(not measured), never 0, and they take no part in the warning or the plot.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

from memsuite.eval.analysis import plots as plotting
from memsuite.eval.analysis.compare import headline, run_judge
from memsuite.eval.analysis.metrics import percentile
from memsuite.eval.hooks import OutcomeSpec
from memsuite.eval.protocol import Row
from memsuite.eval.report.model import Cell, Figure, Sweep
from memsuite.eval.run.folder import RunFolder

#: Columns of the usage table: context tokens per question (mean, p50, p95) and the share of
#: questions whose context the budget cut.
CONTEXT_COLUMNS = ("context tokens mean", "context tokens p50", "context tokens p95", "context cut share")
CONTEXT_FORMATS = {
    "context tokens mean": ".0f",
    "context tokens p50": ".0f",
    "context tokens p95": ".0f",
    "context cut share": ".2f",
}
CONTEXT_NOTE = (
    "context tokens mean / p50 / p95: cl100k tokens of context each question handed the answer model and "
    "the judges (row metadata.context_tokens, after the run's context_tokens budget); context cut share: "
    "questions whose context the budget cut (metadata.context_cut); a dash: the run's rows do not record it."
)
#: Systems whose mean context tokens differ by more than this factor are not compared like for like.
LIKE_FOR_LIKE_RATIO = 2.0


def context_tokens(rows: Sequence[Row]) -> list[int]:
    """The context tokens of the rows that record them."""
    found = (row.metadata.get("context_tokens") for row in rows)
    return [int(n) for n in found if isinstance(n, int | float) and not isinstance(n, bool)]


def mean_context_tokens(rows: Sequence[Row]) -> float | None:
    """Mean context tokens per question, None when no row records them."""
    tokens = context_tokens(rows)
    return sum(tokens) / len(tokens) if tokens else None


def context_record(rows: Sequence[Row]) -> dict[str, Cell]:
    """:data:`CONTEXT_COLUMNS` of a system's rows (None where no row records the value)."""
    tokens = context_tokens(rows)
    cuts = [bool(row.metadata["context_cut"]) for row in rows if "context_cut" in row.metadata]
    return {
        "context tokens mean": sum(tokens) / len(tokens) if tokens else None,
        "context tokens p50": percentile(tokens, 0.5),
        "context tokens p95": percentile(tokens, 0.95),
        "context cut share": sum(cuts) / len(cuts) if cuts else None,
    }


def like_for_like_warnings(runs: Sequence[RunFolder]) -> list[str]:
    """One warning per run whose systems' mean context tokens differ by more than
    :data:`LIKE_FOR_LIKE_RATIO`: their rates compare how much they were handed as much as how well
    they remember. Runs are checked one by one (the runs of a budget sweep differ on purpose)."""
    warnings = []
    for run in runs:
        means = {s: m for s in run.systems if (m := mean_context_tokens(run.rows(s))) is not None}
        if len(means) < 2:
            continue
        most, least = max(means, key=means.__getitem__), min(means, key=means.__getitem__)
        high, low = means[most], means[least]
        if high <= LIKE_FOR_LIKE_RATIO * low:
            continue
        where = f" ({run.label})" if len(runs) > 1 else ""
        ratio = "none at all" if not low else f"{high / low:.{0 if high >= 10 * low else 1}f}×"
        said = (
            f"Not like for like{where}: {most} handed over {high:.0f} tokens per question on average, "
            f"{least} {low:.0f} ({ratio}). Rates below compare context sizes as much as memories; "
        )
        budget = (run.header.get("retrieval") or {}).get("context_tokens")
        if budget is None:
            said += "set context_tokens in the run config to give every system the same budget."
        else:  # the same budget for all: a system left it unused, by what its retrieval returns
            said += (
                f"every system had the same budget ({budget} tokens), and {least} handed over less "
                "because its retrieval returned less."
            )
        warnings.append(said)
    return warnings


def context_figure(
    stem: str, benchmark: str, runs: Sequence[RunFolder], spec: OutcomeSpec | None, sweep: Sweep
) -> Figure | None:
    """Each system's headline rate (with its interval) against its mean context tokens, one point per
    variant of the sweep; None without outcomes, a judge all variants share, or recorded tokens."""
    if spec is None:
        return None
    judge = run_judge(spec, *runs)
    if judge is None:
        return None
    series: dict[str, list[dict[str, Any]]] = {}
    for run, value in zip(runs, sweep.values, strict=True):
        for system in run.systems:
            tokens = mean_context_tokens(run.rows(system))
            found = headline(run, system, judge, spec=spec)
            if tokens is None or found is None:
                continue
            rate = found.interval
            series.setdefault(system, []).append(
                {
                    "x": tokens,
                    "y": rate.value,
                    "lo": rate.lo,
                    "hi": rate.hi,
                    "n": rate.n,
                    "too_small": rate.too_small,
                    "label": _point_label(value),
                }
            )
    if not series:
        return None
    name = spec.judge_headlines.get(judge, spec.headline)
    key = sweep.key.split(".")[-1]
    title = (
        f"{benchmark}: {name} [{judge}] against context tokens handed over per question; "
        f"each point a run, labelled by its {key}; bars: 95 % interval"
    )
    draw = partial(plotting.plot_rate_against_context, series, title=title, ylabel=f"{name} [{judge}]")
    return Figure(stem, title, draw)


def _point_label(value: Any) -> str:
    """The variant a point stands for: its swept value (an LLM mapping by its model); the title names
    the swept key."""
    if isinstance(value, Mapping):
        value = value.get("model") or "?"
    return str(value)
