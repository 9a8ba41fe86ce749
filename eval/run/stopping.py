"""Ctrl-C and SIGTERM during a run: a clean stop instead of a traceback.

While a run is going on, SIGINT and SIGTERM raise :class:`RunInterrupted` in the main thread; the runner
catches it, writes the finished units' summary and the header's ``interrupted`` status, and the command
line prints one line with the command that resumes the run, then exits ``128 + signal`` (130, 143). A unit
file is renamed into place only when complete, so an interrupt leaves each unit whole or absent.
"""

from __future__ import annotations

import os
import shlex
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class RunInterrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM arrived during a run (a KeyboardInterrupt: no ``except Exception`` swallows it)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def signal_name(self) -> str:
        return signal.Signals(self.signum).name

    @property
    def exit_code(self) -> int:
        """``128 + signal``, as a shell reports a process ended by it."""
        return 128 + self.signum


class _Interrupt:
    """The handler :func:`stop_on_signals` installs: the handlers it replaced come back, then it raises."""

    def __init__(self, previous: dict[int, Any]) -> None:
        self.previous = previous

    def __call__(self, signum: int, frame: Any) -> None:
        for other, handler in self.previous.items():
            signal.signal(other, handler)
        raise RunInterrupted(signum)


@contextmanager
def stop_on_signals() -> Iterator[None]:
    """Raise :class:`RunInterrupted` on SIGINT or SIGTERM inside the block (main thread only).

    A signal the process was started ignoring (``nohup``, a background job of a non-interactive shell)
    stays ignored. After the first signal the default handling returns, so a second Ctrl-C is never
    held up by the clean stop. A block inside another one (a run's setup around its unit loop) keeps
    the outer block's handlers, so that first signal still restores the process's own.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.getsignal(signum) for signum in STOP_SIGNALS}
    if any(isinstance(handler, _Interrupt) for handler in previous.values()):
        yield
        return
    interrupt = _Interrupt(previous)
    for signum, handler in previous.items():
        if handler is not signal.SIG_IGN:
            signal.signal(signum, interrupt)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def resume_command(argv: Sequence[str]) -> str:
    """The command line that resumes a run started with ``argv`` (``--restart`` left out)."""
    return shlex.join(["memsuite", *(arg for arg in argv if arg != "--restart")])


def interrupted_line(header: dict[str, Any], out: Path, argv: Sequence[str], *, command: str = "run") -> str:
    """The one line ``memsuite run`` (or ``command``, which wrote the folder) prints when a signal
    stopped it."""
    units = header.get("units") or {}
    done = units.get("done_after_stop", 0)
    return (
        f"{command} interrupted by {header.get('signal', 'a signal')}: {out} holds {done} of"
        f" {units.get('total', '?')} units done; resume with: {resume_command(argv)}"
    )


def say_interrupted(header: dict[str, Any], out: Path, argv: Sequence[str], *, command: str = "run") -> int:
    """Print :func:`interrupted_line`, end the process if unit threads are still running, and return
    the exit code (``128 + signal``)."""
    print(interrupted_line(header, out, argv, command=command), flush=True)
    leave_units_in_flight(exit_code(header))
    return exit_code(header)


def exit_code(header: dict[str, Any]) -> int:
    """``128 + signal`` of an interrupted run's header (130 for SIGINT, 143 for SIGTERM)."""
    return 128 + int(signal.Signals[header.get("signal", "SIGINT")])


def raise_if_interrupted(header: dict[str, Any]) -> None:
    """Raise :class:`RunInterrupted` again for a run a signal stopped, so callers looping over runs stop."""
    if header.get("status") == "interrupted":
        raise RunInterrupted(exit_code(header) - 128)


def leave_units_in_flight(code: int) -> None:
    """End the process now when unit threads are still running after a stop.

    Their results would be discarded anyway (only finished units are written, by the main thread);
    waiting for them could mean waiting on a slow endpoint for minutes.
    """
    if any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.main_thread()):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
