"""The benchmarks (one :class:`~memsuite.eval.spec.BenchmarkSpec` each) and each benchmark's judges.

Built-in benchmarks are the packages under ``memsuite.eval.benchmarks``, each declaring ``SPEC`` in
its ``__init__.py``; a third-party benchmark is an entry point in the group ``memsuite.benchmarks``
whose value is its spec. A spec names its parts by reference, so listing benchmarks imports none of
their code, and a benchmark with a missing optional dependency never blocks the others.

Judges are registered per benchmark (``rule`` means a different test in MEME, WMB-100K and
DynamicMem), by the module the spec names in ``judges``: :func:`register_judge`; :func:`judge_names`
lists them so a config can be checked before any work starts.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import threading
from collections.abc import Callable, Mapping
from importlib.metadata import entry_points
from typing import Any, TypeVar

from memsuite.eval.protocol import Benchmark
from memsuite.eval.spec import BenchmarkSpec, resolve_callable
from memsuite.memory_systems.errors import ConfigError
from memsuite.memory_systems.registry import Registry

BenchmarkFactory = Callable[..., Benchmark]
J = TypeVar("J")

ENTRY_POINT_GROUP = "memsuite.benchmarks"
BUILTIN_PACKAGE = "memsuite.eval.benchmarks"

_SPECS: dict[str, BenchmarkSpec] = {}
#: Built-in or entry-point benchmarks whose declaration could not be imported: name -> why.
_UNAVAILABLE: dict[str, str] = {}
_lock = threading.RLock()
_discovered = False
_JUDGES: dict[str, Registry[Any]] = {}


def register_spec(spec: BenchmarkSpec) -> BenchmarkSpec:
    """Add a benchmark (registering the same spec again is a no-op).

    Raises:
        ConfigError: Another benchmark of that name exists.
    """
    with _lock:
        existing = _SPECS.get(spec.name)
        if existing is not None and existing != spec:
            raise ConfigError(f"benchmark name {spec.name!r} is registered twice")
        _SPECS[spec.name] = spec
    return spec


def _builtin_names() -> list[str]:
    package = importlib.import_module(BUILTIN_PACKAGE)
    return sorted(m.name for m in pkgutil.iter_modules(package.__path__) if m.ispkg)


def _discover() -> None:
    """Read every built-in package's ``SPEC`` and every entry point, once."""
    global _discovered
    with _lock:
        if _discovered:
            return
        _discovered = True
    for name in _builtin_names():
        try:
            module = importlib.import_module(f"{BUILTIN_PACKAGE}.{name}")
        except ModuleNotFoundError as exc:
            _UNAVAILABLE[name] = str(exc)
            continue
        spec = getattr(module, "SPEC", None)
        if isinstance(spec, BenchmarkSpec):
            register_spec(spec)
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        try:
            loaded = ep.load()
        except ModuleNotFoundError as exc:
            _UNAVAILABLE[ep.name] = str(exc)
            continue
        if isinstance(loaded, BenchmarkSpec):
            register_spec(loaded)
        else:
            _UNAVAILABLE[ep.name] = (
                f"its entry point {ep.value!r} in the group {ENTRY_POINT_GROUP} names a "
                f"{type(loaded).__name__}, not a memsuite.eval.spec.BenchmarkSpec"
            )


def benchmark_specs() -> dict[str, BenchmarkSpec]:
    """Every known benchmark's spec, by name."""
    _discover()
    return dict(sorted(_SPECS.items()))


def benchmark_names() -> list[str]:
    """Names of all known benchmarks (built-in, registered and from entry points)."""
    _discover()
    return sorted(set(_SPECS) | set(_UNAVAILABLE))


def benchmark_spec(name: str) -> BenchmarkSpec:
    """The spec of ``name``.

    Raises:
        ConfigError: Unknown name (with the closest match), or a benchmark not available in this install.
    """
    _discover()
    if name in _SPECS:
        return _SPECS[name]
    if name in _UNAVAILABLE:
        raise ConfigError(f"benchmark {name!r} is not available in this install: {_UNAVAILABLE[name]}")
    import difflib

    known = benchmark_names()
    close = difflib.get_close_matches(name, known, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise ConfigError(f"unknown benchmark {name!r}{hint}; known: {', '.join(known)}")


def _import_parts(spec: BenchmarkSpec) -> None:
    """Import the modules that register the benchmark's judges and its own systems."""
    for module in (spec.judges, *spec.systems):
        if module is None:
            continue
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            raise ConfigError(f"benchmark {spec.name!r} is not available in this install: {exc}") from exc


def benchmark_factory(name: str) -> BenchmarkFactory:
    """The factory of ``name`` (its judges and own systems registered on the way).

    Raises:
        ConfigError: Unknown name (with the closest match), or a benchmark that is not available.
    """
    spec = benchmark_spec(name)
    _import_parts(spec)
    try:
        return resolve_callable(spec.factory)
    except ModuleNotFoundError as exc:
        raise ConfigError(f"benchmark {name!r} is not available in this install: {exc}") from exc


def get_benchmark(name: str, **options: Any) -> Benchmark:
    """Build the benchmark ``name`` with its options.

    Raises:
        ConfigError: Unknown name (with the closest match), a built-in that is not available, or
            options the factory does not take.
    """
    factory = benchmark_factory(name)
    try:
        return factory(**options)
    except TypeError as exc:
        raise ConfigError(f"bad benchmark_options for {name!r}: {exc}") from exc


def seeded_options(name: str, options: Mapping[str, Any], seed: int) -> dict[str, Any]:
    """``options`` with the run's ``seed`` as the data seed of a benchmark that generates its data.

    A run config's top-level ``seed`` is the run's one seed: it seeds a generated benchmark's data
    (the factory's ``seed`` option) unless ``benchmark_options.seed`` is given, and a protocol's own
    random choices (LoCoMo's order of adversarial answer options). A benchmark that takes no ``seed``
    gets its options unchanged.

    Raises:
        ConfigError: Both seeds set, to different values (0, the default, counts as unset).
    """
    options = dict(options)
    if "seed" not in inspect.signature(benchmark_factory(name)).parameters:
        return options
    if "seed" in options and seed not in (0, options["seed"]):
        raise ConfigError(
            f"seed {seed} and benchmark_options.seed {options['seed']} disagree: set one "
            "(the top-level seed seeds the generated data when benchmark_options.seed is not given)"
        )
    options.setdefault("seed", seed)
    return options


def judge_registry(benchmark: str) -> Registry[Any]:
    """The judge registry of one benchmark (created empty on first use)."""
    with _lock:
        if benchmark not in _JUDGES:
            _JUDGES[benchmark] = Registry(f"{benchmark} judge")
        return _JUDGES[benchmark]


def register_judge(benchmark: str, name: str) -> Callable[[J], J]:
    """Decorator: register a judge (an :class:`memsuite.eval.answer.Judge`) of ``benchmark`` as ``name``."""
    return judge_registry(benchmark).register(name)  # type: ignore[return-value]


def judge_names(benchmark: str) -> list[str]:
    """Names of the judges ``benchmark`` registers (a config's ``judges`` must be among them).

    Raises:
        ConfigError: Unknown benchmark.
    """
    benchmark_factory(benchmark)  # imports the spec's judges module, which registers them
    return judge_registry(benchmark).names()


def get_judge(benchmark: str, name: str) -> Any:
    """The judge ``name`` of ``benchmark``.

    Raises:
        ConfigError: Unknown benchmark or judge (the message lists the benchmark's judges).
    """
    benchmark_factory(benchmark)
    return judge_registry(benchmark).get(name)


def check_judges(benchmark: str, judges: tuple[str, ...] | list[str]) -> list[Any]:
    """The registered judges of these names; fails before any work starts on a name not registered.

    A benchmark that registers no judges at all (one that judges rows itself) accepts any names and
    gives no judges back.

    Raises:
        ConfigError: Naming the unknown judge and the benchmark's judges.
    """
    if not judge_names(benchmark):
        return []
    return [get_judge(benchmark, name) for name in judges]
