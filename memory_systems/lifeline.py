"""Child processes that die with their parent, however the parent ends (SIGKILL included).

Linux's ``PR_SET_PDEATHSIG`` follows the parent *thread*, so a server started from a pool thread
would either die when that thread retires or, unbound, outlive a killed run at full CPU. Instead the
child watches its parent: :func:`command` wraps a child's command line so that it starts under this
file run as a script, which starts a watcher thread and then runs the real program in the same
process. When the parent is gone (the child's parent pid changes), the watcher kills the child's whole
process group, so helpers the child started itself (a library's database workers) go too.

This file imports only the standard library and is run by path, not by package: a child running under
another Python (a library's own venv) uses it unchanged.

    python lifeline.py PARENT_PID -m package.module ARGS...   # like python -m package.module ARGS
    python lifeline.py PARENT_PID path/to/script.py ARGS...   # like python path/to/script.py ARGS

Started with ``start_new_session=True`` (see :func:`popen_options`), the child leads its own process
group; :func:`kill_group` ends it, helpers included.
"""

from __future__ import annotations

import contextlib
import os
import runpy
import signal
import sys
import threading
import time
from pathlib import Path

#: How often the child looks for its parent: the longest an orphan lives.
POLL_S = 0.5


def command(python: str | Path, args: list[str], *, isolated: bool = False) -> list[str]:
    """The command line that runs ``python ARGS`` under the lifeline of this process.

    Args:
        python: The interpreter of the child (the project's or a library's own venv).
        args: What follows the interpreter: ``["-m", "module", ...]`` or ``["script.py", ...]``.
        isolated: Run with ``-I`` (no user site, no environment paths, the script's folder off
            ``sys.path``).
    """
    return [str(python), *(["-I"] if isolated else []), __file__, str(os.getpid()), *args]


def popen_options() -> dict[str, object]:
    """``subprocess.Popen`` keywords for a lifeline child: its own session and process group (so a
    Ctrl-C in the terminal reaches only the parent, which stops the child in order)."""
    return {"start_new_session": True}


def kill_group(pid: int) -> None:
    """SIGKILL the process group led by ``pid`` (a child started with :func:`popen_options`)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):  # already gone
        os.killpg(pid, signal.SIGKILL)


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(POLL_S)
    group = os.getpgrp()
    if group == os.getpid():  # a group leader: take the helpers it started with it
        os.killpg(group, signal.SIGKILL)
    os.kill(os.getpid(), signal.SIGKILL)


def main(argv: list[str]) -> None:
    if len(argv) < 2:
        raise SystemExit("usage: lifeline.py PARENT_PID (-m MODULE | SCRIPT) [ARGS...]")
    parent = int(argv[0])
    threading.Thread(target=_watch, args=(parent,), daemon=True, name="lifeline").start()
    if argv[1] == "-m":
        sys.argv = [argv[2], *argv[3:]]
        runpy.run_module(argv[2], run_name="__main__", alter_sys=True)
    else:
        sys.argv = argv[1:]
        runpy.run_path(argv[1], run_name="__main__")


if __name__ == "__main__":
    # Run as a script, this file's folder leads sys.path: drop it, so that its modules (the package's
    # own) cannot shadow the program's.
    here = Path(__file__).resolve().parent
    sys.path[:] = [p for p in sys.path if not p or Path(p).resolve() != here]
    main(sys.argv[1:])
