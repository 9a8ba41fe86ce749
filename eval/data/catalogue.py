"""The catalogue of the benchmarks' real data: what each file is, its licence, where it comes from at a
pinned revision, its size and its sha256. Each benchmark declares its own entries beside its loader
(``eval/benchmarks/<name>/catalogue.py``, named in its definition); :func:`catalogue` gathers them.

An entry is one file or a file set (BEAM's conversations, WMB-100K's category files, the published
answer sets). ``memsuite data fetch NAME`` downloads it into the data cache
(:mod:`memsuite.eval.data.cache`); configs name it instead of a path (``benchmark_options.data: locomo``).

Where a hash could not be checked when the entry was written, ``sha256`` is None: the first verified
fetch records the file's hash in the cache's lock file, and every later fetch or ``memsuite data
verify`` checks against it. Each entry's ``hashes`` says where its hashes come from.
"""

from __future__ import annotations

from dataclasses import dataclass

from memsuite.memory_systems.errors import ConfigError

_GITHUB_RAW = "https://raw.githubusercontent.com"
_HF = "https://huggingface.co/datasets"


@dataclass(frozen=True)
class DataFile:
    """One file of an entry, stored under the entry's folder at ``path``."""

    path: str
    """Where it lies under the entry's folder (the release's own layout, so loaders read it unchanged)."""
    url: str
    """The download URL, pinned to a revision."""
    sha256: str | None = None
    """The expected sha256, or None: recorded by the first verified fetch (lock file)."""
    size: int | None = None
    """Bytes, where known exactly."""


@dataclass(frozen=True)
class Dataset:
    """One catalogue entry."""

    name: str
    """The name configs and ``memsuite data`` use."""
    description: str
    licence: str
    source: str
    """The repository or dataset page the files come from."""
    revision: str
    """The pinned commit every URL names."""
    files: tuple[DataFile, ...]
    hashes: str
    """Where the expected hashes come from (or that the first fetch records them)."""
    approx_size: str = ""
    """A human size for the whole entry, when not every file's size is known."""
    folder: bool = False
    """A file set: ``memsuite data path`` names the entry's folder, not its one file."""

    @property
    def size(self) -> int | None:
        """Total bytes, when every file's size is known."""
        sizes = [f.size for f in self.files]
        return None if any(s is None for s in sizes) else sum(s for s in sizes if s is not None)

    def file(self, path: str) -> DataFile:
        """The file of this entry at ``path``.

        Raises:
            ConfigError: The entry has no such file (the message lists a few it has).
        """
        for f in self.files:
            if f.path == path:
                return f
        shown = ", ".join(f.path for f in self.files[:6]) + (", ..." if len(self.files) > 6 else "")
        raise ConfigError(f"data {self.name!r} has no file {path!r}; it has: {shown}")


def github_url(repo: str, revision: str, path: str) -> str:
    """A file of a GitHub repository at a pinned revision."""
    return f"{_GITHUB_RAW}/{repo}/{revision}/{path}"


def hf_url(repo: str, revision: str, path: str) -> str:
    """A file of a Hugging Face dataset repository at a pinned revision."""
    return f"{_HF}/{repo}/resolve/{revision}/{path}"


#: What an entry's ``hashes`` says when the first verified fetch records them.
LOCK = "recorded by the first verified fetch (lock file)"

_CATALOGUE: dict[str, Dataset] = {}


def catalogue() -> dict[str, Dataset]:
    """Every entry by name: the entries of every benchmark's definition (``catalogue``), gathered once.

    Raises:
        ConfigError: Two benchmarks declare an entry of the same name.
    """
    if not _CATALOGUE:
        from memsuite.eval.registry import definitions

        owners: dict[str, str] = {}
        for benchmark, found in definitions().items():
            for entry in found.catalogue:
                if entry.name in owners:
                    raise ConfigError(
                        f"data {entry.name!r} is declared by both {owners[entry.name]} and {benchmark}"
                    )
                owners[entry.name] = benchmark
                _CATALOGUE[entry.name] = entry
    return _CATALOGUE


def get_dataset(name: str) -> Dataset:
    """The catalogue entry ``name``.

    Raises:
        ConfigError: No such entry (the message lists the names).
    """
    entries = catalogue()
    try:
        return entries[name]
    except KeyError:
        raise ConfigError(f"no data named {name!r} in the catalogue; known: {', '.join(entries)}") from None


def split_name(value: str) -> tuple[Dataset, str | None] | None:
    """``(entry, file path or None)`` when ``value`` names a catalogue entry (``NAME``) or one of its
    files (``NAME/path``); None when it does not start with a catalogue name.

    Raises:
        ConfigError: ``NAME/path`` names an entry that has no such file.
    """
    head, _, rest = value.partition("/")
    entry = catalogue().get(head)
    if entry is None:
        return None
    if not rest:
        return entry, None
    return entry, entry.file(rest).path
