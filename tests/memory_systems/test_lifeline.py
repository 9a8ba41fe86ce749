"""A lifeline child dies with its parent, SIGKILL included, and takes the helpers it started with it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from child_signals import gone

from memsuite.memory_systems import lifeline

#: The child: starts a helper of its own (as cognee starts its database workers), reports both pids.
CHILD = """
import subprocess, sys, time
helper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
print(sys.argv[1], helper.pid, flush=True)
time.sleep(600)
"""

#: The parent: starts the child under its lifeline, passes the pids on, then waits to be killed.
PARENT = """
import subprocess, sys, time
from memsuite.memory_systems import lifeline
child = subprocess.Popen(
    lifeline.command(sys.executable, [sys.argv[1], "marker"]), stdout=subprocess.PIPE, text=True,
    **lifeline.popen_options(),
)
print(child.pid, child.stdout.readline().split()[1], flush=True)
time.sleep(600)
"""


def _waitgone(pids: list[int], timeout_s: float = 10.0) -> list[int]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and not all(gone(p) for p in pids):
        time.sleep(0.05)
    return [p for p in pids if not gone(p)]


def test_a_killed_parent_takes_the_child_and_its_helpers(tmp_path):
    child_script = tmp_path / "child.py"
    child_script.write_text(CHILD)
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, str(child_script)], stdout=subprocess.PIPE, text=True
    )
    child, helper = (int(pid) for pid in parent.stdout.readline().split())
    assert not gone(child) and not gone(helper)
    parent.kill()  # SIGKILL: no cleanup runs in the parent
    parent.wait()
    left = _waitgone([child, helper])
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert not left, "the lifeline child or its helper outlived the killed parent"


def test_the_program_sees_its_own_arguments_and_module_mode(tmp_path):
    script = tmp_path / "show.py"
    script.write_text("import sys; print(sys.argv)")
    out = subprocess.run(
        lifeline.command(sys.executable, [str(script), "a", "b"]), capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == repr([str(script), "a", "b"])
    out = subprocess.run(
        lifeline.command(sys.executable, ["-m", "json.tool", "--compact"]),
        input='{"a": [1, 2]}',
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == '{"a":[1,2]}'


def test_kill_group_ends_the_child_and_its_helpers(tmp_path):
    child_script = tmp_path / "child.py"
    child_script.write_text(CHILD)
    child = subprocess.Popen(
        lifeline.command(sys.executable, [str(child_script), "marker"]),
        stdout=subprocess.PIPE,
        text=True,
        **lifeline.popen_options(),
    )
    helper = int(child.stdout.readline().split()[1])
    lifeline.kill_group(child.pid)
    child.wait(timeout=10)
    assert not _waitgone([helper])
    lifeline.kill_group(child.pid)  # a group already gone is no error
