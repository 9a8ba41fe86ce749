"""Report plots as PNG files: one function per plot, plain data in, a written file out.

Figures are drawn on matplotlib's object API (``Figure`` + the Agg canvas) rather than ``pyplot``:
no global backend is switched and no display is needed, so plotting is headless and safe to call
from a notebook or a thread. The data come from :mod:`memsuite.eval.report`, which reads run folders; nothing
here knows about benchmarks, systems or files other than the PNG it writes.

Missing values (None) are skipped: a bar is left out, a curve has a gap.
"""

from __future__ import annotations

import logging
import math
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

#: Resolution of every PNG; 100 dpi keeps a figure at ~30-80 KB, small enough to commit.
DPI = 100
#: PNG metadata: no "Software" entry, so a figure redrawn from the same data is byte-stable.
_PNG_METADATA = {"Software": None}


def _figure(width: float, height: float) -> Any:
    """A new figure bound to the Agg canvas (matplotlib is imported only when a plot is drawn)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=DPI, layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def _save(figure: Any, path: Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, format="png", dpi=DPI, metadata=_PNG_METADATA)
    logger.info("wrote %s", path)
    return path


def _horizontal() -> dict[str, Any]:
    """Horizontal boxes: ``orientation`` since matplotlib 3.10, where ``vert`` became deprecated."""
    import matplotlib

    major, minor = (int(part) for part in matplotlib.__version__.split(".")[:2])
    return {"orientation": "horizontal"} if (major, minor) >= (3, 10) else {"vert": False}


def _number(value: Any) -> float | None:
    """A finite float, or None for a missing or non-numeric value ("n/a" cells included)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def plot_task_bars(
    scores: Mapping[str, Mapping[str, Any]],
    tasks: Sequence[str],
    path: Path,
    *,
    title: str,
    ylabel: str = "pass rate",
    reference: Mapping[str, Mapping[str, Any]] | None = None,
    intervals: Mapping[str, Mapping[str, Any]] | None = None,
) -> Path:
    """Grouped bars: one group per task, one bar per system (MEME per-task bars).

    Args:
        scores: System -> task -> rate (0..1); None or "n/a" leaves the bar out.
        tasks: Tasks in axis order (e.g. ER Agg Tr Del Cas Abs Overall).
        path: PNG to write.
        title: Figure title (should name the judge and the data).
        ylabel: Y-axis label.
        reference: Published numbers, name -> task -> rate, drawn as hatched bars after each system's.
        intervals: System -> task -> interval (anything with ``lo`` and ``hi``), drawn as whiskers.

    Returns:
        ``path``.
    """
    series = [(name, values, False) for name, values in scores.items()]
    series += [(name, values, True) for name, values in (reference or {}).items()]
    figure = _figure(max(6.0, 1.1 * len(tasks) + 0.3 * len(series)), 3.8)
    ax = figure.add_subplot()
    width = 0.8 / max(1, len(series))
    for i, (name, values, is_reference) in enumerate(series):
        xs, heights, whiskers = [], [], []
        found = {} if is_reference else (intervals or {}).get(name) or {}
        for j, task in enumerate(tasks):
            x = j - 0.4 + width * (i + 0.5)
            value = _number(values.get(task))
            if value is not None:
                xs.append(x)
                heights.append(value)
                interval = found.get(task)
                if interval is not None:
                    whiskers.append((x, value, interval.lo, interval.hi))
            elif isinstance(values.get(task), str):  # "n/a": undefined, unlike a missing measurement
                ax.text(x, 0.01, values[task], ha="center", va="bottom", fontsize=6, rotation=90)
        ax.bar(
            xs,
            heights,
            width,
            label=name,
            hatch="//" if is_reference else None,
            alpha=0.55 if is_reference else 0.9,
            edgecolor="black" if is_reference else None,
            linewidth=0.5,
        )
        for x, value, lo, hi in whiskers:
            ax.errorbar(x, value, [[value - lo], [hi - value]], color="black", linewidth=0.7, capsize=2)
    ax.set_xticks(range(len(tasks)), list(tasks))
    ax.set_ylim(0, 1.05)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.0, 0.5))
    return _save(figure, path)


#: Per series, in order: a marker and a line style, so series that coincide stay distinguishable.
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
LINESTYLES = ("-", "--", ":", "-.")
#: Size suffixes of swept values such as filler "32k": the value is placed at its number on the x axis.
_SIZE_SUFFIXES = {"k": 1e3, "m": 1e6}


def series_style(index: int) -> dict[str, Any]:
    """The marker, line style and marker size of the ``index``-th series of a panel (each series its
    own pair; later series are drawn smaller, so an earlier one under them stays visible)."""
    return {
        "marker": MARKERS[index % len(MARKERS)],
        "linestyle": LINESTYLES[index % len(LINESTYLES)],
        "markersize": max(3.0, 6.0 - index),
    }


def axis_position(value: Any) -> float | None:
    """Where a swept value sits on a numeric x axis: a number, a size ("32k" -> 32000), "none" -> 0;
    None when the value is a name (the axis is then categorical)."""
    number = _number(value)
    if number is not None:
        return number
    text = str(value).strip().lower()
    if text in ("none", "0"):
        return 0.0
    if text[:-1].isdigit() and text[-1:] in _SIZE_SUFFIXES:
        return float(text[:-1]) * _SIZE_SUFFIXES[text[-1]]
    return None


def _curve_panels(
    figure: Any,
    x: Sequence[Any],
    panels: Mapping[str, Mapping[str, Sequence[Any]]],
    *,
    xlabel: str,
    ylabel: str,
    categorical: bool,
    unit_range: bool,
    bands: Mapping[str, Mapping[str, Sequence[tuple[float, float] | None]]] | None = None,
) -> None:
    """Draw one axes per panel, one line per series (each its own marker and line style), sharing the
    x positions; ``bands`` (panel -> series -> (lo, hi) per x) are shaded around their lines."""
    n = max(1, len(panels))
    ncols = min(3, n)
    nrows = math.ceil(n / ncols)
    positions = list(range(len(x))) if categorical else [float(axis_position(v)) for v in x]
    for index, (panel, series) in enumerate(panels.items()):
        ax = figure.add_subplot(nrows, ncols, index + 1)
        for number, (name, ys) in enumerate(series.items()):
            points = [(px, _number(y)) for px, y in zip(positions, ys, strict=False)]
            # A None splits the line, so a missing point never looks like a measured drop.
            (line,) = ax.plot(
                [px for px, _ in points],
                [math.nan if y is None else y for _, y in points],
                label=name,
                **series_style(number),
            )
            band = ((bands or {}).get(panel) or {}).get(name)
            if band:
                lows = [math.nan if b is None else b[0] for b in band]
                highs = [math.nan if b is None else b[1] for b in band]
                ax.fill_between(positions[: len(band)], lows, highs, color=line.get_color(), alpha=0.12)
        ax.set_title(panel, fontsize=9)
        ax.set_xlabel(xlabel, fontsize=8)
        ax.set_ylabel(ylabel, fontsize=8)
        if categorical:
            ax.set_xticks(positions, [str(v) for v in x], fontsize=8)
        else:
            ax.set_xticks(positions)
        if unit_range:
            ax.set_ylim(-0.03, 1.03)
        ax.grid(alpha=0.3)
        # One legend for panels that share their series; a panel with other series gets its own.
        if index == 0 or list(series) != list(next(iter(panels.values()))):
            ax.legend(fontsize=7, loc="best")


def plot_sweep_curves(
    x: Sequence[Any],
    panels: Mapping[str, Mapping[str, Sequence[Any]]],
    path: Path,
    *,
    title: str,
    xlabel: str,
    ylabel: str = "pass rate",
    unit_range: bool = True,
    bands: Mapping[str, Mapping[str, Sequence[tuple[float, float] | None]]] | None = None,
) -> Path:
    """Ablation curves: a metric against the swept value, one panel per metric, one line per system.

    The top-k sweep (numeric x), the filler-noise sweep (none / 32k / 128k, placed at 0 / 32,000 /
    128,000) and LLM swaps (model names, categorical) all use it; x is numeric when every value is a
    number or a size (:func:`axis_position`).

    Args:
        x: Swept values (or variant labels), in sweep order.
        panels: Panel title -> system -> one y per x (None for a gap).
        path: PNG to write.
        title: Figure title.
        xlabel: The swept key.
        ylabel: Y-axis label of every panel.
        unit_range: Fix the y-axis to 0..1 (rates); False for ms or points of 100.
        bands: Panel -> system -> (lo, hi) per x: the 95 % interval shaded around the line.

    Returns:
        ``path``.
    """
    categorical = not all(axis_position(v) is not None for v in x)
    ncols = min(3, max(1, len(panels)))
    nrows = math.ceil(max(1, len(panels)) / ncols)
    figure = _figure(3.4 * ncols + 0.4, 2.8 * nrows + 0.5)
    _curve_panels(
        figure,
        x,
        panels,
        xlabel=xlabel,
        ylabel=ylabel,
        categorical=categorical,
        unit_range=unit_range,
        bands=bands,
    )
    if not categorical and not all(_number(v) is not None for v in x):
        # Sizes such as "32k" sit at their numbers; the ticks keep the values' own names.
        for ax in figure.axes:
            ax.set_xticks([axis_position(v) for v in x], [str(v) for v in x], fontsize=8)
    figure.suptitle(title, fontsize=10)
    return _save(figure, path)


def plot_checkpoint_curves(
    checkpoints: Sequence[str],
    panels: Mapping[str, Mapping[str, Sequence[Any]]],
    path: Path,
    *,
    title: str,
    ylabel: str = "score",
) -> Path:
    """DynamicMem curves over checkpoints C1..Cn: one panel per metric, one line per system (or split).

    Args:
        checkpoints: Checkpoint labels in order (C1, C2, ...).
        panels: Panel title (State Completion, Personalized Service, retained vs updated ...) ->
            series name -> one value per checkpoint (None for a gap).
        path: PNG to write.
        title: Figure title.
        ylabel: Y-axis label.

    Returns:
        ``path``.
    """
    ncols = min(3, max(1, len(panels)))
    nrows = math.ceil(max(1, len(panels)) / ncols)
    figure = _figure(3.4 * ncols + 0.4, 2.8 * nrows + 0.5)
    _curve_panels(
        figure, checkpoints, panels, xlabel="checkpoint", ylabel=ylabel, categorical=True, unit_range=True
    )
    figure.suptitle(title, fontsize=10)
    return _save(figure, path)


def plot_latency_distribution(
    latencies_ms: Mapping[str, Sequence[float]],
    path: Path,
    *,
    title: str,
    bands_ms: Sequence[float] = (300, 500, 1000),
) -> Path:
    """Search-latency distribution per system (box plot, log scale) with the penalty bands marked.

    Args:
        latencies_ms: System -> latency of each search call in ms.
        path: PNG to write.
        title: Figure title.
        bands_ms: Latencies where a penalty starts (WMB-100K: 300, 500, 1,000 ms), drawn as lines.

    Returns:
        ``path``.
    """
    names = [name for name, values in latencies_ms.items() if len(values)]
    data = [[max(float(v), 1e-3) for v in latencies_ms[name]] for name in names]
    figure = _figure(7.0, 0.5 * max(2, len(names)) + 1.6)
    ax = figure.add_subplot()
    if data:
        ax.boxplot(data, whis=(5, 95), flierprops={"markersize": 2}, **_horizontal())
        ax.set_yticks(range(1, len(names) + 1), names, fontsize=8)
        ax.invert_yaxis()  # the first system on top, as in the tables
    ax.set_xscale("log")
    for band in bands_ms:
        ax.axvline(band, color="red", linestyle="--", linewidth=0.8, alpha=0.6)
        ax.text(
            band,
            0.97,
            f"{band:g} ms ",
            color="red",
            fontsize=7,
            rotation=90,
            ha="right",
            va="top",
            transform=ax.get_xaxis_transform(),
        )
    ax.set_xlabel("latency of one search call, ms (box: p25-p75, whiskers: p5-p95)")
    ax.set_title(title, fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    return _save(figure, path)


def plot_rate_against_context(
    series: Mapping[str, Sequence[Mapping[str, Any]]],
    path: Path,
    *,
    title: str,
    ylabel: str = "pass rate",
    xlabel: str = "context tokens handed over per question (mean, log scale)",
) -> Path:
    """A rate against the context it was bought with: one line per system through its points (one per
    run of a sweep), each point at the system's mean context tokens, with its interval as a vertical bar.

    Args:
        series: System -> points in sweep order, each ``{"x", "y", "lo", "hi", "label"}`` (``lo`` /
            ``hi`` may be absent: no interval; ``label`` names the variant, written beside the point).
        path: PNG to write.
        title: Figure title.
        ylabel: The rate.
        xlabel: The x axis.

    Returns:
        ``path``.
    """
    figure = _figure(7.5, 4.6)
    ax = figure.add_subplot()
    for number, (name, points) in enumerate(series.items()):
        drawn = [p for p in points if _number(p.get("x")) is not None and _number(p.get("y")) is not None]
        if not drawn:
            continue
        xs, ys = [float(p["x"]) for p in drawn], [float(p["y"]) for p in drawn]
        below = [y - float(p.get("lo", y)) for p, y in zip(drawn, ys, strict=True)]
        above = [float(p.get("hi", y)) - y for p, y in zip(drawn, ys, strict=True)]
        style = series_style(number)
        ax.errorbar(xs, ys, yerr=[below, above], label=name, capsize=3, elinewidth=0.9, **style)
        for p, x, y in zip(drawn, xs, ys, strict=True):
            if p.get("label"):
                ax.annotate(str(p["label"]), (x, y), textcoords="offset points", xytext=(4, 4), fontsize=6)
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    # Budgets grow by factors (128 ... 4096): equal steps on a log axis, ticked at powers of two as
    # plain numbers (a base-10 log axis labels 3x10^2 and the like).
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(LogLocator(base=2))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}" if v >= 1 else f"{v:g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_ylim(-0.03, 1.03)
    ax.set_xlabel(xlabel, fontsize=9)
    ax.set_ylabel(ylabel, fontsize=9)
    ax.set_title(textwrap.fill(title, 90), fontsize=10)
    ax.grid(alpha=0.3, which="both")
    if series:
        ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.0, 0.5))
    return _save(figure, path)


#: Colours of the failure stages, pipeline order (passes last, in grey).
_STAGE_COLOURS = {
    "encoded": "#c0392b",
    "maintained": "#e67e22",
    "retrieved": "#f1c40f",
    "answered": "#2980b9",
    "none": "#bdc3c7",
}


def plot_failure_stages(
    shares: Mapping[str, Mapping[str, Mapping[str, float]]],
    tasks: Sequence[str],
    outcomes: Sequence[str],
    path: Path,
    *,
    title: str,
) -> Path:
    """Stacked bars of where questions fail (the MEME paper's failure analysis): one panel per task,
    one bar per system, stacked by the share of questions whose first failing stage is each outcome.

    Args:
        shares: System -> task -> outcome -> share (0..1); a missing task leaves the bar out.
        tasks: Tasks in panel order.
        outcomes: Stack order, bottom first (e.g. encoded, maintained, retrieved, answered, none).
        path: PNG to write.
        title: Figure title (should say which verdict decides ``answered``).

    Returns:
        ``path``.
    """
    systems = list(shares)
    panels = [t for t in tasks if any(t in shares[s] for s in systems)] or list(tasks)
    ncols = min(3, max(1, len(panels)))
    nrows = math.ceil(len(panels) / ncols)
    figure = _figure(max(3.0, 0.45 * len(systems) + 1.2) * ncols + 1.6, 2.9 * nrows + 0.6)
    for index, task in enumerate(panels):
        ax = figure.add_subplot(nrows, ncols, index + 1)
        bottoms = [0.0] * len(systems)
        for outcome in outcomes:
            heights = [_number(shares[s].get(task, {}).get(outcome)) or 0.0 for s in systems]
            ax.bar(
                range(len(systems)),
                heights,
                0.7,
                bottom=bottoms,
                color=_STAGE_COLOURS.get(outcome),
                label=outcome if outcome != "none" else "passed",
                edgecolor="white",
                linewidth=0.4,
            )
            bottoms = [b + h for b, h in zip(bottoms, heights, strict=True)]
        ax.set_xticks(range(len(systems)), systems, rotation=45, ha="right", fontsize=7)
        ax.set_ylim(0, 1.02)
        ax.set_title(task, fontsize=9)
        if index % ncols == 0:
            ax.set_ylabel("share of questions")
        if index == 0:
            figure.legend(
                *ax.get_legend_handles_labels(), fontsize=7, loc="outside right center", title="fails at"
            )
    figure.suptitle(title, fontsize=10)
    return _save(figure, path)
