"""DynamicMem's gold for the oracle endpoint: the day sessions the protocol ingests, state facts whose
replay gives every asked key's gold value, and a run through the oracle with no refused call."""

from __future__ import annotations

import json

import pytest

from memsuite.eval.benchmarks.dynamicmem.oracle_gold import unit_gold, value_text
from memsuite.eval.benchmarks.dynamicmem.protocol import DynamicMemBenchmark
from memsuite.eval.oracle.run import gold_source
from memsuite.eval.registry import definition
from memsuite.eval.run.config import config_from_dict
from memsuite.eval.run.runner import run


@pytest.fixture(scope="module")
def benchmark():
    return DynamicMemBenchmark(users=1, months=6, seed=0, activity=0.5, ingest="session")


def test_the_spec_names_the_gold_reader():
    assert gold_source(definition("dynamicmem"), list) is unit_gold


def test_a_fact_names_the_weekdays_of_a_schedule():
    # The events say "Tuesday"; a fact that said 1 would hold no weekday for a reader of its words.
    value = {
        "schedule": {"frequency_type": "weekly", "days_of_week": [0, 3]},
        "timing": {"start_time": "18:30"},
    }
    assert json.loads(value_text(value))["schedule"]["days_of_week"] == ["Monday", "Thursday"]
    monthly = {"schedule": {"day_of_week": 1, "week_of_month": 2}, "location": "The Copper Spoon"}
    assert json.loads(value_text(monthly))["schedule"] == {"day_of_week": "Tuesday", "week_of_month": 2}
    assert value_text("cycling") == "cycling"


def test_replaying_the_session_facts_gives_each_checkpoint_gold(benchmark):
    unit_id = benchmark.units()[0]
    user, gold = benchmark.user(unit_id), unit_gold(benchmark, unit_id)
    assert sum(len(s.turns) for s in gold.sessions) == user.visible_count(user.checkpoints[-1])
    held: dict[str, str] = {}
    sessions = iter(gold.sessions)
    seen = 0
    for cp in user.checkpoints:
        while seen < user.visible_count(cp):
            session = next(sessions)
            seen += len(session.turns)
            for fact in session.facts:
                if fact.kind == "delete":
                    held.pop(fact.entity)
                else:
                    assert fact.kind == ("update" if fact.entity in held else "state")
                    held[fact.entity] = fact.value
        keys = cp.completion_keys()
        assert keys
        for key in keys:
            assert held[key] == value_text(cp.gold_value(key)), (cp.label, key)
    # Each question's gold is the reply object its answer prompt asks for.
    first = gold.questions[0]
    (key,) = first.entities
    assert set(first.gold) == {"user_state", "evidence"} and key in first.gold["user_state"]
    with pytest.raises(KeyError):
        unit_gold(benchmark, "no_such_user")


def test_a_paradigm_ingests_day_sessions_and_answers_through_the_oracle(tmp_path):
    config = config_from_dict(
        {
            "benchmark": "dynamicmem",
            "name": "dm_oracle",
            "systems": ["temporal_kg"],
            "answer_llm": "oracle",
            "benchmark_options": {"users": 1, "months": 3, "seed": 0, "activity": 0.5, "ingest": "session"},
        },
        source="test",
    )
    folder = run(config, out_dir=tmp_path / "run", show_progress=False)
    header = folder.header
    assert header["status"] == "complete", header.get("errors")
    kinds = header["oracle_llm"]["served"]["kinds"]
    assert not any(kind.endswith(":refused") or kind == "unrecognised" for kind in kinds), kinds
    assert kinds["temporal_kg.extract"] > 0 and kinds["dynamicmem.completion"] > 0
    rows = folder.rows()
    assert rows and all(row.verdicts["rule"]["correct"] for row in rows)  # the answer ceiling
    (unit,) = [json.loads(line) for line in (folder.path / "units.jsonl").open()]
    tally = header["oracle_llm"]["served"]["accounts"][f"temporal_kg@{unit['unit_id']}"]
    assert unit["usage"]["llm_calls"] == tally["calls"] and unit["usage"]["llm_failures"] == 0
