"""Where the shared development data lies: ``$MEMSUITE_SHARED_DATA``, else ``../shared/data`` beside
the checkout. Benchmarks whose data is released elsewhere default to a dev copy there."""

from __future__ import annotations

import os
from pathlib import Path

from memsuite.memory_systems.errors import ConfigError

SHARED_DATA_ENV = "MEMSUITE_SHARED_DATA"
#: The checkout's root (in an installed package, the site-packages folder of memsuite).
CHECKOUT = Path(__file__).resolve().parents[1]


def shared_data_file(
    relative: Path | str, *, benchmark: str, release: str, folder: bool = False, option: str = "data"
) -> Path:
    """The shared dev file (or, with ``folder``, folder) ``relative`` (e.g. ``locomo/locomo.dev.json``).

    Args:
        relative: The path under the shared data folder.
        benchmark: Whose data it is, for the message.
        release: Where the released data comes from, for the message.
        folder: Look for a folder instead of a file.
        option: The benchmark option that names the released data instead, for the message.

    Raises:
        ConfigError: Neither place has it; the message names the variable to set and where the released
            data is.
    """
    tried = []
    if os.environ.get(SHARED_DATA_ENV):
        tried.append(Path(os.environ[SHARED_DATA_ENV]) / relative)
    tried.append(CHECKOUT.parent / "shared" / "data" / relative)
    for path in tried:
        if path.is_dir() if folder else path.is_file():
            return path
    what = "folder" if folder else "file"
    raise ConfigError(
        f"{benchmark} needs benchmark_options.{option}: {release}; no shared dev {what} at "
        f"{' or '.join(map(str, tried))} (set {SHARED_DATA_ENV} to the folder holding {relative})"
    )
