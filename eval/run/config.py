"""Run configuration: YAML -> one validated, typed, immutable :class:`RunConfig` (the models are in
:mod:`memsuite.eval.run.schema`).

Precedence: defaults < YAML file < CLI flags. The schema is a set of pydantic models: a mistake is a
:class:`~memsuite.memory_systems.errors.ConfigError` naming the file, the key path (``systems[1].args.top_k``)
and, for an unknown key, the closest valid ones. :func:`config_from_dict` then checks the resolved
config against the registries (:mod:`memsuite.eval.run.validate`): benchmark, its options, systems, their
arguments, judges and LLM specs, so a run refuses a mistake before any server starts or unit runs.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from memsuite.eval.run.config_errors import schema_error
from memsuite.eval.run.schema import RunConfig
from memsuite.eval.run.validate import validate_config
from memsuite.memory_systems.errors import ConfigError


def config_from_dict(data: dict[str, Any], *, source: str = "<config>", check: bool = True) -> RunConfig:
    """Validate a mapping (parsed YAML plus overrides) into a :class:`RunConfig`.

    Args:
        data: The mapping.
        source: Where it came from (named in every message).
        check: Also check it against the registries (:func:`memsuite.eval.run.validate.validate_config`).

    Raises:
        ConfigError: Unknown or missing keys, values of the wrong type, unknown benchmark, option,
            system, argument or judge, or a malformed LLM spec; the message names ``source`` and
            the key path.
    """
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: a config is a mapping, got {type(data).__name__}")
    if "sweep" in data and "base" in data:
        raise ConfigError(
            f"{source} is an ablation file (base + sweep): run it with `memsuite ablate {source}`"
        )
    if "name" not in data and source != "<config>":
        data = {**data, "name": Path(source).stem}
    try:
        config = RunConfig.model_validate(data)
    except ValidationError as exc:
        raise schema_error(exc.errors(), RunConfig, source=source) from None
    if check:
        validate_config(config, source=source)
    return config


def parse_override(text: str) -> tuple[list[str], Any]:
    """``"benchmark_options.episodes=3"`` -> (["benchmark_options", "episodes"], 3) (value parsed as YAML)."""
    if "=" not in text:
        raise ConfigError(f"--set expects key=value, got {text!r}")
    key, value = text.split("=", 1)
    return key.strip().split("."), yaml.safe_load(value)


def read_yaml(path: Path, what: str = "config file") -> Any:
    """A YAML file's data (an empty file is ``{}``); a missing or malformed file is a ConfigError."""
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except FileNotFoundError:
        raise ConfigError(f"{what} not found: {path}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {exc}") from exc


def load_config(path: Path | str, overrides: list[str] | None = None) -> RunConfig:
    """Read a YAML config and apply ``key.sub=value`` overrides (CLI flags win over the file).

    A mistake is blamed on its source: the file, or ``--set`` when the file alone is a valid config.
    """
    path = Path(path)
    data = read_yaml(path)
    merged = copy.deepcopy(data)
    for override in overrides or []:
        keys, value = parse_override(override)
        target = merged
        for key in keys[:-1]:
            if not isinstance(target.get(key), dict):
                target[key] = {}
            target = target[key]
        target[keys[-1]] = value
    try:
        return config_from_dict(merged, source=str(path))
    except ConfigError:
        if not overrides:
            raise
        config_from_dict(data, source=str(path))  # the file's own mistake first
        named = {**merged, "name": merged.get("name", path.stem)}
        config_from_dict(named, source=f"--set (over {path})")
        raise


def with_systems(config: RunConfig, names: list[str], *, source: str = "--systems") -> RunConfig:
    """The config restricted to (or replaced by) the given system names, checked like the file's."""
    known = {s.key: s for s in config.systems}
    systems = [known[n].model_dump() if n in known else {"name": n} for n in names]
    # Only the keys the config set: a default (judges) stays a default, applied where it can be.
    return config_from_dict({**config.model_dump(exclude_unset=True), "systems": systems}, source=source)


def configs_dir() -> Path:
    """The shipped configs folder: the checkout's ``configs/``, or the installed package's copy."""
    import memsuite.configs

    return Path(memsuite.configs.__file__).resolve().parent


def find_config(path: Path | str, folder: str = "") -> Path:
    """``path`` itself when it exists, else the shipped config of that name.

    ``memsuite run meme_quick`` runs ``configs/meme_quick.yaml`` from any directory, also when
    memsuite is installed from a wheel; ``folder`` is a subfolder to look in (``ablations``).
    A path that names no shipped config is returned unchanged (reading it reports it missing).
    """
    path = Path(path)
    if path.exists() or len(path.parts) != 1:
        return path
    shipped = configs_dir() / folder / (path.name if path.suffix == ".yaml" else f"{path.name}.yaml")
    return shipped if shipped.is_file() else path
