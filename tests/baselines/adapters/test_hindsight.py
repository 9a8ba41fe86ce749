"""The Hindsight adapter's server has deadlines: one that never comes up or never answers fails the
call by name, is killed with every process it started, and stays failed; a context budget is recall's
``max_tokens``. These run without Hindsight's venv (a stand-in server, tests/silent_hindsight_server.py).
With the venv, the real server (PostgreSQL as its own user and hindsight-api) dies with a parent that is
killed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memsuite.baselines.adapters import hindsight
from memsuite.memory_systems.errors import MissingDependencyError, SystemTimeoutError


def test_a_server_that_never_comes_up_fails_the_start_by_name(silent_hindsight, embedder):
    silent_hindsight("mute")
    started = time.monotonic()
    with pytest.raises(SystemTimeoutError, match=r"system 'hindsight' gave no answer within 1\.5 s in start"):
        hindsight.HindsightMemory(embedder=embedder, startup_timeout_s=1.5)
    assert time.monotonic() - started < 30


def test_a_server_that_never_answers_fails_the_call_by_name(silent_hindsight, embedder):
    silent_hindsight("stall")
    system = hindsight.HindsightMemory(embedder=embedder, call_timeout_s=1.5)
    server = system._server
    started = time.monotonic()
    with pytest.raises(SystemTimeoutError, match=r"system 'hindsight' gave no answer within 1\.5 s in store"):
        system.store(["The ferry leaves at noon."], namespace="a")
    assert time.monotonic() - started < 30
    assert server.process.poll() is not None  # killed, not left running
    started = time.monotonic()
    with pytest.raises(hindsight.HindsightError, match="server has stopped"):  # and stays failed, at once
        system.store(["The ferry leaves at one."], namespace="a")
    assert time.monotonic() - started < 1.5
    system.close()


def test_the_deadlines_are_settings_that_must_be_positive(silent_hindsight, embedder):
    silent_hindsight("stall")
    for setting in ("call_timeout_s", "startup_timeout_s"):
        with pytest.raises(hindsight.InvalidInputError, match=setting):
            hindsight.HindsightMemory(embedder=embedder, **{setting: 0})
    system = hindsight.HindsightMemory(embedder=embedder, call_timeout_s=7, startup_timeout_s=30)
    assert system.params()["call_timeout_s"] == 7.0 and system.params()["startup_timeout_s"] == 30.0
    system.close()


def test_the_context_budget_is_recalls_max_tokens(silent_hindsight, embedder):
    silent_hindsight("stall")
    with pytest.raises(hindsight.InvalidInputError, match="context_tokens"):
        hindsight.HindsightMemory(embedder=embedder, context_tokens=0)
    system = hindsight.HindsightMemory(embedder=embedder, context_tokens=512)
    scope = hindsight.scope_id("a")
    system._records[scope] = {"m1": hindsight.MemoryRecord("m1", "The ferry leaves at noon.", "a")}
    asked = []
    facts = [
        {"id": "f1", "text": "The ferry leaves at noon.", "document_id": "m1"},
        {"id": "f2", "text": "A fact of a memory another adapter holds.", "document_id": "other"},
        {"id": "f3", "text": "The ferry is blue.", "document_id": "m1"},
    ]

    def call(method, path, body, **kwargs):
        asked.append(body)
        return 200, {"results": facts}

    system._server.call = call
    (hit,) = system.search("ferry", k=3, namespace="a")
    assert asked[0]["max_tokens"] == 512
    # one hit per memory: its recalled facts, in recall's order
    assert hit.id == "m1" and hit.text == "The ferry leaves at noon.\nThe ferry is blue."
    assert hit.metadata["fact_ids"] == ["f1", "f3"]
    system._records.clear()
    system.close()


def _real_server() -> None:
    try:
        hindsight.postgres_bin(hindsight.hindsight_python())
    except MissingDependencyError as missing:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"needs Hindsight's own venv: run `make hindsight` ({missing})")


_PARENT = """
import json, sys
from memsuite.baselines.adapters import hindsight
system = hindsight.HindsightMemory()
group = system._server.process.pid
pids = [int(p) for p in open(f"/proc/{group}/task/{group}/children").read().split()]
print(json.dumps({"group": group, "children": pids}), flush=True)
sys.stdin.read()
"""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_the_real_server_dies_with_a_killed_parent(tmp_path):
    _real_server()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "MEMSUITE_HINDSIGHT_LINGER_S": "0"}
    parent = subprocess.Popen(
        [sys.executable, "-c", _PARENT], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True
    )
    line = parent.stdout.readline()
    assert line, "the parent did not start Hindsight's server"
    started = json.loads(line)
    processes = [started["group"], *started["children"]]  # the script, PostgreSQL and hindsight-api
    assert len(processes) == 3 and all(_alive(pid) for pid in processes)
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 15
    while any(_alive(pid) for pid in processes) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(_alive(pid) for pid in processes)
