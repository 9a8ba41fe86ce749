"""A benchmark's definition: its parts as objects, declared once by a decorated function.

A benchmark package declares itself in its ``__init__.py``::

    @benchmark("beam")
    def beam() -> BenchmarkDefinition:
        \"\"\"BEAM: 128K-10M-token conversations, ten memory abilities, evidence retrieval.\"\"\"
        from . import judges, report
        from .protocol import BeamBenchmark

        return BenchmarkDefinition(protocol=BeamBenchmark, judges=judges.JUDGES, report=report.render)

The decorator (:func:`memsuite.eval.registry.benchmark`) records the name, the docstring's first line
and the function; the registry calls the function only when the definition is needed, so listing
benchmarks imports none of their code and a benchmark whose optional dependency is missing never
blocks the others. A third-party package points the entry point ``memsuite.benchmarks`` at its
decorated function. The registry, report, compare, show, rejudge, generate, calibrate, demo, the
oracle and the data catalogue read definitions; nothing else names a benchmark's parts.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from memsuite.memory_systems.errors import ConfigError

if TYPE_CHECKING:
    import argparse
    from pathlib import Path

    from memsuite.eval.analysis.compare import OutcomeSpec
    from memsuite.eval.answer import JudgeInput
    from memsuite.eval.data.catalogue import Dataset
    from memsuite.eval.oracle.gold import GoldReader
    from memsuite.eval.protocol import Benchmark
    from memsuite.eval.rejudge.formats import Format
    from memsuite.eval.rejudge.questions import RejudgeQuestion
    from memsuite.eval.report.model import BesideRenderer, Renderer

#: What a judge needs from a run: an answer (an answer LLM, or stored answers when rejudging), a judge
#: LLM (``judge_llm``, else the answer LLM), gold evidence in the data.
JudgeNeed = Literal["answer", "llm", "evidence"]
JUDGE_NEEDS: tuple[str, ...] = ("answer", "llm", "evidence")


@dataclass(frozen=True)
class Judge:
    """A judge: a function of a :class:`~memsuite.eval.answer.JudgeInput` to a verdict dict
    (``correct`` at least), with what it needs from a run.

    Validation refuses a config that does not meet the needs; the answer step
    (:func:`memsuite.eval.answer.judge`) skips a judge of the answer when there is none, and hands a
    judge that needs ``llm`` the judge LLM.
    """

    judge: Callable[[JudgeInput], Mapping[str, Any]]
    needs: tuple[JudgeNeed, ...]
    """Any of :data:`JUDGE_NEEDS`; () for a judge of the retrieved context alone."""

    def __post_init__(self) -> None:
        unknown = sorted(set(self.needs) - set(JUDGE_NEEDS))
        if unknown:
            raise ConfigError(f"judge needs {unknown} are unknown (known: {', '.join(JUDGE_NEEDS)})")

    @property
    def needs_answer(self) -> bool:
        """Judges the answer: skipped without an answer call, failed (not called) when the call failed."""
        return "answer" in self.needs

    @property
    def uses_llm(self) -> bool:
        """Calls the judge LLM (``JudgeInput.llm``); a run asking for it needs a judge LLM."""
        return "llm" in self.needs


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
    """A benchmark's own subcommand (``memsuite generate NAME``, ``memsuite calibrate RUN_DIR``)."""

    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    """Declares its options."""
    run: Callable[[argparse.Namespace], int]
    """Carries it out; the exit code."""


@dataclass(frozen=True)
class BenchmarkDefinition:
    """One benchmark's parts. ``name`` and ``description`` come from its declaration (the registry
    fills them in); the parts never repeat the name."""

    protocol: Callable[..., Benchmark]
    """``(**benchmark_options) -> Benchmark``: the protocol class (or a factory of it)."""
    judges: Mapping[str, Judge] = field(default_factory=dict)
    """Judge name -> judge; empty: the protocol judges rows itself (any judge names are accepted)."""
    report: Renderer | None = None
    """The report renderer ``(runs, ReportOptions) -> Section``; None: a generic table."""
    beside: BesideRenderer | None = None
    """The section it adds to a report that also holds runs of other benchmarks (its runs beside
    another benchmark's), ``(runs) -> Section | None``; None: none."""
    outcomes: OutcomeSpec | None = None
    """How ``memsuite compare`` reads a row's outcome."""
    rejudge: Callable[[Path | None], list[RejudgeQuestion]] | None = None
    """The rejudge question reader ``(data) -> questions``; None: ``memsuite rejudge`` refuses it."""
    answer_formats: Mapping[str, Format] = field(default_factory=dict)
    """Format name -> reader of published answer files ``memsuite rejudge`` reads for it."""
    commands: Mapping[str, Command] = field(default_factory=dict)
    """Verb (``generate``, ``calibrate``) -> the benchmark's command under it."""
    demo: Callable[[argparse.Namespace], int] | None = None
    """What ``memsuite demo`` runs (one benchmark has it)."""
    oracle_gold: GoldReader | None = None
    """``(benchmark, unit_id) -> UnitGold``: the unit's gold facts and answers, which the oracle LLM
    endpoint answers from (``answer_llm: oracle``); None: the oracle refuses the benchmark."""
    data: DataOption | None = None
    """How it names its real data (validation refuses a catalogue entry not fetched; the run header
    records the data by name); None: it has no data option."""
    catalogue: tuple[Dataset, ...] = ()
    """Its entries in the data catalogue (``memsuite data``): files, pinned URLs, hashes."""
    name: str = ""
    """The name configs use (``benchmark: NAME``), from the declaration."""
    description: str = ""
    """One line for ``memsuite benchmarks``, from the declaration."""

    def get_judge(self, judge: str) -> Judge:
        """The judge ``judge``.

        Raises:
            ConfigError: No such judge (closest match and the benchmark's judges in the message).
        """
        found = self.judges.get(judge)
        if found is not None:
            return found
        known = sorted(self.judges)
        close = difflib.get_close_matches(judge, known, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ConfigError(f"unknown {self.name} judge {judge!r}{hint}; known: {', '.join(known)}")
