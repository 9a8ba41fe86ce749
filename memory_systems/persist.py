"""Atomic writes: a crash or a failed save never leaves a half-written store behind."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder, then rename it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_jsonl(path: Path, rows: Iterable[dict[str, Any]]) -> None:
    """Write rows as JSON lines (not atomic by itself: use inside :func:`atomic_dir`)."""
    with open(path, "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False))
            fh.write("\n")


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    """Yield the JSON object on each non-empty line of ``path``."""
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


@contextmanager
def atomic_dir(path: Path) -> Iterator[Path]:
    """Yield a fresh temporary folder; on success it replaces ``path`` as a whole.

    The old folder is moved aside before the new one is renamed into place and removed only after,
    so at every instant either ``path`` or ``path.old`` holds a complete store (:func:`resolve_dir`
    finds it). On an exception the temporary folder is removed and ``path`` is untouched.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent))
    old = path.with_name(path.name + ".old")
    try:
        yield tmp
        if old.exists():
            shutil.rmtree(old)
        if path.exists():
            os.replace(path, old)
        os.replace(tmp, path)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        if not path.exists() and old.exists():
            os.replace(old, path)
        raise
    shutil.rmtree(old, ignore_errors=True)


def resolve_dir(path: Path) -> Path:
    """Return the folder a store saved by :func:`atomic_dir` lives in (recovering an interrupted swap)."""
    path = Path(path)
    if path.exists():
        return path
    old = path.with_name(path.name + ".old")
    if old.exists():
        return old
    raise FileNotFoundError(f"no saved memory store at {path}")
