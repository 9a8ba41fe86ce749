"""A benchmark's declaration: everything the driver and its tools need to find, in one record.

A benchmark package declares ``SPEC = BenchmarkSpec(...)`` in its ``__init__.py`` (a third-party
package points the entry point ``memsuite.benchmarks`` at such a record). The registry, report,
compare, show, rejudge, generate, calibrate and demo read specs; nothing else names a benchmark.

Parts are named as ``"module:attribute"`` references and imported only when used, so declaring a
benchmark loads none of its code (a benchmark whose optional dependency is missing never blocks the
others). A reference may also be the object itself (a test's toy benchmark, a legacy registration).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from memsuite.memory_systems.errors import ConfigError

#: What a judge needs from a run: an answer (an answer LLM, or stored answers when rejudging), a judge
#: LLM (``judge_llm``, else the answer LLM), gold evidence in the data.
JudgeNeed = Literal["answer", "llm", "evidence"]
JUDGE_NEEDS: tuple[str, ...] = ("answer", "llm", "evidence")

#: A part of a benchmark: ``"package.module:attribute"`` (a str), or the object itself.
Ref = Any


@dataclass(frozen=True)
class DataOption:
    """How a benchmark names its data: the option, its catalogue default, its development copy."""

    option: str
    """The benchmark option that names it (``data``, ``data_dir``)."""
    default: str | None
    """The catalogue entry read when the option is absent (None: the benchmark generates its data)."""
    dev: str | None = None
    """The development copy under ``$MEMSUITE_SHARED_DATA`` read instead of ``default`` when set."""
    folder: bool = False
    """The data is a folder, not a file."""


@dataclass(frozen=True)
class Command:
    """A benchmark's own subcommand (``memsuite generate NAME``, ``memsuite calibrate NAME``).

    ``add_arguments(parser)`` declares its options; ``run(args) -> int`` carries it out (exit code).
    """

    help: str
    add_arguments: Ref
    """Reference to ``(argparse.ArgumentParser) -> None``."""
    run: Ref
    """Reference to ``(argparse.Namespace) -> int``."""


@dataclass(frozen=True)
class BenchmarkSpec:
    """One benchmark, declared once.

    Every reference is ``"package.module:attribute"``; :func:`resolve` imports it on first use.
    """

    name: str
    """The name configs use (``benchmark: NAME``) and run folders record."""
    description: str
    """One line for ``memsuite list``."""
    factory: Ref
    """Reference to ``(**benchmark_options) -> Benchmark``."""
    judges: str | None = None
    """Module (a name) whose import registers the benchmark's judges (``register_judge``); None: it
    judges rows itself."""
    judge_needs: Mapping[str, tuple[JudgeNeed, ...]] = field(default_factory=dict)
    """Judge name -> what it needs (:data:`JUDGE_NEEDS`); validation refuses a config that does not meet
    them. A judge left out is checked only for the LLM it calls."""
    report: Ref | None = None
    """Reference to the report renderer ``(runs, ReportOptions) -> Section``; None: a generic table."""
    outcomes: Ref | None = None
    """Reference to the :class:`memsuite.eval.compare.OutcomeSpec` that ``memsuite compare`` uses."""
    rejudge: Ref | None = None
    """Reference to the rejudge question reader ``(data: Path | None) -> list[RejudgeQuestion]``."""
    commands: Mapping[str, Command] = field(default_factory=dict)
    """Verb (``generate``, ``calibrate``) -> the benchmark's command under it."""
    data: DataOption | None = None
    """How it names its real data (validation refuses a catalogue entry not fetched; the run header
    records the data by name); None: it has no data option."""
    systems: tuple[str, ...] = ()
    """Modules whose import registers memory systems that exist for this benchmark alone (an official
    baseline), imported before a config naming the benchmark is checked."""
    oracle_gold: Ref | None = None
    """Reference to ``(benchmark, unit_id) -> UnitGold``: the unit's gold facts and answers, which the
    oracle LLM endpoint answers from (``answer_llm: oracle``); None: the oracle refuses the benchmark."""
    demo: Ref | None = None
    """Reference to ``(argparse.Namespace) -> int``: what ``memsuite demo`` runs (one benchmark has it)."""
    configs: tuple[str, ...] = ()
    """Shipped config names that run this benchmark, the first being its quick one."""

    def __post_init__(self) -> None:
        for judge, needs in self.judge_needs.items():
            unknown = sorted(set(needs) - set(JUDGE_NEEDS))
            if unknown:
                raise ConfigError(
                    f"benchmark {self.name!r}: judge {judge!r} declares unknown needs {unknown} "
                    f"(known: {', '.join(JUDGE_NEEDS)})"
                )


def resolve(reference: Ref) -> Any:
    """The object a ``"module:attribute"`` reference names (the module is imported); a non-string
    reference is the object itself.

    Raises:
        ConfigError: A malformed reference, or a module without that attribute.
        ModuleNotFoundError: The module (or one it imports) is missing.
    """
    if not isinstance(reference, str):
        return reference
    module_name, sep, attribute = reference.partition(":")
    if not sep or not module_name or not attribute:
        raise ConfigError(f"bad reference {reference!r}: expected 'package.module:attribute'")
    module = importlib.import_module(module_name)
    value: Any = module
    for part in attribute.split("."):
        try:
            value = getattr(value, part)
        except AttributeError:
            raise ConfigError(f"bad reference {reference!r}: {module_name} has no {attribute}") from None
    return value


def resolve_callable(reference: Ref) -> Callable[..., Any]:
    """:func:`resolve` for a reference that must name a callable.

    Raises:
        ConfigError: It names something that is not callable.
    """
    value = resolve(reference)
    if not callable(value):
        raise ConfigError(f"{reference!r} is not callable")
    return value
