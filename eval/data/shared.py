"""Which data a benchmark reads: its data option (a catalogue name or a path), else the shared
development copy where ``$MEMSUITE_SHARED_DATA`` names one (the test suite and ``make results``), else
the benchmark's default catalogue entry (:mod:`memsuite.eval.data.catalogue`), fetched with ``memsuite data
fetch``.

Each benchmark's factory turns its option into a path with :func:`data_path` and finds its default
with :func:`shared_data_file`; config validation calls :func:`check_data` with the same rules, so a
missing catalogue file is refused before any run folder exists.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memsuite.eval.data.cache import catalogue_path
from memsuite.eval.hooks import DataOption
from memsuite.memory_systems.errors import ConfigError

SHARED_DATA_ENV = "MEMSUITE_SHARED_DATA"


def shared_dev_path(relative: str | Path, *, folder: bool = False) -> Path | None:
    """The development copy ``relative`` under ``$MEMSUITE_SHARED_DATA``; None when the variable is
    unset or the copy is not there."""
    root = os.environ.get(SHARED_DATA_ENV)
    if not root:
        return None
    path = Path(root) / relative
    return path if (path.is_dir() if folder else path.is_file()) else None


def data_path(value: str | Path, *, benchmark: str, option: str = "data") -> Path:
    """A data option as a path: a catalogue name (``locomo``, ``meme_episodes/meme_filler32k.json``)
    becomes its cached path, anything else is a path.

    Raises:
        ConfigError: A catalogue entry that is not fetched (the message gives the ``memsuite data
            fetch`` command).
    """

    if isinstance(value, str):
        found = catalogue_path(value, where=f"{benchmark}: benchmark_options.{option}")
        if found is not None:
            return found
    return Path(value)


def shared_data_file(
    relative: Path | str,
    *,
    benchmark: str,
    release: str,
    default: str | None = None,
    folder: bool = False,
    option: str = "data",
) -> Path:
    """What a benchmark reads when its data option is absent: the development copy ``relative`` under
    ``$MEMSUITE_SHARED_DATA`` when that is set and holds it, else the fetched catalogue entry that
    stands for it.

    Args:
        relative: The development copy's path under the shared data folder.
        benchmark: Whose data it is, for the message.
        release: Where the released data comes from, for the message.
        default: The catalogue entry that stands for the copy (the benchmark's ``DataOption.default``).
        folder: The copy is a folder.
        option: The benchmark option that names the data instead, for the message.

    Raises:
        ConfigError: Neither is there; the message gives the ``memsuite data fetch`` command (or the
            release, where the catalogue has no single entry for it).
    """
    dev = shared_dev_path(relative, folder=folder)
    if dev is not None:
        return dev
    name = default
    where = f"{benchmark}: benchmark_options.{option} (not given)"
    if os.environ.get(SHARED_DATA_ENV):
        where += f" and no development copy {relative} under ${SHARED_DATA_ENV}"
    if name is not None:
        try:
            found = catalogue_path(name, where=where, paths_first=False)
        except ConfigError as exc:
            raise ConfigError(f"{exc}; or name {release}") from None
        assert found is not None
        return found
    raise ConfigError(f"{where}: name {release}; `memsuite data list` shows what can be fetched")


def check_data(benchmark: str, spec: DataOption | None, options: Mapping[str, Any]) -> None:
    """Refuse, before any work, a catalogue name whose files are not fetched, and a default that is
    neither a development copy nor fetched. Paths are left to the benchmark's loader, which names the
    file and field it cannot read. ``spec`` is how the benchmark names its data (its definition's
    ``data``; None: it has no data option).

    Raises:
        ConfigError: The message gives the ``memsuite data fetch`` command.
    """
    if spec is None:
        return
    value = options.get(spec.option)
    if isinstance(value, str):
        data_path(value, benchmark=benchmark, option=spec.option)
    elif value is None and spec.dev is not None and spec.default is not None:
        release = f"a {spec.default} file"
        shared_data_file(
            spec.dev,
            benchmark=benchmark,
            release=release,
            default=spec.default,
            folder=spec.folder,
            option=spec.option,
        )
