"""Signal set-up for the child processes tests start."""

from __future__ import annotations

import signal


def restore_default_sigint() -> None:
    """``preexec_fn`` that gives a child the default SIGINT handling.

    A child inherits an ignored SIGINT, and then a Python child installs no KeyboardInterrupt handler.
    A background ``make test`` of a non-interactive shell runs with SIGINT ignored; a terminal's does not.
    The tests that send SIGINT want the terminal's behaviour wherever the suite runs.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def gone(pid: int) -> bool:
    """True once ``pid`` has exited (a zombie awaiting its reaper counts as gone; Linux's /proc)."""
    from pathlib import Path

    try:
        return "\nState:\tZ" in Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
