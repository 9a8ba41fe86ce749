"""The run's top-level seed has one meaning: a generated benchmark's data seed (unless the options
give one), recorded in the header; two different seeds are refused before anything starts."""

from __future__ import annotations

import pytest

from memsuite.eval.registry import seeded_options
from memsuite.eval.run.config import config_from_dict
from memsuite.eval.run.runner import run
from memsuite.eval.run.validate import validate_config
from memsuite.memory_systems.errors import ConfigError


def _config(seed: int, options_seed: int | None = None):
    options = {"episodes": 1, "filler": "none"}
    if options_seed is not None:
        options["seed"] = options_seed
    return config_from_dict(
        {"benchmark": "meme", "systems": ["bm25"], "judges": [], "seed": seed, "benchmark_options": options}
    )


def test_the_top_level_seed_seeds_generated_data(tmp_path):
    folders = [run(_config(seed), out_dir=tmp_path / f"s{seed}", show_progress=False) for seed in (0, 3)]
    options = [f.header()["config"]["benchmark_options"] for f in folders]
    assert [o["seed"] for o in options] == [0, 3]
    questions = [sorted(row.question for row in f.rows()) for f in folders]
    assert questions[0] != questions[1]  # a different seed, different generated episode


def test_the_options_seed_wins_over_the_default_and_a_disagreement_is_refused():
    assert seeded_options("meme", {"seed": 5}, 0) == {"seed": 5}
    assert seeded_options("meme", {}, 2) == {"seed": 2}
    assert seeded_options("locomo", {}, 2) == {}  # real data: the seed only orders LoCoMo's options
    with pytest.raises(ConfigError, match=r"seed: seed 1 and benchmark_options\.seed 5 disagree"):
        validate_config(_config(1, options_seed=5))
