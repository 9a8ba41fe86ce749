"""The run folder: a typed header, rows.jsonl, units.jsonl and summary.json (ARCHITECTURE.md).

Layout::

    runs/<name>/run.json       header: status, resolved config, versions, git revision, systems, LLMs
    runs/<name>/rows.jsonl     one Row per (system, unit, question), schema-versioned
    runs/<name>/units.jsonl    one line per finished (system, unit): done or error, usage, wall time
    runs/<name>/summary.json   per system: the benchmark's scores and the usage totals
    runs/<name>/work/...       per-unit scratch: snapshots, saved stores

A unit's rows are appended only when the unit has finished, so a crash never leaves half a unit and
a resumed run skips exactly the units already in units.jsonl with status done.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from eval.protocol import Row
from memory_systems.persist import atomic_write_text, read_jsonl

RUN_FORMAT_VERSION = 1
#: Packages whose versions change results; recorded in every header.
TRACKED_PACKAGES = (
    "memsuite",
    "bm25s",
    "faiss-cpu",
    "sentence-transformers",
    "torch",
    "tiktoken",
    "openai",
    "llama-cpp-python",
    "mem0ai",
    "graphiti-core",
    "langchain-community",
    "numpy",
)


def now_iso() -> str:
    """Current time, time-zone aware, ISO 8601."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def package_versions() -> dict[str, str]:
    """Installed versions of the packages that affect results (absent ones omitted)."""
    versions = {}
    for name in TRACKED_PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return versions


def git_revision(path: Path) -> str | None:
    """The git commit of the code that ran (with ``+dirty`` when the tree has changes), if any."""
    try:
        rev = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=path, capture_output=True, text=True, check=True
        )
        dirty = subprocess.run(
            ["git", "status", "--porcelain"], cwd=path, capture_output=True, text=True, check=True
        )
    except (OSError, subprocess.CalledProcessError):
        return None
    return rev.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")


@dataclass
class UnitRecord:
    """One finished (system, unit)."""

    system: str
    unit_id: str
    status: str
    """"done" or "error"."""
    rows: int = 0
    wall_s: float = 0.0
    usage: dict[str, Any] = field(default_factory=dict)
    error: str | None = None


class RunFolder:
    """Reads and writes one run folder. Only the runner writes; reports only read."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    @property
    def header_path(self) -> Path:
        return self.path / "run.json"

    def header(self) -> dict[str, Any]:
        return json.loads(self.header_path.read_text(encoding="utf-8"))

    def write_header(self, header: dict[str, Any]) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        atomic_write_text(self.header_path, json.dumps(header, indent=2, default=str))

    def work_dir(self, system: str, unit_id: str) -> Path:
        folder = self.path / "work" / system / unit_id.replace("/", "_")
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    def units(self) -> list[UnitRecord]:
        path = self.path / "units.jsonl"
        return [UnitRecord(**row) for row in read_jsonl(path)] if path.exists() else []

    def done_units(self) -> set[tuple[str, str]]:
        return {(u.system, u.unit_id) for u in self.units() if u.status == "done"}

    def rows(self) -> list[Row]:
        """All rows of finished units (a unit rerun after an error replaces nothing: errors write no rows)."""
        path = self.path / "rows.jsonl"
        return [Row.from_dict(row) for row in read_jsonl(path)] if path.exists() else []

    def append_unit(self, unit: UnitRecord, rows: list[Row]) -> None:
        """Append a finished unit's rows, then its record; both flushed to disk before returning."""
        self.path.mkdir(parents=True, exist_ok=True)
        if rows:
            _append_lines(self.path / "rows.jsonl", [r.to_dict() for r in rows])
        _append_lines(self.path / "units.jsonl", [unit.__dict__])

    def write_summary(self, summary: dict[str, Any]) -> None:
        atomic_write_text(self.path / "summary.json", json.dumps(summary, indent=2, default=str))

    def summary(self) -> dict[str, Any]:
        return json.loads((self.path / "summary.json").read_text(encoding="utf-8"))


def _append_lines(path: Path, rows: list[dict[str, Any]]) -> None:
    text = "".join(json.dumps(row, ensure_ascii=False, default=str) + "\n" for row in rows)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())


def header_config(config_dict: dict[str, Any]) -> Any:
    """The config as a header stores it: JSON types, and any literal ``api_key`` masked."""

    def mask(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: ("***" if k == "api_key" and v else mask(v)) for k, v in value.items()}
        if isinstance(value, list):
            return [mask(v) for v in value]
        return value

    return mask(json.loads(json.dumps(config_dict, default=str)))


def base_header(config_dict: dict[str, Any], code_root: Path) -> dict[str, Any]:
    """The parts of a header known before anything runs."""
    return {
        "format_version": RUN_FORMAT_VERSION,
        "status": "started",
        "started_at": now_iso(),
        "config": header_config(config_dict),
        "memsuite_version": package_versions().get("memsuite"),
        "git_revision": git_revision(code_root),
        "python": platform.python_version(),
        "packages": package_versions(),
    }


def load_run(path: Path | str) -> RunFolder:
    """Open an existing run folder (raises FileNotFoundError naming it when there is none)."""
    folder = RunFolder(Path(path))
    if not folder.header_path.exists():
        raise FileNotFoundError(f"{path} is not a memsuite run folder (no run.json)")
    return folder
