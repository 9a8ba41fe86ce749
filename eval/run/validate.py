"""The resolved run config checked against the registries, before any server starts or unit runs.

What a run would otherwise find only mid-way (or never: a misspelt judge just produces no verdicts):
an unknown benchmark, a benchmark option its factory does not take, an unknown system, a system
argument its factory does not take or of the wrong type, a judge the benchmark does not have, a
malformed LLM spec. Benchmark options and system arguments are checked against pydantic models
derived from the factories' signatures, so a new benchmark or system needs no schema of its own.
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, create_model

from memsuite.eval.data.shared import check_data
from memsuite.eval.oracle.run import check_oracle, check_oracle_spec, is_oracle
from memsuite.eval.registry import (
    benchmark_factory,
    check_judges,
    defining,
    definition,
    judge_names,
    seeded_options,
)
from memsuite.eval.run.config_errors import is_model, key_path, schema_error, unknown_key_message
from memsuite.eval.run.schema import RunConfig
from memsuite.memory_systems.base import SHARED_RESOURCES
from memsuite.memory_systems.errors import ConfigError

#: Shared objects the runner hands to a system factory by signature (eval/run/runner.py), not user args.
RESOURCES = SHARED_RESOURCES
_LLM_ROLES = ("answer_llm", "internal_llm", "judge_llm")
_ARBITRARY = ConfigDict(arbitrary_types_allowed=True)


def known_judges(benchmark: str) -> list[str] | None:
    """The judge names a benchmark defines, or None when it defines none (then not checked).

    The one place judge names are looked up: the benchmark's definition
    (:func:`memsuite.eval.registry.judge_names`).
    """
    return judge_names(benchmark) or None


# -- schemas from signatures ------------------------------------------------------------------------


def _annotations(target: Callable[..., Any]) -> dict[str, Any]:
    """The resolved annotations of ``target`` (one that cannot be resolved is Any)."""
    try:
        return typing.get_type_hints(target)
    except Exception:  # e.g. a name imported under TYPE_CHECKING only: resolve one by one
        namespace = getattr(target, "__globals__", {})
        hints = {}
        for name, annotation in getattr(target, "__annotations__", {}).items():
            try:
                hints[name] = eval(annotation, namespace) if isinstance(annotation, str) else annotation
            except Exception:
                hints[name] = Any
        return hints


def _checkable(annotation: Any) -> Any:
    """``annotation`` if pydantic can check values against it, else Any."""
    try:
        TypeAdapter(annotation, config=None if is_model(annotation) else _ARBITRARY)
    except Exception:
        return Any
    return annotation


@functools.cache
def signature_model(factory: Callable[..., Any], skip: tuple[str, ...] = ()) -> type[BaseModel] | None:
    """A pydantic model of the keyword arguments ``factory`` takes, or None if it takes ``**kwargs``.

    Args:
        factory: A class or function.
        skip: Parameters that are not the user's to give (shared resources).
    """
    try:
        parameters = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return None
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return None
    hints = _annotations(factory.__init__ if isinstance(factory, type) else factory)
    fields: dict[str, Any] = {}
    for i, p in enumerate(parameters.values()):
        if p.kind in (p.VAR_POSITIONAL, p.POSITIONAL_ONLY) or p.name in skip:
            continue
        default = ... if p.default is p.empty else p.default
        # Aliased, so a parameter may be called like a BaseModel attribute (json, copy, schema).
        fields[f"p{i}"] = (_checkable(hints.get(p.name, Any)), Field(default, alias=p.name))
    name = getattr(factory, "__name__", "factory")
    config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)
    return create_model(f"{name}Args", __config__=config, **fields)


def check_arguments(
    factory: Callable[..., Any],
    values: Mapping[str, Any],
    *,
    source: str,
    path: tuple[Any, ...],
    noun: str,
    skip: tuple[str, ...] = (),
) -> None:
    """Refuse ``values`` that ``factory`` would not take: unknown names, missing ones, wrong types.

    Values are only checked, never converted: the factory still gets them exactly as written.

    Raises:
        ConfigError: Naming ``source``, the key path and the closest valid names.
    """
    for name in skip:
        if name in values:
            where = key_path((*path, name))
            raise ConfigError(f"{source}: {where}: a shared resource the runner passes, not an {noun}")
    model = signature_model(factory, skip)
    if model is None:
        return
    try:
        model.model_validate(dict(values))
    except ValidationError as exc:
        # A str where a Sequence is annotated: factories that take either say so in their checks.
        kept = [e for e in exc.errors() if e["type"] != "sequence_str"]
        if kept:
            raise schema_error(kept, model, source=source, prefix=path, noun=noun) from None


# -- LLM specs --------------------------------------------------------------------------------------


def check_llm_spec(spec: Any, *, source: str, path: str) -> None:
    """Refuse an LLM spec :func:`memsuite.memory_systems.llm.open_llm` would refuse, without starting
    anything.

    Forms: None (or "none"), "local", or a mapping of :class:`~memsuite.memory_systems.llm.LLMConfig` keys
    (``model: local`` adds the embedded server's keys), optionally with a ``prices`` file.
    """
    if spec is None or spec == "none":
        return

    if is_oracle(spec):
        check_oracle_spec(spec, source=source, path=path)
        return
    if isinstance(spec, str):
        if spec.strip().lower() == "local":
            return
        raise ConfigError(
            f"{source}: {path}: LLM spec {spec!r}: use 'local' (embedded server), 'oracle' (gold), null,"
            " or a mapping {model, base_url, api_key_env, ...} for an endpoint"
        )
    if not isinstance(spec, Mapping):
        raise ConfigError(f"{source}: {path}: an LLM spec is 'local', null or a mapping, got {spec!r}")
    from dataclasses import fields

    from memsuite.memory_systems.llm import LLMConfig
    from memsuite.memory_systems.llm.spec import SERVER_KEYS  # one list of the server's keys

    options = dict(spec)
    local = options.get("model") == "local"
    valid = {f.name for f in fields(LLMConfig)} | {"prices"}
    if local:
        valid = (valid | set(SERVER_KEYS)) - {"base_url", "api_key", "api_key_env"}
    for key in options:
        if local and key in {"base_url", "api_key", "api_key_env"}:
            fixed_by = "set by the embedded server with model 'local'; remove it"
            raise ConfigError(f"{source}: {path}.{key}: {fixed_by}")
        if key not in valid:
            raise ConfigError(f"{source}: {path}.{key}: {unknown_key_message(key, valid)}")
    prices = options.pop("prices", None)
    if prices is not None and not Path(str(prices)).is_file():
        raise ConfigError(f"{source}: {path}.prices: price file not found: {prices}")
    for key in SERVER_KEYS:
        value = options.pop(key, None)
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if value is not None and not (number and value > 0):
            raise ConfigError(f"{source}: {path}.{key}: must be a positive number, got {value!r}")
    LLMConfig.from_dict(options, source=f"{source}: {path}")


# -- the whole config -------------------------------------------------------------------------------


def validate_config(config: RunConfig, *, source: str = "<config>") -> None:
    """Check ``config`` against the registries; nothing is built, loaded or started.

    Raises:
        ConfigError: The first mistake, naming ``source``, its key path and the closest matches.
    """
    from memsuite.memory_systems.registry import get_factory

    try:
        benchmark = benchmark_factory(config.benchmark)
    except ConfigError as exc:
        raise ConfigError(f"{source}: benchmark: {exc}") from None
    check_arguments(
        benchmark, config.benchmark_options, source=source, path=("benchmark_options",), noun="option"
    )
    try:
        seeded_options(config.benchmark, config.benchmark_options, config.seed)
    except ConfigError as exc:
        raise ConfigError(f"{source}: seed: {exc}") from None
    for i, spec in enumerate(config.systems):
        try:
            factory = get_factory(spec.name)
        except ConfigError as exc:
            raise ConfigError(f"{source}: systems[{i}].name: {exc}") from None
        check_arguments(
            factory, spec.args, source=source, path=("systems", i, "args"), noun="argument", skip=RESOURCES
        )
    if config.embedder.device.startswith("cuda"):  # a GPU named in the config must exist before any work
        from memsuite.memory_systems.embedder import resolve_device

        try:
            resolve_device(config.embedder.device)
        except ConfigError as exc:
            raise ConfigError(f"{source}: embedder.device: {exc}") from None
    judges = known_judges(config.benchmark)
    if judges is not None:
        for i, judge in enumerate(config.judges):
            if judge not in judges:
                message = unknown_key_message(judge, judges, "judge", f" of benchmark {config.benchmark!r}")
                raise ConfigError(f"{source}: judges[{i}]: {message}")
    for role in _LLM_ROLES:
        check_llm_spec(getattr(config, role), source=source, path=role)

    try:
        check_data(config.benchmark, definition(config.benchmark).data, config.benchmark_options)
    except ConfigError as exc:
        raise ConfigError(f"{source}: {exc}") from None

    served = lambda: defining("oracle_gold")  # noqa: E731
    check_oracle(config, definition(config.benchmark), source=source, served=served)
    _check_judge_llms(config, source)


def _check_judge_llms(config: RunConfig, source: str) -> None:
    """Refuse judges whose needs (:class:`memsuite.eval.definition.Judge`) the config does not meet:
    every unit would fail on them, or the run would end with no verdict of that name."""
    no_answer = config.answer_llm in (None, "none")
    judges = check_judges(config.benchmark, config.judges)  # [] when the benchmark defines none
    if "judges" not in config.model_fields_set:
        # The default judges apply where they can: a retrieval-only run leaves an answer judge out.
        return
    for i, (name, judge) in enumerate(zip(config.judges, judges, strict=False)):
        needs = judge.needs
        if "llm" in needs and no_answer and config.judge_llm in (None, "none"):
            raise ConfigError(
                f"{source}: judges[{i}]: the {config.benchmark} judge {name!r} calls an LLM: set judge_llm"
                " (or answer_llm), or leave it out"
            )
        if "answer" in needs and no_answer:
            raise ConfigError(
                f"{source}: judges[{i}]: the {config.benchmark} judge {name!r} judges answers: set"
                " answer_llm, or leave it out (judges: [] runs retrieval only)"
            )
