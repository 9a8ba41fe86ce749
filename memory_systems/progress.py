"""The one progress bar helper (counts, rate and ETA on stderr; silent when asked)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TypeVar

from tqdm.auto import tqdm

T = TypeVar("T")


def progress(
    items: Iterable[T], *, total: int | None = None, desc: str = "", enabled: bool = True
) -> Iterator[T]:
    """Iterate ``items`` with a tqdm bar showing done/total, rate and ETA."""
    return iter(tqdm(items, total=total, desc=desc, disable=not enabled, dynamic_ncols=True, leave=True))


def progress_bar(*, total: int, desc: str = "", enabled: bool = True) -> tqdm:
    """A manual tqdm bar (call ``update``/``set_postfix_str``; close it or use it as a context manager)."""
    return tqdm(total=total, desc=desc, disable=not enabled, dynamic_ncols=True, leave=True)
