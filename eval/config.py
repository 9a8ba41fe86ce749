"""Run configuration: YAML -> one validated, typed :class:`RunConfig`.

Precedence: defaults < YAML file < CLI flags. An unknown key is an error that names the key, the
file and the nearest valid key.
"""

from __future__ import annotations

import difflib
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import yaml

from memory_systems.errors import ConfigError


@dataclass(frozen=True)
class SystemSpec:
    """One memory system of a run."""

    name: str
    """Registry name."""
    label: str = ""
    """Name in rows and tables (default: the registry name); distinguishes variants of one system."""
    args: dict[str, Any] = field(default_factory=dict)
    """Keyword arguments of the system's factory."""

    @property
    def key(self) -> str:
        return self.label or self.name


@dataclass(frozen=True)
class RunConfig:
    """Everything that determines a run's results."""

    benchmark: str
    """Benchmark registry name: meme, dynamicmem, wmb."""
    systems: tuple[SystemSpec, ...]
    """Systems to run, in order."""
    name: str = "run"
    """Run name; the default output folder is runs/<name>."""
    k: int = 5
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
    benchmark_options: dict[str, Any] = field(default_factory=dict)
    """Passed to the benchmark factory (data path, episodes, filler, categories, ...)."""
    embedder: str | None = None
    """Embedding model folder; default the packaged all-MiniLM-L6-v2."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


_KEYS = {f.name for f in fields(RunConfig)}


def _fail_unknown(key: str, valid: set[str], where: str) -> None:
    close = difflib.get_close_matches(key, valid, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    raise ConfigError(f"{where}: unknown key {key!r}{hint} (valid: {', '.join(sorted(valid))})")


def _system(entry: Any, where: str) -> SystemSpec:
    if isinstance(entry, str):
        return SystemSpec(entry)
    if not isinstance(entry, dict) or "name" not in entry:
        raise ConfigError(f"{where}: each system is a name or a mapping with 'name', got {entry!r}")
    valid = {"name", "label", "args"}
    for key in entry:
        if key not in valid:
            _fail_unknown(key, valid, where)
    return SystemSpec(entry["name"], entry.get("label", ""), dict(entry.get("args") or {}))


def config_from_dict(data: dict[str, Any], *, source: str = "<config>") -> RunConfig:
    """Validate a mapping (parsed YAML plus overrides) into a :class:`RunConfig`.

    Raises:
        ConfigError: Unknown or missing keys, or values of the wrong type; the message names ``source``.
    """
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: a config is a mapping, got {type(data).__name__}")
    if "sweep" in data and "base" in data:
        raise ConfigError(
            f"{source} is an ablation file (base + sweep): run it with `memsuite ablate {source}`"
        )
    for key in data:
        if key not in _KEYS:
            _fail_unknown(key, _KEYS, source)
    for required in ("benchmark", "systems"):
        if required not in data:
            raise ConfigError(f"{source}: missing required key {required!r}")
    systems = data["systems"]
    if isinstance(systems, str):
        systems = [s.strip() for s in systems.split(",") if s.strip()]
    if not systems:
        raise ConfigError(f"{source}: 'systems' is empty")
    specs = tuple(_system(s, f"{source}: systems[{i}]") for i, s in enumerate(systems))
    labels = [s.key for s in specs]
    if len(set(labels)) != len(labels):
        raise ConfigError(f"{source}: two systems share a label ({labels}); give variants a 'label'")
    k = data.get("k", 5)
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ConfigError(f"{source}: 'k' must be a positive integer, got {k!r}")
    judges = data.get("judges", ("rule",))
    if isinstance(judges, str):
        judges = [judges]
    options = data.get("benchmark_options") or {}
    if not isinstance(options, dict):
        raise ConfigError(f"{source}: 'benchmark_options' must be a mapping")
    return RunConfig(
        benchmark=str(data["benchmark"]),
        systems=specs,
        name=str(data.get("name", Path(source).stem if source != "<config>" else "run")),
        k=k,
        answer_llm=data.get("answer_llm"),
        internal_llm=data.get("internal_llm"),
        judge_llm=data.get("judge_llm"),
        judges=tuple(judges),
        seed=int(data.get("seed", 0)),
        benchmark_options=dict(options),
        embedder=data.get("embedder"),
    )


def parse_override(text: str) -> tuple[list[str], Any]:
    """``"benchmark_options.episodes=3"`` -> (["benchmark_options", "episodes"], 3) (value parsed as YAML)."""
    if "=" not in text:
        raise ConfigError(f"--set expects key=value, got {text!r}")
    key, value = text.split("=", 1)
    return key.strip().split("."), yaml.safe_load(value)


def load_config(path: Path | str, overrides: list[str] | None = None) -> RunConfig:
    """Read a YAML config and apply ``key.sub=value`` overrides (CLI flags win over the file)."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except FileNotFoundError:
        raise ConfigError(f"config file not found: {path}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {exc}") from exc
    for override in overrides or []:
        keys, value = parse_override(override)
        target = data
        for key in keys[:-1]:
            target = target.setdefault(key, {})
        target[keys[-1]] = value
    return config_from_dict(data, source=str(path))


def with_systems(config: RunConfig, names: list[str]) -> RunConfig:
    """The config restricted to (or replaced by) the given system names."""
    known = {s.key: s for s in config.systems}
    return replace(config, systems=tuple(known.get(n) or SystemSpec(n) for n in names))
