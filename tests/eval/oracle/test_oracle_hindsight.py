"""Hindsight through the oracle endpoint: hindsight-api-slim 1.1.0's fact-extraction prompt recognised
by markers pinned to its source (in Hindsight's own venv) and answered from MEME gold, a reworded prompt
refused, and a whole generated episode retained by Hindsight's own server and answered: no failed call,
a row per question, the evidence of at least half of them handed over."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import yaml

# importing the adapter registers "hindsight" (an installed checkout's entry points may predate it)
from memsuite.baselines.adapters.hindsight import hindsight_python, postgres_bin
from memsuite.eval.benchmarks.meme.generator import generate_episodes
from memsuite.eval.oracle.kinds import PromptKind, check_kinds
from memsuite.eval.oracle.prompts import hindsight as hindsight_kinds
from memsuite.memory_systems.errors import ConfigError, MissingDependencyError

try:
    postgres_bin(hindsight_python())
except MissingDependencyError as missing:
    if os.environ.get("CI"):
        raise
    pytest.skip(f"needs Hindsight's own venv: run `make hindsight` ({missing})", allow_module_level=True)


@pytest.fixture(scope="module")
def meme_episodes():
    return generate_episodes(1, filler="none", seed=5)


def test_kinds_are_pinned_to_the_source_in_hindsights_venv():
    check_kinds(hindsight_kinds.KINDS, [hindsight_kinds.LIBRARY])
    (kind,) = hindsight_kinds.KINDS
    moved = PromptKind(
        kind.name, kind.markers, kind.reply, kind.library, "1.0.9", kind.sources, roles=kind.roles
    )
    with pytest.raises(ConfigError, match=r"hindsight-api-slim 1\.1\.0 is installed.*1\.0\.9"):
        check_kinds([moved], [hindsight_kinds.LIBRARY])
    gone = ("a prompt Hindsight never wrote",)
    changed = PromptKind(kind.name, gone, kind.reply, kind.library, "1.1.0", kind.sources, roles=kind.roles)
    with pytest.raises(ConfigError, match="the prompt changed"):
        check_kinds([changed], [hindsight_kinds.LIBRARY])


def test_a_reworded_prompt_is_refused(meme, oracle):
    episode = next(iter(meme.episodes.values()))
    turn = next(s for s in episode.phase_sessions("before") if s.gold_facts).conversation[0].content
    messages = [
        {"role": "system", "content": "Extract the significant facts from this text."},
        {"role": "user", "content": f"Extract facts from the following chunk.\n\nContent:\nuser: {turn}"},
    ]
    result = oracle.for_system(f"hindsight@{episode.episode_id}").chat_json(messages, phase="ingest")
    assert result.failure is not None and result.failure.status_code == 422


def test_an_episode_through_hindsights_own_server_and_the_oracle(tmp_path):
    config = {
        "benchmark": "meme",
        "name": "hindsight_oracle",
        "systems": ["hindsight"],
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
    assert header["packages"]["hindsight-api-slim"] == "1.1.0"
    served = header["oracle_llm"]["served"]
    assert not any(k.endswith(":refused") or k == "unrecognised" for k in served["kinds"]), served
    assert served["kinds"].get("hindsight.extract_facts", 0) >= 1, served
    (unit,) = [json.loads(line) for line in (out / "units.jsonl").open(encoding="utf-8")]
    assert unit["usage"]["llm_failures"] == 0
    assert unit["usage"]["llm_calls"] == served["accounts"][f"hindsight@{unit['unit_id']}"]["calls"]
    rows = [json.loads(line) for line in (out / "rows.jsonl").open(encoding="utf-8")]
    assert rows and all(row["metadata"]["ingest_failures"] == 0 for row in rows)
    evidence = [bool(row["verdicts"]["evidence"]["correct"]) for row in rows]
    assert sum(evidence) >= len(evidence) / 2, evidence
