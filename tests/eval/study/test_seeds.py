"""``memsuite run --seeds``: one run per seed of generated data, and the headline's mean and spread."""

from __future__ import annotations

import csv
import io
import statistics

import pytest
import yaml

from memsuite.eval.cli.main import main
from memsuite.eval.run.config import config_from_dict
from memsuite.eval.study.seeds import seed_config
from memsuite.memory_systems.errors import ConfigError


def test_runs_per_seed_and_tabulates_mean_and_spread(tmp_path, capsys):
    config = tmp_path / "c.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "benchmark": "meme",
                "name": "tiny",
                "systems": ["bm25"],
                "judges": [],
                "k": 1,
                "benchmark_options": {"episodes": 1, "filler": "none", "seed": 0},
            }
        )
    )
    out = tmp_path / "out"
    code = main(["run", str(config), "--out", str(out), "--seeds", "0", "1", "2", "--quiet", "--no-cache"])
    assert code == 0
    assert [p.name for p in sorted(out.glob("seed-*"))] == ["seed-0", "seed-1", "seed-2"]
    (record,) = csv.DictReader(io.StringIO((out / "seeds.csv").read_text()))
    values = [float(record[f"seed {s}"]) for s in (0, 1, 2)]
    assert float(record["mean"]) == pytest.approx(statistics.fmean(values), abs=1e-5)
    assert float(record["sd"]) == pytest.approx(statistics.stdev(values), abs=1e-5)
    assert record["seeds"] == "3"
    assert "Headline across seeds: Overall (mean of the task rates) [evidence]" in capsys.readouterr().out


def test_released_data_is_refused(fetched_catalogue):
    config = config_from_dict({"benchmark": "locomo", "systems": ["bm25"], "judges": []})
    with pytest.raises(ConfigError, match="does not generate its data"):
        seed_config(config, 1)
