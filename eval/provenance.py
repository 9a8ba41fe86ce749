"""Which code made a run's rows: memsuite's own source and, per system, the providing distribution,
its version and a fingerprint of the system's module source. A resume compares them with the run
folder's header, so rows made by other code are never mixed in silently (:func:`check_code`)."""

from __future__ import annotations

import hashlib
import inspect
from importlib import metadata
from pathlib import Path
from typing import Any

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
