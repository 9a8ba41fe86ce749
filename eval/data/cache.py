"""The data cache: where catalogue files (:mod:`memsuite.eval.data.catalogue`) lie, how they are fetched and
verified, and the lock file that holds the hashes the catalogue could not give.

Layout: ``<data home>/<entry name>/<file path>``; ``<data home>`` is ``$MEMSUITE_DATA``, else the
user cache folder platformdirs names (``~/.cache/memsuite/data`` on Linux). ``<data home>/lock.json``
maps ``{entry: {file path: sha256}}`` for files whose hash the first verified fetch recorded.

Downloads go through pooch: into a temporary file beside the target, hash-checked, then renamed, so a
cut or corrupted download never leaves a file under the final name.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from memsuite.eval.data.catalogue import DataFile, Dataset, split_name
from memsuite.memory_systems.errors import ConfigError, MemsuiteError
from memsuite.memory_systems.persist import atomic_write_text

#: Overrides the data home.
DATA_ENV = "MEMSUITE_DATA"
LOCK_FILE = "lock.json"
#: What the last check saw of each file (size, mtime, sha256), so ``memsuite data list`` can say
#: "verified" without hashing gigabytes again.
STATE_FILE = "verified.json"
_CHUNK = 1 << 20


class DataUnavailable(MemsuiteError):
    """A file could not be reached (no network, host unknown): the message says where to place it."""


class DataMismatch(MemsuiteError):
    """A file's sha256 is not the expected one; the file was deleted."""


class DataFetchError(MemsuiteError):
    """A download failed after its retries (cut connection, HTTP error); nothing was kept."""


def data_home() -> Path:
    """The folder holding every fetched entry (``$MEMSUITE_DATA``, else the platform's user cache)."""
    if os.environ.get(DATA_ENV):
        return Path(os.environ[DATA_ENV]).expanduser()
    import platformdirs

    return platformdirs.user_cache_path("memsuite", appauthor=False) / "data"


def file_path(entry: Dataset, data_file: DataFile) -> Path:
    """Where ``data_file`` of ``entry`` lies in the cache (whether or not it is there)."""
    return data_home() / entry.name / data_file.path


def entry_path(entry: Dataset, path: str | None = None) -> Path:
    """What a config or ``memsuite data path`` names: the entry's folder for a file set, its one file
    otherwise; with ``path``, that file of the entry."""
    if path is not None:
        return file_path(entry, entry.file(path))
    return data_home() / entry.name if entry.folder else file_path(entry, entry.files[0])


def sha256_of(path: Path) -> str:
    """The sha256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


# -- the lock file ----------------------------------------------------------------------------------


def _lock_path() -> Path:
    return data_home() / LOCK_FILE


def read_lock() -> dict[str, dict[str, str]]:
    """The recorded hashes, ``{entry: {file path: sha256}}`` (empty when no lock file exists).

    Raises:
        ConfigError: The lock file is not a JSON object of objects (the message names the file).
    """
    path = _lock_path()
    if not path.is_file():
        return {}
    try:
        lock = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}: not valid JSON ({exc}); delete it to record the hashes again") from None
    if not isinstance(lock, dict) or not all(isinstance(v, dict) for v in lock.values()):
        raise ConfigError(
            f"{path}: expected {{entry: {{file: sha256}}}}; delete it to record the hashes again"
        )
    return lock


def _record(entry: Dataset, data_file: DataFile, digest: str) -> None:
    lock = read_lock()
    lock.setdefault(entry.name, {})[data_file.path] = digest
    atomic_write_text(_lock_path(), json.dumps(lock, indent=2, sort_keys=True) + "\n")


def expected_sha256(
    entry: Dataset, data_file: DataFile, lock: dict[str, dict[str, str]] | None = None
) -> str | None:
    """The hash a file must have: the catalogue's, else the one the lock file recorded, else None."""
    if data_file.sha256:
        return data_file.sha256
    lock = read_lock() if lock is None else lock
    return lock.get(entry.name, {}).get(data_file.path)


# -- what was verified -----------------------------------------------------------------------------


def _read_state() -> dict[str, list]:
    path = data_home() / STATE_FILE
    try:
        state = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    except json.JSONDecodeError:
        return {}  # only a cache of past checks: a damaged one means "not verified", never an error
    return state if isinstance(state, dict) else {}


def _mark_verified(path: Path, digest: str) -> None:
    state = _read_state()
    stat = path.stat()
    state[str(path.relative_to(data_home()))] = [stat.st_size, stat.st_mtime_ns, digest]
    atomic_write_text(data_home() / STATE_FILE, json.dumps(state, indent=1, sort_keys=True) + "\n")


def status(entry: Dataset) -> str:
    """``verified`` (every file present and unchanged since it matched its hash), ``cached`` (every
    file present, not all verified since), ``partial k/n`` or ``not fetched``. Nothing is hashed."""
    present = [f for f in entry.files if file_path(entry, f).is_file()]
    if not present:
        return "not fetched"
    if len(present) < len(entry.files):
        return f"partial {len(present)}/{len(entry.files)}"
    state, lock = _read_state(), read_lock()
    for f in entry.files:
        path = file_path(entry, f)
        seen = state.get(str(path.relative_to(data_home())))
        stat = path.stat()
        expected = expected_sha256(entry, f, lock)
        if not seen or seen[:2] != [stat.st_size, stat.st_mtime_ns] or seen[2] != expected:
            return "cached"
    return "verified"


# -- verify -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FileState:
    """One file's state after a check."""

    path: Path
    status: str
    """``verified`` (hash matches), ``recorded`` (no hash was known: its hash is now in the lock file),
    ``missing``, or ``mismatch`` (deleted)."""
    expected: str | None = None
    actual: str | None = None


def check_file(entry: Dataset, data_file: DataFile) -> FileState:
    """Hash one cached file against its expected hash; a mismatching file is deleted.

    A present file with no known hash (placed by hand, or fetched before any hash was recorded) has
    its hash recorded in the lock file.
    """
    path = file_path(entry, data_file)
    expected = expected_sha256(entry, data_file)
    if not path.is_file():
        return FileState(path, "missing", expected)
    actual = sha256_of(path)
    if expected is None:
        _record(entry, data_file, actual)
        _mark_verified(path, actual)
        return FileState(path, "recorded", None, actual)
    if actual != expected:
        path.unlink()
        return FileState(path, "mismatch", expected, actual)
    _mark_verified(path, actual)
    return FileState(path, "verified", expected, actual)


def verify(entry: Dataset) -> list[FileState]:
    """Every file of ``entry`` checked (:func:`check_file`)."""
    return [check_file(entry, f) for f in entry.files]


# -- fetch ------------------------------------------------------------------------------------------


def _unavailable(entry: Dataset, data_file: DataFile, reason: object) -> DataUnavailable:
    expected = expected_sha256(entry, data_file) or "not known yet (recorded by the first verified fetch)"
    return DataUnavailable(
        f"cannot reach {data_file.url} ({reason}).\n"
        f"  expected sha256: {expected}\n"
        f"  fetched elsewhere, place the file at: {file_path(entry, data_file)}\n"
        f"  then run: memsuite data verify {entry.name}"
    )


def fetch_file(entry: Dataset, data_file: DataFile, *, retries: int = 2, progress: bool = True) -> FileState:
    """Download one file unless the cache already holds it verified.

    Returns:
        ``verified`` when it was there already, ``fetched`` when downloaded and verified, ``recorded``
        when downloaded with no known hash (the hash is now in the lock file).

    Raises:
        DataUnavailable: The host cannot be reached (the message names the URL, the expected hash and
            the path to place a file fetched elsewhere).
        DataMismatch: The download's hash is not the expected one (nothing kept under the final name).
        DataFetchError: The download failed after ``retries`` retries (nothing kept under the final name).
    """
    import pooch
    import requests

    path = file_path(entry, data_file)
    if path.is_file():
        state = check_file(entry, data_file)
        if state.status != "mismatch":
            return state  # verified, or recorded now: fetching an existing good file does nothing
    expected = expected_sha256(entry, data_file)
    store = pooch.create(
        path=data_home() / entry.name,
        base_url="",
        registry={data_file.path: f"sha256:{expected}" if expected else None},
        urls={data_file.path: data_file.url},
        retry_if_failed=retries,
    )
    downloader = pooch.HTTPDownloader(progressbar=progress)
    try:
        store.fetch(data_file.path, downloader=downloader)
    except requests.exceptions.ConnectionError as exc:
        if _is_unreachable(exc):
            raise _unavailable(entry, data_file, _short(exc)) from None
        raise DataFetchError(_failed(data_file, path, exc)) from None
    except requests.exceptions.RequestException as exc:
        raise DataFetchError(_failed(data_file, path, exc)) from None
    except ValueError as exc:  # pooch: the downloaded file's hash is not the known one
        got = re.search(r"but got ([0-9a-f]{64})", str(exc))
        raise DataMismatch(
            f"{data_file.url}: sha256 mismatch, download refused and deleted (nothing kept at {path}).\n"
            f"  expected sha256: {expected}\n"
            f"  actual sha256:   {got.group(1) if got else 'unknown'}"
        ) from None
    if expected is None:
        digest = sha256_of(path)
        _record(entry, data_file, digest)
        _mark_verified(path, digest)
        return FileState(path, "recorded", None, digest)
    _mark_verified(path, expected)  # pooch checked the hash before renaming the download into place
    return FileState(path, "fetched", expected, expected)


def _is_unreachable(exc: Exception) -> bool:
    """A connection that never opened (refused, unknown host, no route), not one cut mid-download."""
    text = str(exc)
    return not any(word in text for word in ("IncompleteRead", "Connection broken", "ProtocolError"))


def _short(exc: Exception) -> str:
    text = str(exc)
    for marker in ("Connection refused", "Name or service not known", "Temporary failure in name resolution",
                   "Network is unreachable", "No route to host", "timed out"):  # fmt: skip
        if marker in text:
            return marker
    return type(exc).__name__


def _failed(data_file: DataFile, path: Path, exc: Exception) -> str:
    return (
        f"download of {data_file.url} failed ({type(exc).__name__}: {str(exc)[:200]}); nothing kept at "
        f"{path}; run the fetch again"
    )


def fetch(entry: Dataset, *, retries: int = 2, progress: bool = True) -> list[FileState]:
    """Every file of ``entry`` fetched (:func:`fetch_file`), in catalogue order; stops at the first error."""
    return [fetch_file(entry, f, retries=retries, progress=progress) for f in entry.files]


def remove(entry: Dataset) -> int:
    """Delete the entry's cached files and their recorded hashes; returns the number of files deleted."""
    removed = 0
    for f in entry.files:
        path = file_path(entry, f)
        if path.is_file():
            path.unlink()
            removed += 1
    folder = data_home() / entry.name
    if folder.is_dir():
        for sub in sorted((p for p in folder.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)):
            if not any(sub.iterdir()):
                sub.rmdir()
        if not any(folder.iterdir()):
            folder.rmdir()
    lock = read_lock()
    if lock.pop(entry.name, None) is not None:
        atomic_write_text(_lock_path(), json.dumps(lock, indent=2, sort_keys=True) + "\n")
    return removed


# -- names in configs -------------------------------------------------------------------------------


def catalogue_path(value: str, *, where: str, paths_first: bool = True) -> Path | None:
    """The cached path a catalogue name (``NAME`` or ``NAME/file``) stands for; None when ``value`` is
    not a catalogue name, or (with ``paths_first``) is an existing path.

    Raises:
        ConfigError: The entry is not (wholly) fetched: the message gives the ``memsuite data fetch``
            command, naming ``where`` (e.g. ``benchmark_options.data``).
    """
    if paths_first and Path(value).exists():
        return None
    found = split_name(value)
    if found is None:
        return None
    entry, path = found
    wanted = [entry.file(path)] if path is not None else list(entry.files)
    absent = [f for f in wanted if not file_path(entry, f).is_file()]
    if absent:
        raise ConfigError(
            f"{where}: data {value!r} is not fetched ({len(absent)} of {len(wanted)} file(s) missing, e.g. "
            f"{file_path(entry, absent[0])}); get it with: memsuite data fetch {entry.name}"
        )
    return entry_path(entry, path)
