"""Registries of benchmarks and of each benchmark's judges (one mechanism: memsuite.memory_systems.registry).

Benchmarks: name -> factory(**options) -> Benchmark (see eval/protocol.py). Built-in benchmarks are
imported on first use, so a benchmark with a missing optional dependency never blocks the others;
third parties add one through the entry-point group ``memsuite.benchmarks`` (a module that runs
:func:`register_benchmark`, or a factory registered under the entry point's name).

Judges are registered per benchmark (``rule`` means a different test in MEME, WMB-100K and
DynamicMem), by the benchmark's ``judges``: :func:`register_judge`; :func:`judge_names` lists them so a
config can be checked before any work starts.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from memsuite.eval.protocol import Benchmark
from memsuite.memory_systems.errors import ConfigError
from memsuite.memory_systems.registry import Registry

BenchmarkFactory = Callable[..., Benchmark]
F = TypeVar("F", bound=BenchmarkFactory)
J = TypeVar("J")

ENTRY_POINT_GROUP = "memsuite.benchmarks"

#: Built-in benchmark name -> module that registers it (and its judges) when imported.
_BUILTIN_MODULES = {
    "meme": "memsuite.eval.benchmarks.meme.protocol",
    "dynamicmem": "memsuite.eval.benchmarks.dynamicmem.protocol",
    "wmb": "memsuite.eval.benchmarks.wmb.protocol",
    "locomo": "memsuite.eval.benchmarks.locomo.protocol",
    "longmemeval": "memsuite.eval.benchmarks.longmemeval.protocol",
}
BENCHMARKS: Registry[BenchmarkFactory] = Registry(
    "benchmark", group=ENTRY_POINT_GROUP, builtins=_BUILTIN_MODULES
)
_JUDGES: dict[str, Registry[Any]] = {}


def register_benchmark(name: str) -> Callable[[F], F]:
    """Decorator: register a benchmark factory under ``name``."""
    return BENCHMARKS.register(name)


def benchmark_names() -> list[str]:
    """Names of all known benchmarks (built-in, registered and from entry points)."""
    return BENCHMARKS.names()


def benchmark_factory(name: str) -> BenchmarkFactory:
    """The factory of ``name`` (importing a built-in benchmark, which also registers its judges).

    Raises:
        ConfigError: Unknown name (with the closest match), or a built-in that is not available.
    """
    return BENCHMARKS.get(name)


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
    benchmark_factory(benchmark)  # imports a built-in benchmark's module, which registers its judges
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
