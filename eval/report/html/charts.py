"""A report's figures as chart specs the page draws with Chart.js: the same data the PNG is drawn from.

A :class:`~memsuite.eval.report.model.Figure` is a deferred call into :mod:`memsuite.eval.analysis.plots`
(``functools.partial(plot_function, data..., title=...)``); its bound arguments are the plot's plain
data. :func:`chart_spec` turns the call of each plot function into a JSON spec (its ``kind`` names the
drawing in ``static/charts.js``); a figure drawn some other way has no spec and the page shows its PNG.
Intervals travel as ``[lo, hi]`` with ``n`` where the plot has them, so hovering a bar or point shows
both. Latencies become quantiles here: a page of 50,000 rows does not carry every latency.
"""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from memsuite.eval.analysis import plots
from memsuite.eval.analysis.stats import Interval
from memsuite.eval.report.model import Figure

Spec = dict[str, Any]


def _number(value: Any) -> float | None:
    """A finite float, else None (a dash or an "n/a" cell draws nothing)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


def _interval(found: Any) -> dict[str, Any]:
    if isinstance(found, Interval):
        return {"lo": found.lo, "hi": found.hi, "n": found.n, "too_small": found.too_small}
    if isinstance(found, list | tuple) and len(found) == 2 and all(_number(v) is not None for v in found):
        return {"lo": float(found[0]), "hi": float(found[1])}
    return {}


def _task_bars(
    scores: Mapping[str, Mapping[str, Any]],
    tasks: Sequence[str],
    *,
    title: str,
    ylabel: str = "pass rate",
    reference: Mapping[str, Mapping[str, Any]] | None = None,
    intervals: Mapping[str, Mapping[str, Interval]] | None = None,
) -> Spec:
    series = []
    for name, values in scores.items():
        found = (intervals or {}).get(name) or {}
        points = [{"y": _number(values.get(t)), **_interval(found.get(t))} for t in tasks]
        series.append({"name": name, "points": points, "reference": False})
    for name, values in (reference or {}).items():
        series.append(
            {"name": name, "points": [{"y": _number(values.get(t))} for t in tasks], "reference": True}
        )
    return {
        "kind": "bars",
        "title": title,
        "x": list(tasks),
        "ylabel": ylabel,
        "series": series,
        "unit": True,
    }


def _panels(
    x: Sequence[Any],
    panels: Mapping[str, Mapping[str, Sequence[Any]]],
    bands: Mapping[str, Mapping[str, Sequence[Any]]] | None,
) -> list[dict[str, Any]]:
    out = []
    for panel, series in panels.items():
        lines = []
        for name, ys in series.items():
            band = ((bands or {}).get(panel) or {}).get(name) or []
            points = [
                {"y": _number(y), **(_interval(band[i]) if i < len(band) else {})} for i, y in enumerate(ys)
            ]
            lines.append({"name": name, "points": points})
        out.append({"title": panel, "series": lines})
    return out


def _sweep_curves(
    x: Sequence[Any],
    panels: Mapping[str, Mapping[str, Sequence[Any]]],
    *,
    title: str,
    xlabel: str,
    ylabel: str = "pass rate",
    unit_range: bool = True,
    bands: Mapping[str, Mapping[str, Sequence[tuple[float, float] | None]]] | None = None,
) -> Spec:
    return {
        "kind": "curves",
        "title": title,
        "x": [str(v) for v in x],
        "xlabel": xlabel,
        "ylabel": ylabel,
        "unit": unit_range,
        "panels": _panels(x, panels, bands),
    }


def _checkpoint_curves(
    checkpoints: Sequence[str],
    panels: Mapping[str, Mapping[str, Sequence[Any]]],
    *,
    title: str,
    ylabel: str = "score",
) -> Spec:
    return {
        "kind": "curves",
        "title": title,
        "x": [str(c) for c in checkpoints],
        "xlabel": "checkpoint",
        "ylabel": ylabel,
        "unit": True,
        "panels": _panels(checkpoints, panels, None),
    }


def _quantile(values: Sequence[float], q: float) -> float:
    position = q * (len(values) - 1)
    low = math.floor(position)
    high = min(low + 1, len(values) - 1)
    return values[low] + (values[high] - values[low]) * (position - low)


def _latency(
    latencies_ms: Mapping[str, Sequence[float]],
    *,
    title: str,
    bands_ms: Sequence[float] = (300, 500, 1000),
) -> Spec:
    boxes = []
    for name, values in latencies_ms.items():
        ordered = sorted(float(v) for v in values)
        if not ordered:
            continue
        quantiles = {f"p{round(q * 100)}": _quantile(ordered, q) for q in (0.05, 0.25, 0.5, 0.75, 0.95)}
        boxes.append({"name": name, "n": len(ordered), **quantiles})
    return {"kind": "latency", "title": title, "boxes": boxes, "bands_ms": [float(b) for b in bands_ms]}


def _failure_stages(
    shares: Mapping[str, Mapping[str, Mapping[str, float]]],
    tasks: Sequence[str],
    outcomes: Sequence[str],
    *,
    title: str,
) -> Spec:
    systems = list(shares)
    panels = [t for t in tasks if any(t in shares[s] for s in systems)] or list(tasks)
    return {
        "kind": "stages",
        "title": title,
        "systems": systems,
        "outcomes": list(outcomes),
        "panels": [
            {
                "title": task,
                "shares": {o: [_number(shares[s].get(task, {}).get(o)) for s in systems] for o in outcomes},
            }
            for task in panels
        ],
    }


def _rate_against_context(
    series: Mapping[str, Sequence[Mapping[str, Any]]],
    *,
    title: str,
    ylabel: str = "pass rate",
    xlabel: str = "context tokens handed over per question (mean, log scale)",
) -> Spec:
    lines = []
    for name, points in series.items():
        drawn = []
        for point in points:
            x, y = _number(point.get("x")), _number(point.get("y"))
            if x is None or y is None:
                continue
            found = {"x": x, "y": y, "label": str(point.get("label") or "")}
            found.update(_interval([point.get("lo"), point.get("hi")]))
            if "n" in point:
                found.update(n=point["n"], too_small=bool(point.get("too_small")))
            drawn.append(found)
        lines.append({"name": name, "points": drawn})
    return {"kind": "scatter", "title": title, "xlabel": xlabel, "ylabel": ylabel, "series": lines}


#: Each plot function of :mod:`memsuite.eval.analysis.plots` and its spec, taking the same arguments less
#: the path.
_SPECS: dict[Callable[..., Any], Callable[..., Spec]] = {
    plots.plot_task_bars: _task_bars,
    plots.plot_sweep_curves: _sweep_curves,
    plots.plot_checkpoint_curves: _checkpoint_curves,
    plots.plot_latency_distribution: _latency,
    plots.plot_failure_stages: _failure_stages,
    plots.plot_rate_against_context: _rate_against_context,
}


def chart_spec(figure: Figure) -> Spec | None:
    """The chart spec of a figure, or None when it is not a deferred call of a known plot function."""
    call = figure.draw
    if not isinstance(call, functools.partial) or call.func not in _SPECS:
        return None
    bound = inspect.signature(call.func).bind_partial(*call.args, **call.keywords)
    arguments = {k: v for k, v in bound.arguments.items() if k != "path"}
    spec = _SPECS[call.func](**arguments)
    return {**spec, "name": figure.name}
