"""Every plot function writes a non-empty PNG, headless, with gaps (None) and n/a cells in its data."""

from __future__ import annotations

from eval import plots

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _is_png(path) -> bool:
    data = path.read_bytes()
    return data.startswith(PNG_MAGIC) and len(data) > 2000


def test_task_bars_with_reference_and_missing_values(tmp_path):
    scores = {
        "bm25": {"ER": 1.0, "Agg": 0.5, "Del": "n/a", "Overall": "n/a"},
        "dense": {"ER": 0.9, "Agg": None, "Del": "n/a", "Overall": "n/a"},
    }
    reference = {"BM25 (paper)": {"ER": 1.0, "Agg": 0.05, "Del": 0.27, "Overall": 0.25}}
    path = plots.plot_task_bars(
        scores, ("ER", "Agg", "Del", "Overall"), tmp_path / "bars.png", title="t", reference=reference
    )
    assert path == tmp_path / "bars.png" and _is_png(path)


def test_sweep_curves_numeric_and_categorical(tmp_path):
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


def test_checkpoint_curves(tmp_path):
    panels = {
        "State Completion": {"rag": [0.7, 0.6, 0.65, None, 0.5]},
        "retained vs updated: State Completion": {
            "rag retained": [None, 0.8, 0.7, 0.7, 0.6],
            "rag updated": [None, 0.3, 0.2, 0.4, 0.1],
        },
    }
    path = plots.plot_checkpoint_curves(
        ["C1", "C2", "C3", "C4", "C5"], panels, tmp_path / "dm.png", title="t"
    )
    assert _is_png(path)


def test_latency_distribution(tmp_path):
    path = plots.plot_latency_distribution(
        {"bm25": [0.4, 1.2, 0.9, 350.0], "dense": [12.0, 15.0, 1100.0], "empty": []},
        tmp_path / "lat.png",
        title="t",
    )
    assert _is_png(path)
    assert _is_png(plots.plot_latency_distribution({}, tmp_path / "none.png", title="no searches"))


def test_same_data_same_bytes(tmp_path):
    # No timestamp or software tag in the PNG: committed results change only when their numbers do.
    a = plots.plot_task_bars({"x": {"ER": 0.5}}, ("ER",), tmp_path / "a.png", title="t")
    b = plots.plot_task_bars({"x": {"ER": 0.5}}, ("ER",), tmp_path / "b.png", title="t")
    assert a.read_bytes() == b.read_bytes()


def test_failure_stage_bars(tmp_path):
    outcomes = ("encoded", "maintained", "retrieved", "answered", "none")
    shares = {
        "bm25": {"ER": dict.fromkeys(outcomes, 0.2), "Del": {"maintained": 1.0}},
        "temporal_kg_oracle": {"ER": {"none": 1.0}},
    }
    path = plots.plot_failure_stages(
        shares, ("ER", "Agg", "Del"), outcomes, tmp_path / "stages.png", title="t"
    )
    assert _is_png(path)
