"""The catalogue of the benchmarks' real data: what each file is, its licence, where it comes from at a
pinned revision, its size and its sha256. Each benchmark declares its own entries beside its loader
(``eval/benchmarks/<name>/catalogue.py``, named in its definition); :func:`catalogue` gathers them.

An entry is one file or a file set (BEAM's conversations, WMB-100K's category files, the published
answer sets). ``memsuite data fetch NAME`` downloads it into the data cache
(:mod:`memsuite.eval.data.cache`); configs name it instead of a path (``benchmark_options.data: locomo``).

Where a hash could not be checked when the entry was written, ``sha256`` is None: the first verified
fetch records the file's hash in the cache's lock file, and every later fetch or ``memsuite data
verify`` checks against it. Each entry's ``hashes`` says where its hashes come from. The entry
records (:class:`~memsuite.eval.hooks.Dataset`, :class:`~memsuite.eval.hooks.DataFile`) are the hooks'
a definition names.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from memsuite.eval.hooks import DataFile, Dataset
from memsuite.memory_systems.errors import ConfigError

__all__ = [
    "LOCK",
    "DataFile",
    "Dataset",
    "catalogue",
    "gather_from",
    "get_dataset",
    "github_url",
    "hf_url",
    "split_name",
]

_GITHUB_RAW = "https://raw.githubusercontent.com"
_HF = "https://huggingface.co/datasets"


def github_url(repo: str, revision: str, path: str) -> str:
    """A file of a GitHub repository at a pinned revision."""
    return f"{_GITHUB_RAW}/{repo}/{revision}/{path}"


def hf_url(repo: str, revision: str, path: str) -> str:
    """A file of a Hugging Face dataset repository at a pinned revision."""
    return f"{_HF}/{repo}/resolve/{revision}/{path}"


#: What an entry's ``hashes`` says when the first verified fetch records them.
LOCK = "recorded by the first verified fetch (lock file)"

_CATALOGUE: dict[str, Dataset] = {}
#: Where the entries are declared: benchmark name -> its definition's entries. The benchmark registry
#: sits above the data layer and hands this down when it is imported (every caller of the catalogue,
#: a benchmark's factory, config validation, the runner, ``memsuite data``, runs below the registry).
_source: Callable[[], Mapping[str, Iterable[Dataset]]] | None = None


def gather_from(source: Callable[[], Mapping[str, Iterable[Dataset]]]) -> None:
    """Take the entries from ``source`` (benchmark name -> its entries), called once, when first needed."""
    global _source
    _source = source
    _CATALOGUE.clear()


def catalogue() -> dict[str, Dataset]:
    """Every entry by name: the entries of every benchmark's definition (``catalogue``), gathered once.

    Raises:
        ConfigError: Two benchmarks declare an entry of the same name.
        RuntimeError: No source was handed down (the benchmark registry, :mod:`memsuite.eval.registry`,
            was never imported).
    """
    if not _CATALOGUE:
        if _source is None:
            raise RuntimeError(
                "the data catalogue has no benchmarks: import memsuite.eval.registry, which declares them"
            )
        owners: dict[str, str] = {}
        for benchmark, entries in _source().items():
            for entry in entries:
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
