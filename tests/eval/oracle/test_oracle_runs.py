"""Library adapters end to end through the oracle endpoint over real HTTP, with the pinned versions:
every session is ingested by the library's own code, every question answered, and the unit's call
counts and tokens are exactly those the oracle server received."""

from __future__ import annotations

import json
from importlib.util import find_spec

import pytest

from memsuite.eval.run.config import config_from_dict
from memsuite.eval.run.runner import run


def _oracle_run(tmp_path, system: str):
    config = config_from_dict(
        {
            "benchmark": "meme",
            "name": f"{system}_oracle",
            "systems": [system],
            "k": 5,
            "answer_llm": "oracle",
            "judges": ["rule"],
            "benchmark_options": {"episodes": 1, "filler": "none", "seed": 0},
        },
        source="test",
    )
    folder = run(config, out_dir=tmp_path / "run", show_progress=False)
    return folder.header(), [json.loads(line) for line in (folder.path / "units.jsonl").open()], folder.rows()


def _check(header, units, rows, system: str, extract_kind: str) -> dict:
    assert header["status"] == "complete", header.get("errors")
    assert header["answer_llm"]["oracle"] is True and header["oracle_llm"]["roles"] == ["answer", "internal"]
    served = header["oracle_llm"]["served"]
    assert not any(kind.endswith(":refused") or kind == "unrecognised" for kind in served["kinds"]), served
    assert served["kinds"][extract_kind] >= 5  # one episode, five sessions: the library's extraction ran
    assert rows and all(row.metadata["oracle_llm"] == ["answer", "internal"] for row in rows)
    # Every stage up to the answer passes when the LLM is perfect: the library stored, kept and
    # retrieved what each question needs, and the answer is the gold (the answer ceiling).
    assert all(row.answer == row.gold for row in rows)
    (unit,) = units
    tally = served["accounts"][f"{system}@{unit['unit_id']}"]
    assert unit["usage"]["llm_calls"] == tally["calls"]
    assert unit["usage"]["prompt_tokens"] == tally["prompt_tokens"]
    assert unit["usage"]["completion_tokens"] == tally["completion_tokens"]
    assert unit["usage"]["llm_failures"] == 0
    return served


def test_mem0ai_ingests_and_answers_through_the_oracle(tmp_path):
    if find_spec("mem0") is None:  # found without importing it: the adapter turns telemetry off first
        pytest.skip("mem0ai (extra adapters) is not installed")
    header, units, rows = _oracle_run(tmp_path, "mem0ai")
    served = _check(header, units, rows, "mem0ai", "mem0.extract")
    assert served["kinds"]["mem0.extract"] == 5  # mem0 2.2.1: one add-only extraction call per session
    assert units[0]["usage"]["llm_calls"] == 5 + len(rows)
    # mem0 is add-only: an updated value is a new memory beside the old one, so evidence holds.
    assert sum(row.verdicts["evidence"]["correct"] for row in rows) >= len(rows) - 2


def test_graphiti_ingests_and_answers_through_the_oracle(tmp_path):
    if find_spec("graphiti_core") is None or find_spec("kuzu") is None:
        pytest.skip("graphiti-core (extra adapters) is not installed")
    header, units, rows = _oracle_run(tmp_path, "graphiti")
    served = _check(header, units, rows, "graphiti", "graphiti.extract_nodes")
    # graphiti 0.31.1's add_episode: node extraction and edge extraction once per session, and an
    # edge resolution per extracted fact, each reply validated against the call's response model.
    assert served["kinds"]["graphiti.extract_nodes"] == served["kinds"]["graphiti.extract_edges"] == 5
    assert served["kinds"]["graphiti.resolve_edge"] >= 5
    assert all(row.metadata["ingest_failures"] == 0 for row in rows)
    # The verbatim value (a password) comes back exactly from graphiti's own edge search.
    verbatim = [row for row in rows if row.metadata["task"] == "ER"]
    assert verbatim and all(row.verdicts["evidence"]["correct"] for row in verbatim)
