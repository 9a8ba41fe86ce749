"""The benchmarks: each one a function decorated with :func:`benchmark` that returns its
:class:`~memsuite.eval.definition.BenchmarkDefinition`.

Built-in benchmarks are the packages under ``memsuite.eval.benchmarks``, each declaring its function in
its ``__init__.py``; a third-party benchmark is an entry point in the group ``memsuite.benchmarks``
whose value is its decorated function. The declaration holds the name, a one-line description and the
function; the function runs (and imports the benchmark's code) only when its definition is needed, so
listing benchmarks imports none of their code, and a benchmark with a missing optional dependency
never blocks the others.

Judges belong to their benchmark (``rule`` means a different test in MEME, WMB-100K and DynamicMem):
:func:`judge_names` lists them so a config can be checked before any work starts.
"""

from __future__ import annotations

import difflib
import importlib
import inspect
import pkgutil
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from importlib.metadata import entry_points
from typing import Any, TypeVar

from memsuite.eval.data import catalogue as data_catalogue
from memsuite.eval.definition import BenchmarkDefinition, Judge
from memsuite.eval.protocol import Benchmark
from memsuite.memory_systems.errors import ConfigError

BenchmarkFactory = Callable[..., Benchmark]
Define = Callable[[], BenchmarkDefinition]
D = TypeVar("D", bound=Define)

ENTRY_POINT_GROUP = "memsuite.benchmarks"
BUILTIN_PACKAGE = "memsuite.eval.benchmarks"
#: The attribute :func:`benchmark` sets on the function it declares.
_DECLARATION = "__memsuite_benchmark__"


@dataclass(frozen=True)
class Declaration:
    """What declaring a benchmark records: no code of the benchmark runs until ``define()``."""

    name: str
    description: str
    """The first line of the function's docstring."""
    define: Define


_DECLARED: dict[str, Declaration] = {}
_DEFINED: dict[str, BenchmarkDefinition] = {}
#: Built-in or entry-point benchmarks whose declaration could not be imported: name -> why.
_UNAVAILABLE: dict[str, str] = {}
_lock = threading.RLock()
_discovered = False


def benchmark(name: str) -> Callable[[D], D]:
    """Decorator: declare the function as the benchmark ``name``; it returns the benchmark's
    definition, importing the benchmark's parts in its body.

    Raises:
        ConfigError: Another function declares that name.
    """

    def decorate(define: D) -> D:
        lines = (define.__doc__ or "").strip().splitlines()
        declaration = Declaration(name, lines[0].strip() if lines else "", define)
        setattr(define, _DECLARATION, declaration)
        _declare(declaration)
        return define

    return decorate


def _same(a: Declaration, b: Declaration) -> bool:
    """The same declaration, perhaps from a module imported again."""
    key = lambda d: (d.name, d.define.__module__, d.define.__qualname__)  # noqa: E731
    return key(a) == key(b)


def _declare(declaration: Declaration) -> None:
    with _lock:
        existing = _DECLARED.get(declaration.name)
        if existing is not None and not _same(existing, declaration):
            raise ConfigError(f"benchmark name {declaration.name!r} is declared twice")
        if existing is None or existing.define is not declaration.define:
            _DEFINED.pop(declaration.name, None)
        _DECLARED[declaration.name] = declaration


def _builtin_names() -> list[str]:
    package = importlib.import_module(BUILTIN_PACKAGE)
    return sorted(m.name for m in pkgutil.iter_modules(package.__path__) if m.ispkg)


def _declarations_in(module: Any) -> list[Declaration]:
    return [
        d
        for value in vars(module).values()
        if isinstance(d := getattr(value, _DECLARATION, None), Declaration)
    ]


def _discover() -> None:
    """Read every built-in package's declaration and every entry point, once."""
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
        for declaration in _declarations_in(module):
            _declare(declaration)
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        try:
            loaded = ep.load()
        except ModuleNotFoundError as exc:
            _UNAVAILABLE[ep.name] = str(exc)
            continue
        declaration = getattr(loaded, _DECLARATION, None)
        if not isinstance(declaration, Declaration):
            _UNAVAILABLE[ep.name] = (
                f"the entry point {ep.value!r} is not a function declared with "
                "@memsuite.eval.registry.benchmark"
            )
            continue
        _declare(declaration)


def declarations() -> dict[str, Declaration]:
    """Every declared benchmark, by name (no benchmark code is imported)."""
    _discover()
    return dict(sorted(_DECLARED.items()))


def benchmark_names() -> list[str]:
    """Names of all known benchmarks (built-in, declared and from entry points)."""
    _discover()
    return sorted(set(_DECLARED) | set(_UNAVAILABLE))


def _declaration(name: str) -> Declaration:
    _discover()
    if name in _DECLARED:
        return _DECLARED[name]
    if name in _UNAVAILABLE:
        raise ConfigError(f"benchmark {name!r} is not available in this install: {_UNAVAILABLE[name]}")
    known = benchmark_names()
    close = difflib.get_close_matches(name, known, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise ConfigError(f"unknown benchmark {name!r}{hint}; known: {', '.join(known)}")


def definition(name: str) -> BenchmarkDefinition:
    """The definition of ``name`` (its function is called on first use; its parts are imported).

    Raises:
        ConfigError: Unknown name (with the closest match), a benchmark whose code cannot be imported
            in this install, or a function that returns something else.
    """
    declaration = _declaration(name)
    with _lock:
        if name in _DEFINED:
            return _DEFINED[name]
    try:
        built = declaration.define()
    except ModuleNotFoundError as exc:
        raise ConfigError(f"benchmark {name!r} is not available in this install: {exc}") from exc
    if not isinstance(built, BenchmarkDefinition):
        where = f"{declaration.define.__module__}.{declaration.define.__qualname__}"
        raise ConfigError(
            f"benchmark {name!r}: {where} returned {type(built).__name__}, not a BenchmarkDefinition"
        )
    built = replace(built, name=name, description=declaration.description)
    with _lock:
        return _DEFINED.setdefault(name, built)


def definitions() -> dict[str, BenchmarkDefinition]:
    """The definition of every benchmark available in this install, by name (one whose code cannot be
    imported is left out; :func:`definition` says why)."""
    found = {}
    for name in declarations():
        try:
            found[name] = definition(name)
        except ConfigError:
            continue
    return found


def defining(part: str) -> list[str]:
    """Names of the benchmarks whose definition sets ``part`` (``oracle_gold``, ``rejudge``), for a
    message naming those a command serves."""
    return [name for name, found in definitions().items() if getattr(found, part) is not None]


def benchmark_factory(name: str) -> BenchmarkFactory:
    """The protocol of ``name``: ``(**benchmark_options) -> Benchmark``.

    Raises:
        ConfigError: Unknown name (with the closest match), or a benchmark that is not available.
    """
    return definition(name).protocol


def get_benchmark(name: str, **options: Any) -> Benchmark:
    """Build the benchmark ``name`` with its options.

    Raises:
        ConfigError: Unknown name (with the closest match), a built-in that is not available, or
            options the protocol does not take.
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


def judge_names(benchmark: str) -> list[str]:
    """Names of the judges ``benchmark`` defines (a config's ``judges`` must be among them).

    Raises:
        ConfigError: Unknown benchmark.
    """
    return sorted(definition(benchmark).judges)


def get_judge(benchmark: str, name: str) -> Judge:
    """The judge ``name`` of ``benchmark``.

    Raises:
        ConfigError: Unknown benchmark or judge (the message lists the benchmark's judges).
    """
    return definition(benchmark).get_judge(name)


def check_judges(benchmark: str, judges: tuple[str, ...] | list[str]) -> list[Judge]:
    """The judges of these names; fails before any work starts on a name the benchmark does not define.

    A benchmark that defines no judges at all (one that judges rows itself) accepts any names and
    gives no judges back.

    Raises:
        ConfigError: Naming the unknown judge and the benchmark's judges.
    """
    found = definition(benchmark)
    if not found.judges:
        return []
    return [found.get_judge(name) for name in judges]


def _catalogues() -> dict[str, tuple]:
    """Each available benchmark's data catalogue entries, by benchmark (what ``memsuite data`` lists)."""
    return {name: found.catalogue for name, found in definitions().items()}


data_catalogue.gather_from(_catalogues)
