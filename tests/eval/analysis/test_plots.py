"""Every plot function draws the data it is given, headless, with gaps (None) and n/a cells.

Each test intercepts the figure as it is saved (``memsuite.eval.analysis.plots._save``) and reads the plotted
artists back: bar heights and positions, line y-values, box medians, stack bottoms. A PNG is still written.
"""

from __future__ import annotations

import math

import pytest

from memsuite.eval.analysis import plots

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def saved(monkeypatch) -> dict:
    """PNG path -> the matplotlib figure the plot function saved there."""
    figures: dict = {}
    real_save = plots._save

    def capture(figure, path):
        figures[path] = figure
        return real_save(figure, path)

    monkeypatch.setattr(plots, "_save", capture)
    return figures


def _is_png(path) -> bool:
    data = path.read_bytes()
    return data.startswith(PNG_MAGIC) and len(data) > 2000


def _bars(ax, tasks) -> dict[str, dict[str, float]]:
    """Series label -> task -> bar height, each bar's task read from its x position."""
    out = {}
    for container in ax.containers:
        bars = {}
        for patch in container.patches:
            centre = patch.get_x() + patch.get_width() / 2
            bars[tasks[round(centre)]] = patch.get_height()
        out[container.get_label()] = bars
    return out


def _ys(line) -> list[float | None]:
    return [None if math.isnan(y) else float(y) for y in line.get_ydata()]


def _lines(ax) -> dict[str, list[float | None]]:
    return {line.get_label(): _ys(line) for line in ax.lines}


def test_task_bars_with_reference_and_missing_values(tmp_path, saved):
    tasks = ("ER", "Agg", "Del", "Overall")
    scores = {
        "bm25": {"ER": 1.0, "Agg": 0.5, "Del": "n/a", "Overall": "n/a"},
        "dense": {"ER": 0.9, "Agg": None, "Del": "n/a", "Overall": "n/a"},
    }
    reference = {"BM25 (paper)": {"ER": 1.0, "Agg": 0.05, "Del": 0.27, "Overall": 0.25}}
    path = plots.plot_task_bars(scores, tasks, tmp_path / "bars.png", title="t", reference=reference)
    assert path == tmp_path / "bars.png" and _is_png(path)
    (ax,) = saved[path].axes
    assert _bars(ax, tasks) == {
        "bm25": {"ER": 1.0, "Agg": 0.5},  # n/a cells are no bar
        "dense": {"ER": 0.9},  # None is no bar either
        "BM25 (paper)": {"ER": 1.0, "Agg": 0.05, "Del": 0.27, "Overall": 0.25},
    }
    hatches = {c.get_label(): {p.get_hatch() for p in c.patches} for c in ax.containers}
    assert hatches == {"bm25": {None}, "dense": {None}, "BM25 (paper)": {"//"}}
    # An undefined cell is written as text where its bar would be: two per system with n/a cells.
    assert [t.get_text() for t in ax.texts] == ["n/a"] * 4
    assert [t.get_text() for t in ax.get_xticklabels()] == list(tasks)


def test_sweep_curves_numeric_and_categorical(tmp_path, saved):
    panels = {
        "ER": {"bm25": [0.2, 0.8, 1.0], "dense": [0.1, None, 0.9]},
        "Overall": {"bm25": [0.1, 0.5, 0.6]},
    }
    numeric = plots.plot_sweep_curves([1, 5, 10], panels, tmp_path / "k.png", title="t", xlabel="k")
    categorical = plots.plot_sweep_curves(
        ["none", "32k", "128k"], panels, tmp_path / "filler.png", title="t", xlabel="filler"
    )
    ms = plots.plot_sweep_curves(
        ["a", "b", "c"],
        {"p50 ms": {"x": [3.0, 40.0, 2.0]}},
        tmp_path / "ms.png",
        title="t",
        xlabel="v",
        unit_range=False,
    )
    assert all(_is_png(p) for p in (numeric, categorical, ms))
    names = plots.plot_sweep_curves(
        ["gpt-a", "gpt-b", "gpt-c"], panels, tmp_path / "names.png", title="t", xlabel="model"
    )
    # k at its values, filler sizes at their numbers (none = 0), names evenly.
    expected = ((numeric, [1.0, 5.0, 10.0]), (categorical, [0.0, 32e3, 128e3]), (names, [0.0, 1.0, 2.0]))
    for path, xs in expected:
        er, overall = saved[path].axes
        assert (er.get_title(), overall.get_title()) == ("ER", "Overall")
        assert _lines(er) == {"bm25": [0.2, 0.8, 1.0], "dense": [0.1, None, 0.9]}  # None is a gap
        assert _lines(overall) == {"bm25": [0.1, 0.5, 0.6]}
        assert all(list(line.get_xdata()) == xs for line in er.lines)
        assert er.get_ylim() == (-0.03, 1.03)
    assert [t.get_text() for t in saved[categorical].axes[0].get_xticklabels()] == ["none", "32k", "128k"]
    assert [t.get_text() for t in saved[names].axes[0].get_xticklabels()] == ["gpt-a", "gpt-b", "gpt-c"]
    (ax,) = saved[ms].axes
    assert _lines(ax) == {"x": [3.0, 40.0, 2.0]} and ax.get_ylim()[1] >= 40.0  # not clipped to 0..1


def test_checkpoint_curves(tmp_path, saved):
    panels = {
        "State Completion": {"rag": [0.7, 0.6, 0.65, None, 0.5]},
        "retained vs updated: State Completion": {
            "rag retained": [None, 0.8, 0.7, 0.7, 0.6],
            "rag updated": [None, 0.3, 0.2, 0.4, 0.1],
        },
    }
    checkpoints = ["C1", "C2", "C3", "C4", "C5"]
    path = plots.plot_checkpoint_curves(checkpoints, panels, tmp_path / "dm.png", title="t")
    assert _is_png(path)
    axes = saved[path].axes
    assert [ax.get_title() for ax in axes] == list(panels)
    assert [_lines(ax) for ax in axes] == list(panels.values())
    assert [t.get_text() for t in axes[0].get_xticklabels()] == checkpoints


def test_latency_distribution(tmp_path, saved):
    latencies = {"bm25": [0.4, 1.2, 0.9, 350.0], "dense": [12.0, 15.0, 1100.0], "empty": []}
    path = plots.plot_latency_distribution(latencies, tmp_path / "lat.png", title="t")
    assert _is_png(path)
    (ax,) = saved[path].axes
    assert [t.get_text() for t in ax.get_yticklabels()] == ["bm25", "dense"]  # no box without data
    # Horizontal boxes: a median is a vertical segment at the median latency, centred on its row.
    rows = dict(zip((t.get_text() for t in ax.get_yticklabels()), ax.get_yticks(), strict=True))
    vertical = {
        (round(line.get_xdata()[0], 6), round(sum(line.get_ydata()) / 2, 6))
        for line in ax.lines
        if len(set(line.get_xdata())) == 1
    }
    assert {(1.05, rows["bm25"]), (15.0, rows["dense"])} <= vertical  # the two medians
    assert {300.0, 500.0, 1000.0} <= {x for x, _ in vertical}  # the penalty bands
    assert ax.get_xscale() == "log"
    empty = plots.plot_latency_distribution({}, tmp_path / "none.png", title="no searches")
    assert _is_png(empty)
    assert not saved[empty].axes[0].patches and len(saved[empty].axes[0].lines) == 3  # the bands alone


def test_same_data_same_bytes(tmp_path):
    # No timestamp or software tag in the PNG: committed results change only when their numbers do.
    a = plots.plot_task_bars({"x": {"ER": 0.5}}, ("ER",), tmp_path / "a.png", title="t")
    b = plots.plot_task_bars({"x": {"ER": 0.5}}, ("ER",), tmp_path / "b.png", title="t")
    c = plots.plot_task_bars({"x": {"ER": 0.6}}, ("ER",), tmp_path / "c.png", title="t")
    assert a.read_bytes() == b.read_bytes() != c.read_bytes()


def test_failure_stage_bars(tmp_path, saved):
    outcomes = ("encoded", "maintained", "retrieved", "answered", "none")
    shares = {
        "bm25": {"ER": dict.fromkeys(outcomes, 0.2), "Del": {"maintained": 1.0}},
        "temporal_kg_oracle": {"ER": {"none": 1.0}},
    }
    path = plots.plot_failure_stages(
        shares, ("ER", "Agg", "Del"), outcomes, tmp_path / "stages.png", title="t"
    )
    assert _is_png(path)
    axes = saved[path].axes
    assert [ax.get_title() for ax in axes] == ["ER", "Del"]  # no system has Agg: no panel
    labels = ["encoded", "maintained", "retrieved", "answered", "passed"]

    def stacks(ax) -> dict[str, list[tuple[float, float]]]:
        """Outcome label -> (bottom, height) of each system's bar, pipeline order bottom first."""
        return {
            c.get_label(): [(round(p.get_y(), 6), round(p.get_height(), 6)) for p in c.patches]
            for c in ax.containers
        }

    er, dele = map(stacks, axes)
    assert list(er) == labels
    # bm25: five 0.2 shares stacked; temporal_kg_oracle: all passed.
    assert er == {
        label: [(round(0.2 * i, 6), 0.2), (0.0, 1.0 if label == "passed" else 0.0)]
        for i, label in enumerate(labels)
    }
    assert dele["maintained"] == [(0.0, 1.0), (0.0, 0.0)]
    assert [h for label in labels for _, h in dele[label]] == [0, 0, 1, 0, 0, 0, 0, 0, 0, 0]
    assert [t.get_text() for t in axes[0].get_xticklabels()] == ["bm25", "temporal_kg_oracle"]


def test_equal_series_stay_visible_with_distinct_styles_and_bands(tmp_path, saved):
    # bm25 and dense score the same at every k: each line must still be told apart in the figure.
    same = [0.5, 0.75, 1.0]
    panels = {"ER": {"bm25": same, "dense": list(same)}}
    bands = {"ER": {"bm25": [(0.3, 0.7), (0.6, 0.9), (1.0, 1.0)], "dense": [None, (0.5, 1.0), None]}}
    path = plots.plot_sweep_curves([1, 5, 10], panels, tmp_path / "k.png", title="t", xlabel="k", bands=bands)
    (ax,) = saved[path].axes
    bm25, dense = ax.lines
    assert _ys(bm25) == _ys(dense) == same
    assert bm25.get_marker() != dense.get_marker()
    assert bm25.get_linestyle() != dense.get_linestyle()
    assert bm25.get_markersize() > dense.get_markersize()  # the one drawn first shows around the other
    # One shaded band per series with an interval, around its own line.
    assert len(ax.collections) == 2
    low, high = ax.collections[0].get_paths()[0].get_extents().get_points()[:, 1]
    assert (low, high) == pytest.approx((0.3, 1.0))


def test_rate_against_context(tmp_path, saved):
    series = {
        "bm25": [
            {"x": 120.0, "y": 0.2, "lo": 0.1, "hi": 0.3, "label": "128"},
            {"x": 900.0, "y": 0.9, "lo": 0.8, "hi": 1.0, "label": "1024"},
        ],
        "graphiti": [{"x": 30.0, "y": 0.1, "label": "128"}, {"x": None, "y": 0.5, "label": "1024"}],
    }
    path = plots.plot_rate_against_context(series, tmp_path / "ctx.png", title="t", ylabel="overall [rule]")
    assert _is_png(path)
    (ax,) = saved[path].axes
    assert ax.get_xscale() == "log" and ax.get_ylabel() == "overall [rule]"
    # One error-bar container per system: its line through the points and a vertical bar per interval.
    found = {c.get_label(): c.lines for c in ax.containers}
    line, _, (bars,) = found["bm25"]
    assert list(line.get_xdata()) == [120.0, 900.0] and _ys(line) == [0.2, 0.9]
    segments = [[tuple(map(float, p)) for p in s] for s in bars.get_segments()]
    assert segments == [[(120.0, 0.1), (120.0, 0.3)], [(900.0, 0.8), (900.0, 1.0)]]
    assert list(found["graphiti"][0].get_xdata()) == [30.0]  # a point without tokens is not drawn
    assert sorted(t.get_text() for t in ax.texts) == ["1024", "128", "128"]
