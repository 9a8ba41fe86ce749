"""Where the shared development data lies: ``$MEMSUITE_SHARED_DATA``, else ``../shared/data`` beside
the checkout. Benchmarks whose data is released elsewhere default to a dev copy there."""

from __future__ import annotations

import os
from pathlib import Path

from memsuite.memory_systems.errors import ConfigError

SHARED_DATA_ENV = "MEMSUITE_SHARED_DATA"
#: The checkout's root (in an installed package, the site-packages folder of memsuite).
CHECKOUT = Path(__file__).resolve().parents[1]


def shared_data_file(relative: Path | str, *, benchmark: str, release: str) -> Path:
    """The shared dev file ``relative`` (e.g. ``locomo/locomo.dev.json``).

    Args:
        relative: The file's path under the shared data folder.
        benchmark: Whose file it is, for the message.
        release: Where the released file comes from, for the message.

    Raises:
        ConfigError: Neither place has it; the message says where the released data is.
    """
    tried = []
    if os.environ.get(SHARED_DATA_ENV):
        tried.append(Path(os.environ[SHARED_DATA_ENV]) / relative)
    tried.append(CHECKOUT.parent / "shared" / "data" / relative)
    for path in tried:
        if path.is_file():
            return path
    raise ConfigError(
        f"{benchmark} needs benchmark_options.data: {release}; no shared dev file at "
        f"{' or '.join(map(str, tried))} (set {SHARED_DATA_ENV} to the folder holding {relative})"
    )
