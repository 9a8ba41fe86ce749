"""Which code made a run's rows: memsuite's own source and, per system, the providing distribution,
its version and a fingerprint of the system's module source. A resume compares them with the run
folder's header, so rows made by other code are never mixed in silently (:func:`check_code`)."""

from __future__ import annotations

import hashlib
import inspect
from importlib import metadata
from pathlib import Path
from typing import Any

from memsuite.eval.data import cache as data_cache
from memsuite.eval.data.catalogue import catalogue, get_dataset, split_name
from memsuite.eval.data.shared import SHARED_DATA_ENV, shared_dev_path
from memsuite.eval.hooks import DataOption
from memsuite.memory_systems.errors import ConfigError

#: memsuite's own code: the subpackages under the import root (its configs are data, in the config).
CODE_PACKAGES = ("memsuite", "memory_systems", "baselines", "eval")


def file_digest(paths: list[Path], root: Path) -> str:
    """SHA-256 over the files' paths (relative to ``root``) and contents, in path order."""
    digest = hashlib.sha256()
    for path in sorted(paths):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def memsuite_fingerprint(code_root: Path) -> str:
    """Fingerprint of every Python file of memsuite's code (``code_root``: the import root's folder)."""
    files = [p for package in CODE_PACKAGES for p in (code_root / package).rglob("*.py")]
    return file_digest([p for p in files if "__pycache__" not in p.parts], code_root)


def _distribution_of(module: str) -> metadata.Distribution | None:
    """The installed distribution providing the top-level package of ``module``, if one is known."""
    top = module.split(".")[0]
    names = metadata.packages_distributions().get(top) or []
    for ep in metadata.entry_points(group="memsuite.systems"):
        if ep.value.split(":")[0].split(".")[0] == top and ep.dist is not None:
            return ep.dist  # a plugin found through its entry point (also without top_level metadata)
    for name in names:
        try:
            return metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
    return None


def system_provenance(name: str) -> dict[str, Any]:
    """``{"distribution", "version", "module", "source_sha256"}`` of the system registered as ``name``.

    The fingerprint covers the file of the module that defines the system's factory; memsuite's own
    systems are also covered by :func:`memsuite_fingerprint`.
    """
    from memsuite.memory_systems.registry import get_factory

    factory = get_factory(name)
    module = inspect.getmodule(factory)
    source = Path(inspect.getfile(module)) if module is not None else None
    dist = _distribution_of(module.__name__) if module is not None else None
    return {
        "distribution": dist.metadata["Name"] if dist is not None else None,
        "version": dist.version if dist is not None else None,
        "module": module.__name__ if module is not None else None,
        "source_sha256": (
            hashlib.sha256(source.read_bytes()).hexdigest() if source and source.is_file() else None
        ),
    }


def code_identity(system_names: dict[str, str], code_root: Path) -> dict[str, Any]:
    """What a run header records about the code: memsuite's fingerprint and each system's provenance.

    Args:
        system_names: Label in the run -> registry name.
        code_root: The folder holding memsuite's subpackages.
    """
    return {
        "memsuite_sha256": memsuite_fingerprint(code_root),
        "systems": {label: system_provenance(name) for label, name in system_names.items()},
    }


def code_changes(old: dict[str, Any] | None, new: dict[str, Any]) -> list[str]:
    """What differs between two :func:`code_identity` records, one readable line each."""
    if not old:
        return []  # a folder written before code was recorded: nothing to compare
    changes = []
    if old.get("memsuite_sha256") != new.get("memsuite_sha256"):
        changes.append("memsuite's own code changed")
    for label, now in new.get("systems", {}).items():
        before = old.get("systems", {}).get(label)
        if before is None:
            continue  # a system new to the run: it has no rows yet
        for key in ("distribution", "version", "source_sha256"):
            if before.get(key) != now.get(key):
                what = "module source" if key == "source_sha256" else key
                shown = "" if key == "source_sha256" else f" {before.get(key)!r} -> {now.get(key)!r}"
                changes.append(f"system {label!r} ({now.get('module')}): {what} changed{shown}")
    return changes


def check_code(old: dict[str, Any] | None, new: dict[str, Any], where: Path, *, allow: bool) -> list[str]:
    """The code changes since a run folder's header; refused unless ``allow``.

    Raises:
        ConfigError: Code changed and ``allow`` is False; the message names each change.
    """
    changes = code_changes(old, new)
    if changes and not allow:
        raise ConfigError(
            f"{where} holds rows made by other code ({'; '.join(changes)}); pass --allow-code-change to"
            " resume with this code anyway, --restart to recompute, or choose another --out"
        )
    return changes


# -- the data a run read ----------------------------------------------------------------------------


def data_provenance(spec: DataOption | None, options: dict[str, Any]) -> dict[str, Any] | None:
    """What a run's header records of its data, by name wherever the catalogue knows it: ``spec`` is
    how its benchmark names its data (the definition's ``data``), ``options`` the benchmark's options.

    - a catalogue name (``data: locomo``), or the default entry: ``{"catalogue", "revision",
      "source", "sha256"}`` (a file set: ``files`` and ``sha256`` over its files' hashes);
    - a development copy under ``$MEMSUITE_SHARED_DATA``: ``{"shared_dev": <path under it>, "sha256"}``;
    - a user's file: the catalogue entry whose file has the same sha256, else ``{"path", "sha256"}``;
      a user's folder: ``{"path"}``.

    None for a benchmark that generates its data (no data option given), or one without a data option.
    Never raises: a header is written only after the data was found, and a record is not a check.
    """

    if spec is None:
        return None
    value = options.get(spec.option)
    try:
        named = split_name(value) if isinstance(value, str) and not Path(value).exists() else None
        if named is not None:
            return _catalogue_record(*named)
        if value is None:
            if spec.dev is not None:
                dev = shared_dev_path(spec.dev, folder=spec.folder)
                if dev is not None:
                    record: dict[str, Any] = {"shared_dev": spec.dev, "variable": SHARED_DATA_ENV}
                    if dev.is_file():
                        record["sha256"] = data_cache.sha256_of(dev)
                    return record
            if spec.default is None:
                return None
            return _catalogue_record(get_dataset(spec.default), None)
        path = Path(value)
        if path.is_file():
            digest = data_cache.sha256_of(path)
            known = _catalogue_file_with(digest)
            return known if known is not None else {"path": str(path), "sha256": digest}
        return {"path": str(path)}
    except (OSError, ConfigError):
        return {"path": str(value)} if value is not None else None


def _catalogue_record(entry: Any, path: str | None) -> dict[str, Any]:

    lock = data_cache.read_lock()
    record: dict[str, Any] = {"catalogue": entry.name, "revision": entry.revision, "source": entry.source}
    files = [entry.file(path)] if path is not None else list(entry.files)
    if path is not None or (len(files) == 1 and not entry.folder):
        record["file"] = files[0].path
        record["sha256"] = data_cache.expected_sha256(entry, files[0], lock)
        return record
    hashes = [(f.path, data_cache.expected_sha256(entry, f, lock)) for f in files]
    record["files"] = len(files)
    record["sha256"] = hashlib.sha256("".join(f"{p}\0{h}\n" for p, h in sorted(hashes)).encode()).hexdigest()
    return record


def _catalogue_file_with(digest: str) -> dict[str, Any] | None:
    """The catalogue record of the file whose expected sha256 is ``digest``, if any."""

    lock = data_cache.read_lock()
    for entry in catalogue().values():
        for f in entry.files:
            if data_cache.expected_sha256(entry, f, lock) == digest:
                return _catalogue_record(entry, f.path)
    return None
