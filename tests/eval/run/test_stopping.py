"""Ctrl-C and SIGTERM on a real ``memsuite run`` subprocess: one line, status ``interrupted``, exit 130 /
143, and a resume that ends with the rows of an uninterrupted run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from child_signals import restore_default_sigint
from meme_configs import bm25_meme_config

from memsuite.eval.analysis.row_diff import diff_rows, identical, read_rows
from memsuite.eval.run.folder import WRITE_DELAY_ENV
from memsuite.eval.run.stopping import RunInterrupted, interrupted_line, resume_command, stop_on_signals

REPO = Path(__file__).resolve().parents[3]
EPISODES = 6


def _start(config: Path, out: Path, *, slow: bool = False) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(REPO), **({WRITE_DELAY_ENV: "0.05"} if slow else {})}
    command = [sys.executable, "-m", "memsuite", "run", str(config), "--out", str(out)]
    command += ["--quiet", "--no-cache"]
    return subprocess.Popen(
        command,
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=restore_default_sigint,
    )


def _finish(proc: subprocess.Popen) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=180)
    return proc.returncode, out, err


@pytest.fixture(scope="module")
def meme_config(tmp_path_factory) -> Path:
    return bm25_meme_config(tmp_path_factory.mktemp("stop"), "stop", episodes=EPISODES, seed=5)


@pytest.fixture(scope="module")
def reference(meme_config, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("reference") / "run"
    code, _, err = _finish(_start(meme_config, out))
    assert code == 0, err
    return out


def _interrupt_after_first_unit(proc: subprocess.Popen, out: Path, signum: int) -> None:
    end = time.monotonic() + 120
    while not list((out / "units").glob("*/*.jsonl")) and proc.poll() is None and time.monotonic() < end:
        time.sleep(0.01)
    assert proc.poll() is None, "the run ended before it could be interrupted"
    proc.send_signal(signum)


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_stops_the_run_cleanly_and_a_resume_gives_the_uninterrupted_rows(
    meme_config, reference, tmp_path, signum, code
):
    out = tmp_path / "run"
    proc = _start(meme_config, out, slow=True)
    _interrupt_after_first_unit(proc, out, signum)
    returncode, stdout, stderr = _finish(proc)

    assert returncode == code, stderr
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr, stderr
    (line,) = stdout.splitlines()  # one line: where it stopped and how to resume
    header = json.loads((out / "run.json").read_text())
    assert header["status"] == "interrupted" and header["signal"] == signal.Signals(signum).name
    done = header["units"]["done_after_stop"]
    assert 1 <= done < EPISODES
    name = signal.Signals(signum).name
    assert line.startswith(f"run interrupted by {name}: {out} holds {done} of {EPISODES} units done")
    assert line.endswith(f"resume with: memsuite run {meme_config} --out {out} --quiet --no-cache")
    assert not list((out / "units").glob("*/.*.tmp"))  # no unit half-visible
    assert len(list((out / "units").glob("*/*.jsonl"))) == done

    returncode, stdout, stderr = _finish(_start(meme_config, out))
    assert returncode == 0, stderr
    assert f"resuming {out}: {done} of {EPISODES} units already done, {EPISODES - done} to run" in stderr
    assert json.loads((out / "run.json").read_text())["status"] == "complete"
    result = diff_rows(read_rows(reference), read_rows(out))
    assert identical(result), result  # identical rows, timings aside


def test_a_rerun_of_a_finished_run_says_so_and_recomputes_nothing(meme_config, reference, tmp_path):
    units = sorted((reference / "units").glob("*/*.jsonl"))
    before = [p.stat().st_mtime_ns for p in units]
    returncode, _, stderr = _finish(_start(meme_config, reference))
    assert returncode == 0, stderr
    assert f"found a finished run in {reference} (all {EPISODES} units done): nothing recomputed" in stderr
    assert [p.stat().st_mtime_ns for p in units] == before


def test_the_resume_command_leaves_restart_out():
    argv = ["run", "configs/x.yaml", "--restart", "--set", "k=3 ", "--out", "runs/a b"]
    assert resume_command(argv) == "memsuite run configs/x.yaml --set 'k=3 ' --out 'runs/a b'"
    header = {"signal": "SIGTERM", "units": {"total": 4, "done_after_stop": 1}}
    line = interrupted_line(header, Path("runs/x"), ["run", "x"])
    assert line == "run interrupted by SIGTERM: runs/x holds 1 of 4 units done; resume with: memsuite run x"


def test_a_guard_inside_another_keeps_the_outer_handlers():
    """A run's setup guard around its unit loop's: the first signal gives the process's own handlers
    back, whichever block it arrives in."""
    original = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with stop_on_signals():
            outer = signal.getsignal(signal.SIGINT)
            with pytest.raises(RunInterrupted), stop_on_signals():
                assert signal.getsignal(signal.SIGINT) is outer
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(1)
            assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
            assert signal.getsignal(signal.SIGTERM) is original[signal.SIGTERM]
    finally:
        for signum, handler in original.items():
            signal.signal(signum, handler)
