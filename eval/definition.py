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
decorated function. The entry points -- the runner, the command line, config validation, the
report's :func:`~memsuite.eval.report.document.build_report`, rejudge, the studies -- look a definition
up by name once and hand its parts down (the judges in :class:`~memsuite.eval.protocol.RunContext`,
the outcome specs, the scores layout, the data option); the registry hands the data catalogue the
function that gathers every definition's entries. The parts' types are the contract's
(:mod:`memsuite.eval.protocol`) and :mod:`memsuite.eval.hooks`'.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memsuite.eval.hooks import (
    BesideRenderer,
    DataOption,
    Dataset,
    Format,
    GoldReader,
    OutcomeSpec,
    RejudgeQuestion,
    Renderer,
)
from memsuite.eval.protocol import (
    BY_JUDGE,
    JUDGE_NEEDS,
    Benchmark,
    Judge,
    JudgeNeed,
    RunContext,
    ScoresLayout,
    pick_judge,
)

__all__ = [
    "JUDGE_NEEDS",
    "BenchmarkDefinition",
    "Command",
    "DataOption",
    "Judge",
    "JudgeNeed",
]


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
    scores_layout: ScoresLayout = BY_JUDGE
    """Where its ``summary.json`` keeps each judge's scores (what its ``summarize`` writes and a report
    reads back)."""
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
        return pick_judge(self.judges, judge, self.name)

    def context(self, **fields: Any) -> RunContext:
        """A run context for this benchmark: its name and its judges, with ``fields`` (``k``,
        ``judges``, ``answer_llm``, ...) as given."""
        return RunContext(benchmark=self.name, judge_set=self.judges, **fields)
