"""Per-unit usage is exact: the unit that caused a count owns it, whatever runs beside it.

The same seeded MEME config runs with one worker and with four, on the real embedder and the real LLM
client over the scripted replay server (tests/fakes.py). Per-unit usage (wall times aside) must be
identical, and the units' sums must equal what the shared embedder and the endpoint really did.
"""

from __future__ import annotations

import pytest

import memsuite.eval.run.runner as runner
from memsuite.eval.run.config import config_from_dict
from memsuite.eval.run.runner import run
from memsuite.memory_systems.embedder import Embedder

SYSTEMS = ["dense", "llm_extraction", "md_flat"]
EPISODES = 4
COUNTS = (
    "llm_calls",
    "prompt_tokens",
    "completion_tokens",
    "llm_failures",
    "cache_hits",
    "embedding_calls",
    "embedded_texts",
)


def _counts(usage: dict) -> tuple[int, ...]:
    return tuple(usage[name] for name in COUNTS)


def _sum(per_unit: dict, name: str) -> int:
    return sum(counts[COUNTS.index(name)] for counts in per_unit.values())


@pytest.fixture
def made_embedders(monkeypatch):
    """Every embedder the runner builds, to read the run's true total from it afterwards."""
    made: list[Embedder] = []

    class Recorded(Embedder):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(runner, "Embedder", Recorded)
    return made


def test_usage_per_unit_is_the_same_with_one_or_four_workers(tmp_path, replay_llm, made_embedders):
    llm = replay_llm()  # scripted defaults: the user's sentences become facts / lines
    config = config_from_dict(
        {
            "benchmark": "meme",
            "systems": SYSTEMS,
            "k": 2,
            "internal_llm": {"model": "replay", "base_url": llm.server.base_url, "api_key_env": None},
            "benchmark_options": {"episodes": EPISODES, "filler": "none", "seed": 3, "snapshots": False},
        }
    )
    per_run, sent = {}, []
    for workers in (1, 4):
        before = len(llm.server.endpoint.requests)
        out = tmp_path / f"w{workers}"
        folder = run(config, out_dir=out, cache_dir=None, show_progress=False, workers=workers)
        sent.append(len(llm.server.endpoint.requests) - before)
        units = folder.units()
        assert len(units) == len(SYSTEMS) * EPISODES and all(u.status == "done" for u in units)
        per_unit = {(u.system, u.unit_id): _counts(u.usage) for u in units}
        per_run[workers] = per_unit

        # The run's totals are the sums of its units, and those are what really happened.
        summary = folder.summary()
        for system in SYSTEMS:
            summed = [sum(c[i] for (s, _), c in per_unit.items() if s == system) for i in range(len(COUNTS))]
            assert list(_counts(summary[system]["usage"])) == summed, system
        total = made_embedders[-1].usage
        assert _sum(per_unit, "embedded_texts") == total.embedded_texts
        assert _sum(per_unit, "embedding_calls") == total.embedding_calls
        assert _sum(per_unit, "llm_calls") == sent[-1] - 1  # and the run's one preflight request

    assert per_run[1] == per_run[4]
    assert sent[0] == sent[1] > 0
    # Every system did work in every unit: a unit that counted nothing would make equality trivial.
    dense = [c for (s, _), c in per_run[1].items() if s == "dense"]
    assert all(c[COUNTS.index("embedded_texts")] > 0 for c in dense)
    assert all(c[COUNTS.index("llm_calls")] > 0 for (s, _), c in per_run[1].items() if s != "dense")
