"""The run-folder readers of the public surface: each run's scores read with its benchmark's layout.

:func:`memsuite.eval.run.folder.load_run` sits below the benchmark registry and is told the layout by
its caller; these are that caller for a user's script or notebook.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from memsuite.eval.registry import definition
from memsuite.eval.run import folder
from memsuite.eval.run.folder import RunFolder
from memsuite.memory_systems.errors import ConfigError


def load_run(path: Path | str, label: str | None = None, *, finished: bool = False) -> RunFolder:
    """Open an existing run folder: ``load_run(path).rows()`` for its rows, ``.header`` and ``.summary``
    for ``run.json`` and ``summary.json``, ``.scores`` typed by its benchmark.

    Args:
        path: The run folder.
        label: Its name in tables (default: the folder's name).
        finished: Refuse a folder whose run has not finished (no ``summary.json``), as reports do.

    Raises:
        ConfigError: ``path`` holds no run (no ``run.json``), or ``finished`` and the run has not finished.
    """
    return _with_layout(folder.load_run(path, label, finished=finished))


def load_runs(paths: Sequence[Path | str], labels: Sequence[str] | None = None) -> list[RunFolder]:
    """Open finished run folders, each read with its benchmark's layout (as a report reads them).

    Raises:
        ConfigError: A path is not a run folder, or its run never finished (no ``summary.json``).
    """
    return [_with_layout(run) for run in folder.load_runs(paths, labels)]


def _with_layout(run: RunFolder) -> RunFolder:
    try:
        return replace(run, layout=definition(run.benchmark).scores_layout)
    except ConfigError:  # a benchmark this install lacks: its scores stay as summary.json has them
        return run
