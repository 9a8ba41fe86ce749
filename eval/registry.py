"""Registry of benchmarks: name -> factory(**options) -> Benchmark (see eval/protocol.py).

Built-in benchmarks are imported on first use, so a benchmark with a missing optional dependency
never blocks the others.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Callable
from typing import Any, TypeVar

from eval.protocol import Benchmark
from memory_systems.errors import ConfigError

BenchmarkFactory = Callable[..., Benchmark]
F = TypeVar("F", bound=BenchmarkFactory)

#: Built-in benchmark name -> module that registers it when imported.
_BUILTIN_MODULES = {
    "meme": "eval.benchmarks.meme.protocol",
    "dynamicmem": "eval.benchmarks.dynamicmem.protocol",
    "wmb": "eval.benchmarks.wmb.protocol",
    "locomo": "eval.benchmarks.locomo.protocol",
}
_FACTORIES: dict[str, BenchmarkFactory] = {}


def register_benchmark(name: str) -> Callable[[F], F]:
    """Decorator: register a benchmark factory under ``name``."""

    def decorate(factory: F) -> F:
        existing = _FACTORIES.get(name)
        if existing is not None and existing is not factory:
            raise ConfigError(f"benchmark name {name!r} is registered twice")
        _FACTORIES[name] = factory
        return factory

    return decorate


def benchmark_names() -> list[str]:
    """Names of all known benchmarks (built-in and registered)."""
    return sorted(set(_BUILTIN_MODULES) | set(_FACTORIES))


def get_benchmark(name: str, **options: Any) -> Benchmark:
    """Build the benchmark ``name`` with its options.

    Raises:
        ConfigError: Unknown name (with the closest match), or a built-in that is not available.
    """
    if name not in _FACTORIES and name in _BUILTIN_MODULES:
        try:
            importlib.import_module(_BUILTIN_MODULES[name])
        except ModuleNotFoundError as exc:
            raise ConfigError(f"benchmark {name!r} is not available in this install: {exc}") from exc
    if name not in _FACTORIES:
        close = difflib.get_close_matches(name, benchmark_names(), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ConfigError(f"unknown benchmark {name!r}{hint}; known: {', '.join(benchmark_names())}")
    try:
        return _FACTORIES[name](**options)
    except TypeError as exc:
        raise ConfigError(f"bad benchmark_options for {name!r}: {exc}") from exc
