"""The run folder: a typed header, one file per finished unit, and summary.json (ARCHITECTURE.md).

Layout::

    runs/<name>/run.json       header: status, resolved config, versions, git revision, systems, LLMs,
                               and one ``resumes`` entry per later session (its time and revision)
    runs/<name>/units/<system>/<unit>.jsonl
                               one file per finished (system, unit): its rows, one per line, then a
                               trailer line ``{"unit": {...}}`` (done or error, usage, wall time)
    runs/<name>/rows.jsonl     all rows in one file, rewritten when a run session ends
    runs/<name>/units.jsonl    all unit records in one file, rewritten when a run session ends
    runs/<name>/summary.json   per system: the benchmark's scores and the usage totals
    runs/<name>/work/...       per-unit scratch: snapshots, saved stores

Read all rows in one call with ``load_run(path).rows()`` (and the unit records with ``.units()``):
it reads the per-unit files, so it is right even while a run is going on or after one was killed.
``rows.jsonl`` and ``units.jsonl`` are the same content for other tools, written (atomically) at the
end of every run session, so they may be behind while a run is going on or after a kill.

A unit's file is written under a temporary name and renamed into place once complete, so its rows
and its completion become visible together: a kill at any instant leaves either the whole unit or
nothing of it, and a resumed run redoes exactly the units without a ``done`` file. As a second guard
the reader keeps one row per (system, unit, question) and ignores a file whose trailer is missing or
does not count its rows. Folders written before per-unit files (``rows.jsonl`` appended before
``units.jsonl``) are still read -- torn lines skipped, rows of unrecorded units dropped, duplicates
removed -- and are converted to per-unit files when resumed.
"""

from __future__ import annotations

import json
import logging
import os
import platform
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from memsuite.distribution import DISTRIBUTION
from memsuite.eval.hooks import DataOption
from memsuite.eval.protocol import BY_JUDGE, Row, Scores, ScoresLayout
from memsuite.eval.run.provenance import data_provenance
from memsuite.eval.summary import Summary, SystemSummary
from memsuite.memory_systems.errors import ConfigError
from memsuite.memory_systems.persist import atomic_write_text

logger = logging.getLogger(__name__)

RUN_FORMAT_VERSION = 2
"""1: rows.jsonl and units.jsonl appended per unit; 2: one file per unit under units/."""
#: Test hook: seconds to sleep after each line of a unit file and before its rename, so a test can
#: kill a run while it is writing. Never set outside tests.
WRITE_DELAY_ENV = "MEMSUITE_TEST_WRITE_DELAY"
#: Packages whose versions change results; recorded in every header.
TRACKED_PACKAGES = (
    DISTRIBUTION,
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
    """Installed versions of the packages that affect results (absent ones omitted), with those of the
    libraries that run in a venv of their own and that venv's folder (``cognee``, ``cognee_venv``,
    ``hindsight-api-slim``, ``hindsight_venv``)."""
    from memsuite.baselines.adapters import cognee, hindsight

    versions = {**cognee.venv_versions(), **hindsight.venv_versions()}
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


@dataclass
class RunFolder:
    """One run folder, written by the runner and read by everything after it: reports, ``memsuite
    show`` / ``compare`` / ``rejudge``, calibrations and notebooks (:func:`load_run`).

    Reads are cached: a file is parsed again only when it, or for unit files their folder, changed on
    disk (inode, time or size) or this object wrote, so a report asks for a system's rows as often as
    it likes and rows read while a run is going on include the units finished since.
    """

    path: Path
    label: str = ""
    """Name of the run in tables: the folder name, or an ablation's variant label."""
    display: str = ""
    """Name in a table's run column when it differs from the label (an ablation's swept value)."""
    layout: ScoresLayout = BY_JUDGE
    """Where ``summary.json`` keeps each judge's scores: its benchmark's layout (the definition's
    ``scores_layout``, which the report's entry point passes in); by default judges under
    ``by_judge``, as most benchmarks write them."""
    _cache: dict[str, tuple[Any, Any]] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.path = Path(self.path)
        self.label = self.label or self.path.name

    @property
    def header_path(self) -> Path:
        return self.path / "run.json"

    @property
    def summary_path(self) -> Path:
        return self.path / "summary.json"

    @property
    def units_dir(self) -> Path:
        return self.path / "units"

    # -- reading ------------------------------------------------------------------------------------

    @property
    def header(self) -> dict[str, Any]:
        """``run.json`` (FileNotFoundError when there is none)."""
        return self._cached("header", _stamp(self.header_path), lambda: _read_json(self.header_path))

    @property
    def summary(self) -> dict[str, Any]:
        """``summary.json``: system -> {scores, usage, units, wall_s} (FileNotFoundError until a run
        session has ended)."""
        return self._cached("summary", _stamp(self.summary_path), lambda: _read_json(self.summary_path))

    def require_finished(self) -> RunFolder:
        """This folder, once a run session has ended in it (its summary is written).

        Raises:
            ConfigError: There is no ``summary.json`` yet.
        """
        if not self.summary_path.exists():
            raise ConfigError(
                f"{self.path} has no summary.json: the run has not finished (run it again to resume it)"
            )
        return self

    @property
    def name(self) -> str:
        """The run's cell in a table's run column."""
        return self.display or self.label

    @property
    def config(self) -> dict[str, Any]:
        """The resolved run config stored in the header."""
        return self.header.get("config") or {}

    @property
    def benchmark(self) -> str:
        """Benchmark registry name."""
        return str(self.config.get("benchmark", "?"))

    @property
    def systems(self) -> list[str]:
        """System labels in config order (then any other system of the summary)."""
        configured = [s.get("label") or s.get("name") for s in self.config.get("systems") or []]
        ordered = [s for s in configured if s in self.summary]
        return ordered + sorted(set(self.summary) - set(ordered))

    def registry_name(self, system: str) -> str:
        """The registry name behind a system label (labels distinguish variants of one system)."""
        for spec in self.config.get("systems") or []:
            if (spec.get("label") or spec.get("name")) == system:
                return str(spec.get("name"))
        return system

    @property
    def typed_summary(self) -> Summary:
        """``summary.json`` as typed data, read with the folder's :attr:`layout`."""

        def read() -> Summary:
            return Summary.from_json(self.summary, self.layout)

        return self._cached("typed_summary", _stamp(self.summary_path), read)

    def system_summary(self, system: str) -> SystemSummary:
        """One system's entry of ``summary.json`` (empty for a system the run did not score)."""
        return self.typed_summary.system(system)

    def scores(self, system: str) -> Scores:
        """The benchmark's scores of one system (``summary[system]["scores"]``)."""
        return self.system_summary(system).scores

    def units(self) -> list[UnitRecord]:
        """The latest record of every finished (system, unit), done or error."""
        return [record for record, _ in self._finished(self._units_stamp())]

    def done_units(self) -> set[tuple[str, str]]:
        return {(u.system, u.unit_id) for u in self.units() if u.status == "done"}

    def rows(self, system: str | None = None) -> list[Row]:
        """The rows of done units, one per (system, unit, question), ordered by system, then unit: all
        of them, or those of one system.

        A unit rerun after an error replaces its error record; errors write no rows.
        """
        if system is not None:
            return list(self.rows_by_system.get(system, []))
        return [row for rows in self.rows_by_system.values() for row in rows]

    @property
    def rows_by_system(self) -> dict[str, list[Row]]:
        """The rows of done units, by system."""
        stamp = self._units_stamp()
        return self._cached("rows", stamp, lambda: self._group_rows(self._finished(stamp)))

    # -- writing ------------------------------------------------------------------------------------

    def write_header(self, header: dict[str, Any]) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        atomic_write_text(self.header_path, json.dumps(header, indent=2, default=str))
        self._cache.clear()

    def work_dir(self, system: str, unit_id: str) -> Path:
        folder = self.path / "work" / system / unit_id.replace("/", "_")
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    def unit_path(self, system: str, unit_id: str) -> Path:
        """The file of one (system, unit); names are %-quoted so any id maps to one distinct file."""
        return self.units_dir / quote(system, safe="") / (quote(unit_id, safe="") + ".jsonl")

    def append_unit(self, unit: UnitRecord, rows: list[Row]) -> None:
        """Write a finished unit's rows and record as one file, renamed into place when complete.

        A unit written again (a retry after an error) replaces its earlier file.
        """
        record = {**unit.__dict__, "rows": len(rows)}  # the reader checks the file against this count
        lines = [r.to_dict() for r in rows] + [{"unit": record}]
        delay = float(os.environ.get(WRITE_DELAY_ENV) or 0)
        _write_lines_atomically(self.unit_path(unit.system, unit.unit_id), lines, delay)
        self._cache.clear()

    def prepare(self) -> None:
        """Make the folder ready for writing units: convert a version-1 folder, drop stale temp files.

        Temp files are what a kill in the middle of writing a unit leaves; that unit was not finished.
        """
        self.path.mkdir(parents=True, exist_ok=True)
        if not self.units_dir.exists() and (self.path / "units.jsonl").exists():
            self._convert_v1()
        self.units_dir.mkdir(exist_ok=True)
        for stale in self.units_dir.glob("*/.*.tmp"):
            stale.unlink(missing_ok=True)
        for stale in self.path.glob(".units.*.tmp"):
            shutil.rmtree(stale, ignore_errors=True)
        self._cache.clear()

    def clear(self) -> None:
        """Remove every finished unit, the all-rows files and the summary (``--restart``).

        ``work/`` stays: a later run may load stores saved there on purpose (DynamicMem's prebuilt mode).
        """
        for name in ("rows.jsonl", "units.jsonl", "summary.json"):
            (self.path / name).unlink(missing_ok=True)
        shutil.rmtree(self.units_dir, ignore_errors=True)
        for stale in self.path.glob(".units.*.tmp"):
            shutil.rmtree(stale, ignore_errors=True)
        self._cache.clear()

    def write_all_rows(self) -> None:
        """Rewrite ``rows.jsonl`` and ``units.jsonl`` from the per-unit files (each atomically)."""
        rows = "".join(_json_line(row.to_dict()) for row in self.rows())
        atomic_write_text(self.path / "rows.jsonl", rows)
        atomic_write_text(self.path / "units.jsonl", "".join(_json_line(u.__dict__) for u in self.units()))

    def write_summary(self, summary: dict[str, Any]) -> None:
        atomic_write_text(self.summary_path, json.dumps(summary, indent=2, default=str))
        self._cache.clear()

    # -- internals ----------------------------------------------------------------------------------

    def _cached(self, key: str, stamp: Any, read: Callable[[], Any]) -> Any:
        cached = self._cache.get(key)
        if cached is None or cached[0] != stamp:
            cached = self._cache[key] = (stamp, read())
        return cached[1]

    def _units_stamp(self) -> Any:
        """What changes when a unit file is written: its system's folder (a rename into a folder changes
        the folder's time, a new unit its count of files), or a version-1 folder's two files. Folders
        are cheaper to read than their thousands of unit files; this object's own writes drop the
        cache besides."""
        if self.units_dir.is_dir():
            folders = [p for p in self.units_dir.iterdir() if p.is_dir()]
            systems = sorted((p.name, _stamp(p), len(os.listdir(p))) for p in folders)
            return [_stamp(self.units_dir), *systems]
        return [_stamp(self.path / name, missing_ok=True) for name in ("units.jsonl", "rows.jsonl")]

    def _finished(self, stamp: Any) -> list[tuple[UnitRecord, list[Row]]]:
        return self._cached("finished", stamp, self._read_finished)

    def _read_finished(self) -> list[tuple[UnitRecord, list[Row]]]:
        if self.units_dir.is_dir():
            found = [unit for path in self.units_dir.glob("*/*.jsonl") if (unit := _read_unit_file(path))]
        else:
            found = self._read_v1()
        return sorted(found, key=lambda unit: (unit[0].system, _natural(unit[0].unit_id)))

    def _group_rows(self, finished: list[tuple[UnitRecord, list[Row]]]) -> dict[str, list[Row]]:
        every = [row for record, rows in finished if record.status == "done" for row in rows]
        kept = _dedup(every)
        if len(kept) < len(every):
            dropped = len(every) - len(kept)
            logger.warning("%s: ignored %d duplicate rows (same system, unit, question)", self.path, dropped)
        grouped: dict[str, list[Row]] = {}
        for row in kept:
            grouped.setdefault(row.system, []).append(row)
        return grouped

    def _read_v1(self) -> list[tuple[UnitRecord, list[Row]]]:
        """A version-1 folder: rows appended before their unit's record, so a kill could leave rows of
        an unrecorded unit (dropped here) and a resume could append them again (de-duplicated later)."""
        records: dict[tuple[str, str], UnitRecord] = {}
        for data in _read_whole_lines(self.path / "units.jsonl"):
            record = UnitRecord(**data)
            records[(record.system, record.unit_id)] = record  # a retry's record replaces the error
        rows: dict[tuple[str, str], list[Row]] = {key: [] for key in records}
        for data in _read_whole_lines(self.path / "rows.jsonl"):
            row = Row.from_dict(data)
            if (row.system, row.unit_id) in rows:
                rows[(row.system, row.unit_id)].append(row)
        return [(record, rows[key]) for key, record in records.items()]

    def _convert_v1(self) -> None:
        """Write a version-1 folder's finished units as per-unit files, all at once (one rename)."""
        tmp = Path(tempfile.mkdtemp(prefix=".units.", suffix=".tmp", dir=self.path))
        for record, rows in self._read_v1():
            path = tmp / self.unit_path(record.system, record.unit_id).relative_to(self.units_dir)
            kept = _dedup(rows)
            if record.status == "done":
                record.rows = len(kept)
            _write_lines_atomically(path, [r.to_dict() for r in kept] + [{"unit": record.__dict__}], 0)
        os.replace(tmp, self.units_dir)
        logger.info("%s: converted rows.jsonl/units.jsonl to per-unit files under units/", self.path)


def _stamp(path: Path, missing_ok: bool = False) -> tuple[int, int, int] | None:
    """What changes when a file is rewritten (atomic writes replace the inode); FileNotFoundError
    when it is absent, unless ``missing_ok``."""
    try:
        stat = path.stat()
    except FileNotFoundError:
        if missing_ok:
            return None
        raise
    return (stat.st_ino, stat.st_mtime_ns, stat.st_size)


def _read_json(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def _json_line(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, default=str) + "\n"


def _write_lines_atomically(path: Path, lines: list[dict[str, Any]], delay: float) -> None:
    """Write JSON lines to a temp file beside ``path``, flush it to disk, then rename it to ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            for line in lines:
                fh.write(_json_line(line))
                if delay:
                    fh.flush()
                    time.sleep(delay)
            fh.flush()
            os.fsync(fh.fileno())
        if delay:
            time.sleep(delay)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)  # the rename itself survives a power cut only once the folder is synced


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # not every file system syncs folders; the rename is still atomic
    finally:
        os.close(fd)


def _read_unit_file(path: Path) -> tuple[UnitRecord, list[Row]] | None:
    """A unit file's record and rows, or None (with a warning) when it is not a complete unit file."""
    lines = list(_read_whole_lines(path))
    trailer = lines[-1].get("unit") if lines else None
    if not isinstance(trailer, dict):
        logger.warning("%s: no unit record on its last line; the unit counts as not finished", path)
        return None
    try:
        record = UnitRecord(**trailer)
        rows = [Row.from_dict(data) for data in lines[:-1]]
    except TypeError as exc:  # a line that is not a row or a record of this layout
        logger.warning("%s: %s; the unit counts as not finished", path, exc)
        return None
    expected = (unquote(path.parent.name), unquote(path.stem))
    if (record.system, record.unit_id) != expected or len(rows) != record.rows:
        logger.warning(
            "%s: record says %s/%s with %d rows, file holds %d; the unit counts as not finished",
            path,
            record.system,
            record.unit_id,
            record.rows,
            len(rows),
        )
        return None
    return record, rows


def _read_whole_lines(path: Path) -> Iterator[dict[str, Any]]:
    """Each JSON object of ``path`` on a whole line; a torn or corrupt line is skipped with a warning.

    A line is whole when it ends in a newline: a kill in the middle of an append leaves a last line
    without one, and a later append glued to it makes a line that does not parse.
    """
    if not path.exists():
        return
    with open(path, encoding="utf-8", errors="replace") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                data = json.loads(line) if line.endswith("\n") else None
            except json.JSONDecodeError:
                data = None
            if not isinstance(data, dict):
                logger.warning("%s line %d: torn or corrupt line skipped", path, number)
                continue
            yield data


def _dedup(rows: list[Row]) -> list[Row]:
    seen, kept = set(), []
    for row in rows:
        if (row.system, row.unit_id, row.question_id) not in seen:
            seen.add((row.system, row.unit_id, row.question_id))
            kept.append(row)
    return kept


def _natural(text: str) -> list[Any]:
    """Sort key putting ``ep2`` before ``ep10``."""
    return [(0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", text)]


def header_config(config_dict: dict[str, Any]) -> Any:
    """The config as a header stores it: JSON types, and any literal ``api_key`` masked."""

    def mask(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: ("***" if k == "api_key" and v else mask(v)) for k, v in value.items()}
        if isinstance(value, list):
            return [mask(v) for v in value]
        return value

    return mask(json.loads(json.dumps(config_dict, default=str)))


def base_header(
    config_dict: dict[str, Any], code_root: Path, data: DataOption | None = None
) -> dict[str, Any]:
    """The parts of a header known before anything runs; ``data`` names the data the benchmark reads
    (:func:`memsuite.eval.run.provenance.data_provenance`), given how it names it (``data``: its
    definition's ``data``; None: it has no data option)."""

    return {
        "format_version": RUN_FORMAT_VERSION,
        "status": "started",
        "started_at": now_iso(),
        "config": header_config(config_dict),
        "data": data_provenance(data, config_dict.get("benchmark_options") or {}),
        "memsuite_version": package_versions().get(DISTRIBUTION),
        "git_revision": git_revision(code_root),
        "python": platform.python_version(),
        "packages": package_versions(),
    }


_ABSENT = "<absent>"


def config_changes(old: Any, new: Any, path: str = "") -> list[dict[str, Any]]:
    """Every leaf where two header configs differ, as ``{"key": "a.b[0]", "old": ..., "new": ...}``.

    A key missing on one side shows as ``"<absent>"``.
    """
    if isinstance(old, dict) and isinstance(new, dict):
        changes = []
        for key in sorted(set(old) | set(new), key=str):
            sub = f"{path}.{key}" if path else str(key)
            changes += config_changes(old.get(key, _ABSENT), new.get(key, _ABSENT), sub)
        return changes
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        pairs = enumerate(zip(old, new, strict=True))
        return [change for i, (a, b) in pairs for change in config_changes(a, b, f"{path}[{i}]")]
    return [] if old == new else [{"key": path or "(config)", "old": old, "new": new}]


def check_resume(
    previous: dict[str, Any], config_dict: dict[str, Any], where: Path, *, allow_config_change: bool = False
) -> list[dict[str, Any]]:
    """The config changes since ``previous`` (a run folder's header); refused unless allowed.

    Raises:
        ConfigError: The resolved config differs and ``allow_config_change`` is False; the message
            names each differing key (old -> new).
    """
    changes = config_changes(previous.get("config"), header_config(config_dict))
    if changes and not allow_config_change:
        listed = "; ".join(f"{c['key']}: {c['old']!r} -> {c['new']!r}" for c in changes)
        raise ConfigError(
            f"{where} holds a run of a different config ({listed}); pass --allow-config-change to resume"
            " it with this config, --restart to start over, or choose another --out"
        )
    return changes


def resumed_header(
    previous: dict[str, Any], session: dict[str, Any], changes: list[dict[str, Any]]
) -> dict[str, Any]:
    """The header of a resumed run: the first session's identity, plus one ``resumes`` entry for this one.

    The first session's start, revision, versions, embedder and LLMs stay as they were (its rows were
    made with them); the entry records this session's start, revision and version, the config
    changes it was allowed to make, and whatever else differs (packages, python, embedder, LLMs).
    ``config`` becomes this session's config, so the next resume compares against it.

    Args:
        previous: The header already in the folder.
        session: This session's own header (:func:`base_header` plus embedder, LLMs, units).
        changes: :func:`check_resume`'s result.
    """
    entry: dict[str, Any] = {
        "started_at": session["started_at"],
        "git_revision": session.get("git_revision"),
        "memsuite_version": session.get("memsuite_version"),
        "already_done": session.get("units", {}).get("already_done"),
    }
    if changes:
        entry["config_changes"] = changes
    for key in ("python", "packages", "embedder", "answer_llm", "internal_llm"):
        if key in session and session[key] != previous.get(key):
            entry[key] = session[key]
    header = {k: v for k, v in previous.items() if k not in ("finished_at", "errors")}
    header.update(
        format_version=RUN_FORMAT_VERSION,
        status=session["status"],
        config=session["config"],
        units=session.get("units", previous.get("units")),
        wiring_only=bool(previous.get("wiring_only") or session.get("wiring_only")),
        resumes=[*previous.get("resumes", []), entry],
    )
    return header


def load_run(
    path: Path | str, label: str | None = None, *, finished: bool = False, layout: ScoresLayout = BY_JUDGE
) -> RunFolder:
    """Open an existing run folder: ``load_run(path).rows()`` for its rows, ``.header`` and ``.summary``
    for ``run.json`` and ``summary.json``.

    Args:
        path: The run folder.
        label: Its name in tables (default: the folder's name).
        finished: Refuse a folder whose run has not finished (no ``summary.json``), as reports do.
        layout: How its ``summary.json`` keeps the judges' scores (its benchmark definition's
            ``scores_layout``).

    Raises:
        ConfigError: ``path`` holds no run (no ``run.json``), or ``finished`` and the run has not
            finished.
    """
    folder = RunFolder(Path(path), label or "", layout=layout)
    if not folder.header_path.exists():
        raise ConfigError(f"{path} is not a memsuite run folder (no run.json)")
    return folder.require_finished() if finished else folder


def load_runs(
    paths: Sequence[Path | str],
    labels: Sequence[str] | None = None,
    *,
    layouts: Mapping[str, ScoresLayout] | None = None,
) -> list[RunFolder]:
    """Open finished run folders for a report.

    Args:
        paths: Run folders (each holding ``run.json`` and ``summary.json``).
        labels: Names of the runs in tables; default each folder's name (its path when two share one).
        layouts: Benchmark name -> how its ``summary.json`` keeps the judges' scores (its definition's
            ``scores_layout``); a benchmark absent: judges under ``by_judge``. A report sets them itself
            (:func:`memsuite.eval.report.document.build_report`).

    Returns:
        The runs, in the given order.

    Raises:
        ConfigError: A path is not a run folder, or its run never finished (no ``summary.json``).
    """
    paths = [Path(p) for p in paths]
    if labels is None:
        names = [p.name for p in paths]
        labels = [p.name if names.count(p.name) == 1 else str(p) for p in paths]
    if len(labels) != len(paths):
        raise ConfigError(f"{len(labels)} labels for {len(paths)} run folders")
    runs = [load_run(path, label, finished=True) for path, label in zip(paths, labels, strict=True)]
    return [replace(run, layout=(layouts or {}).get(run.benchmark, run.layout)) for run in runs]
