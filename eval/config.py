"""Run configuration: YAML -> one validated, typed, immutable :class:`RunConfig`.

Precedence: defaults < YAML file < CLI flags. The schema is a set of pydantic models: a mistake is a
:class:`~memsuite.memory_systems.errors.ConfigError` naming the file, the key path (``systems[1].args.top_k``)
and, for an unknown key, the closest valid ones. :func:`config_from_dict` then checks the resolved
config against the registries (:mod:`memsuite.eval.validate`): benchmark, its options, systems, their
arguments, judges and LLM specs, so a run refuses a mistake before any server starts or unit runs.
"""

from __future__ import annotations

import copy
import difflib
import typing
from collections.abc import Iterable
from pathlib import Path
from typing import Annotated, Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from memsuite.memory_systems.errors import ConfigError

_SCHEMA = ConfigDict(frozen=True, extra="forbid", coerce_numbers_to_str=True)


class SystemSpec(BaseModel):
    """One memory system of a run."""

    model_config = _SCHEMA

    name: str
    """Registry name."""
    label: str = ""
    """Name in rows and tables (default: the registry name); distinguishes variants of one system."""
    args: dict[str, Any] = Field(default_factory=dict)
    """Keyword arguments of the system's factory."""

    def __init__(self, name: str | None = None, label: str = "", args: dict[str, Any] | None = None, **data):
        # Positional use, as the dataclass allowed: SystemSpec("bm25").
        if name is not None:
            data["name"] = name
        super().__init__(label=label, args=args or {}, **data)

    @field_validator("args", mode="before")
    @classmethod
    def _args_default(cls, value: Any) -> Any:
        return {} if value is None else value

    @property
    def key(self) -> str:
        return self.label or self.name


class EmbedderSpec(BaseModel):
    """The run's shared sentence embedder. A plain string in YAML is ``path``."""

    model_config = _SCHEMA

    path: str | None = None
    """Folder of a sentence-transformers model; default the packaged all-MiniLM-L6-v2."""
    device: str = "auto"
    """``auto`` (a GPU when torch sees one, else the CPU), ``cpu``, ``cuda`` or ``cuda:N``."""
    batch_size: Annotated[int, Field(strict=True, ge=1)] | None = None
    """Texts per forward pass; default 16 on the CPU, 64 on a GPU."""

    @field_validator("device")
    @classmethod
    def _device_form(cls, value: str) -> str:
        from memsuite.memory_systems.embedder import check_device

        return check_device(value)


class RunConfig(BaseModel):
    """Everything that determines a run's results."""

    model_config = _SCHEMA

    benchmark: str
    """A registered benchmark's name (``memsuite benchmarks`` lists them)."""
    systems: tuple[SystemSpec, ...]
    """Systems to run, in order."""
    name: str = "run"
    """Run name; the default output folder is runs/<name>."""
    k: Annotated[int, Field(strict=True, ge=1)] = 5
    """Retrieval depth handed to every system."""
    answer_llm: Any = None
    """None (retrieval-only), "local" (embedded SmolLM2 server) or an endpoint mapping
    {model, base_url, api_key_env, ...} for the answer LLM."""
    internal_llm: Any = None
    """LLM for systems that need one (same forms as answer_llm; default: answer_llm)."""
    judge_llm: Any = None
    """LLM for LLM judges (same forms as answer_llm). None: an LLM judge falls back to answer_llm,
    with a warning and ``judge_llm_is_answer_llm: true`` in the run header."""
    judges: tuple[str, ...] = ("rule",)
    """Judges applied to every row."""
    seed: int = 0
    """The run's seed: a generated benchmark's data seed when ``benchmark_options.seed`` is not given
    (the two set to different values are refused), and the seed of a protocol's random choices
    (LoCoMo's adversarial option order); :func:`memsuite.eval.registry.seeded_options`."""
    benchmark_options: dict[str, Any] = Field(default_factory=dict)
    """Passed to the benchmark factory (data path, episodes, filler, categories, ...)."""
    embedder: EmbedderSpec = Field(default_factory=EmbedderSpec)
    """The embedder: a model folder, or ``{path, device, batch_size}``."""

    @field_validator("embedder", mode="before")
    @classmethod
    def _embedder_entry(cls, value: Any) -> Any:
        if value is None:
            return {}
        return {"path": value} if isinstance(value, str) else value

    @field_validator("systems", mode="before")
    @classmethod
    def _system_entries(cls, value: Any) -> Any:
        if isinstance(value, str):  # --set systems=bm25,dense
            value = [s.strip() for s in value.split(",") if s.strip()]
        if isinstance(value, list | tuple):
            if not value:
                raise ValueError("empty: name at least one system")
            return [{"name": s} if isinstance(s, str) else s for s in value]
        return value

    @field_validator("judges", mode="before")
    @classmethod
    def _judge_entries(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @field_validator("benchmark_options", mode="before")
    @classmethod
    def _options_default(cls, value: Any) -> Any:
        return {} if value is None else value

    @model_validator(mode="after")
    def _unique_labels(self) -> RunConfig:
        labels = [s.key for s in self.systems]
        if len(set(labels)) != len(labels):
            raise ValueError(f"two systems share a label ({labels}); give variants a 'label'")
        return self

    def to_dict(self) -> dict[str, Any]:
        """Plain data, as run headers store it. An unset ``judge_llm`` is left out, so run folders
        written before the field existed resume."""
        data = self.model_dump()
        if data["judge_llm"] is None:
            del data["judge_llm"]
        # The embedder in its shortest form when only its folder is set (None or the folder), the form
        # a config naming only a folder is stored in, so such a run's header compares equal on resume.
        embedder, default = data["embedder"], EmbedderSpec()
        if (embedder["device"], embedder["batch_size"]) == (default.device, default.batch_size):
            data["embedder"] = embedder["path"]
        return data


# -- error messages ---------------------------------------------------------------------------------


def key_path(loc: Iterable[Any]) -> str:
    """``("systems", 1, "args", "k")`` -> ``systems[1].args.k``."""
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def unknown_key_message(key: str, valid: Iterable[str], noun: str = "key", of: str = "") -> str:
    """``unknown key 'x'; did you mean 'y'? (valid: ...)``, with up to two close matches.

    ``of`` follows the key (`` of benchmark 'meme'``).
    """
    valid = sorted(valid)
    close = difflib.get_close_matches(str(key), valid, n=2)
    # A qualified spelling of a valid key (top_k for k, max_turn for max_turns) is too short for difflib.
    words = set(str(key).split("_"))
    qualified = [v for v in valid if v not in close and (v in words or set(v.split("_")) < words)]
    close += qualified[: 2 - len(close)]
    hint = f"; did you mean {' or '.join(map(repr, close))}?" if close else ""
    listed = f" (valid: {', '.join(valid)})" if valid else " (it takes none)"
    return f"unknown {noun} {key!r}{of}{hint}{listed}"


def _model_at(model: Any, loc: tuple[Any, ...]) -> type[BaseModel] | None:
    """The model class whose field set the path ``loc`` lands in (for an unknown-key hint)."""
    current = model
    for part in loc:
        for arg in typing.get_args(current) or ():  # Optional[...] / tuple[X, ...] / list[X]
            if _is_model(arg):
                current = arg
                break
        if isinstance(part, int):
            continue
        if not _is_model(current) or part not in current.model_fields:
            return None
        current = current.model_fields[part].annotation
    for arg in (current, *(typing.get_args(current) or ())):
        if _is_model(arg):
            return arg
    return None


def _is_model(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def schema_error(
    errors: list[Any],
    model: type[BaseModel],
    *,
    source: str,
    prefix: tuple[Any, ...] = (),
    noun: str = "key",
) -> ConfigError:
    """One :class:`ConfigError` for the first problem pydantic found, with its key path.

    Args:
        errors: ``ValidationError.errors()``.
        model: The model that was validated (to list the valid keys next to an unknown one).
        source: The file (or other origin) of the data.
        prefix: Key path of the validated data inside the config (``("systems", 1, "args")``).
        noun: What an unknown key is called: key, argument, option.
    """
    # An unknown key first: a misspelt required key is reported as the misspelling, not as missing.
    errors = sorted(errors, key=lambda e: e["type"] != "extra_forbidden")
    error = errors[0]
    loc = tuple(error["loc"])
    path = key_path(prefix + loc)
    if error["type"] == "extra_forbidden":
        owner = _model_at(model, loc[:-1])
        valid = [f.alias or n for n, f in owner.model_fields.items()] if owner is not None else []
        message = unknown_key_message(loc[-1], valid, noun)
        # A top-level key is named in the message itself; a nested one by its whole path.
        return ConfigError(f"{source}: {path + ': ' if len(prefix + loc) > 1 else ''}{message}")
    if error["type"] == "missing":
        return ConfigError(f"{source}: missing required {noun} {path!r}")
    text = error["msg"].removeprefix("Value error, ")
    shown = "" if error["type"].startswith("value_error") else f" (got {error['input']!r})"
    more = f" [and {len(errors) - 1} more]" if len(errors) > 1 else ""
    return ConfigError(f"{source}: {path or 'config'}: {text}{shown}{more}")


# -- loading ----------------------------------------------------------------------------------------


def config_from_dict(data: dict[str, Any], *, source: str = "<config>", check: bool = True) -> RunConfig:
    """Validate a mapping (parsed YAML plus overrides) into a :class:`RunConfig`.

    Args:
        data: The mapping.
        source: Where it came from (named in every message).
        check: Also check it against the registries (:func:`memsuite.eval.validate.validate_config`).

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
        from memsuite.eval.validate import validate_config  # the registries import the benchmarks and systems

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


def shipped_configs(folder: str = "") -> list[str]:
    """Names of the shipped configs (in ``folder``), sorted."""
    return sorted(p.stem for p in (configs_dir() / folder).glob("*.yaml"))
