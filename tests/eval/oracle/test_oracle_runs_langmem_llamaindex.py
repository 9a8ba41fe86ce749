"""langmem and LlamaIndex Memory end to end through the oracle endpoint: ``memsuite run`` (a subprocess,
so its exit status counts) with ``internal_llm: oracle`` and ``answer_llm: oracle`` ingests a generated
MEME episode without filler through each library's own code and answers every question."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.util import find_spec

import pytest
import yaml

SYSTEMS = ("langmem", "llamaindex_memory")
#: The prompt kind each library's ingestion must have been served (its extraction ran).
EXTRACTION = {"langmem": "langmem.extract", "llamaindex_memory": "llamaindex.extract_facts"}


def test_langmem_and_llamaindex_ingest_and_answer_through_the_oracle(tmp_path):
    if find_spec("langmem") is None or find_spec("llama_index") is None:
        pytest.skip("langmem / llama-index-core (extras langmem, llamaindex) are not installed")
    config = {
        "benchmark": "meme",
        "name": "libraries_oracle",
        "systems": list(SYSTEMS),
        "k": 5,
        "internal_llm": "oracle",
        "answer_llm": "oracle",
        "judges": ["rule"],
        "benchmark_options": {"episodes": 1, "filler": "none", "seed": 0},
    }
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    out = tmp_path / "run"
    done = subprocess.run(
        [sys.executable, "-m", "memsuite", "run", str(path), "--out", str(out), "--quiet"],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    header = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert header["status"] == "complete"
    served = header["oracle_llm"]["served"]
    assert not any(k.endswith(":refused") or k == "unrecognised" for k in served["kinds"]), served
    units = [json.loads(line) for line in (out / "units.jsonl").open(encoding="utf-8")]
    rows = [json.loads(line) for line in (out / "rows.jsonl").open(encoding="utf-8")]
    for system in SYSTEMS:
        assert served["kinds"].get(EXTRACTION[system], 0) >= 1, served
        (unit,) = [u for u in units if u["system"] == system]
        tally = served["accounts"][f"{system}@{unit['unit_id']}"]
        assert unit["usage"]["llm_failures"] == 0
        assert unit["usage"]["llm_calls"] == tally["calls"]  # every call the server saw is accounted
        mine = [row for row in rows if row["system"] == system]
        assert mine and all(row["metadata"]["ingest_failures"] == 0 for row in mine)
        assert all(row["answer"] == row["gold"] for row in mine)  # the answer ceiling
        evidence = [bool(row["verdicts"]["evidence"]["correct"]) for row in mine]
        assert sum(evidence) / len(evidence) >= 0.5, (system, evidence)
