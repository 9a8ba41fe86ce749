"""The parts a benchmark's definition hands the driver besides its protocol and judges, as the
driver's readers take them: its report renderers (:data:`Renderer`, :data:`BesideRenderer`), its gold
reader for the oracle (:data:`GoldReader`), how ``memsuite compare`` reads a row's outcome
(:class:`OutcomeSpec`), the readers of stored answers ``memsuite rejudge`` reads (:class:`Format`,
giving :class:`SourceAnswer` records), the questions it judges them against (:class:`RejudgeQuestion`),
how it names its data (:class:`DataOption`) and its data catalogue entries (:class:`Dataset`).

They sit here, below the definition (:mod:`memsuite.eval.definition`) and the modules that use them
(``analysis/compare.py``, ``rejudge/``), so that a definition can name them without importing its
readers. The judge's own types are the contract's (:mod:`memsuite.eval.protocol`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memsuite.eval.protocol import Row
from memsuite.memory_systems.errors import ConfigError

if TYPE_CHECKING:  # numpy, the report package and the oracle's LLM support load only where used
    from memsuite.eval.analysis.diagnostics import Attribution
    from memsuite.eval.oracle.gold import UnitGold
    from memsuite.eval.report.model import ReportOptions, Section
    from memsuite.eval.run.folder import RunFolder

#: A benchmark's gold reader for the oracle endpoint: the built benchmark and a unit id to that unit's
#: gold (:class:`~memsuite.eval.oracle.gold.UnitGold`).
GoldReader = Callable[[Any, str], "UnitGold"]
#: A benchmark's report renderer: its runs and the report's options to its section.
Renderer = Callable[["list[RunFolder]", "ReportOptions"], "Section"]
#: A section a benchmark renders from every run of a report that holds runs of several benchmarks
#: (its own beside another's); None when the report holds nothing it compares.
BesideRenderer = Callable[["Sequence[RunFolder]"], "Section | None"]


@dataclass(frozen=True)
class Outcome:
    """One question's value under a judge, as the benchmark's rate counts it."""

    unit: str
    """The unit (episode, conversation, question) resampled with it."""
    question: str
    """Question id, unique within the unit."""
    cell: str
    """Task or category whose rate it counts in."""
    value: float
    """1.0 / 0.0 for a verdict, or a score."""
    in_overall: bool = True
    """Whether it counts in the overall rate."""


#: (rows of one system, judge) -> outcomes of the questions the rates count.
OutcomeFn = Callable[[Sequence[Row], str], list[Outcome]]


@dataclass(frozen=True)
class OutcomeSpec:
    """How a benchmark's questions are compared."""

    outcomes: OutcomeFn
    judges: tuple[str, ...]
    """Judges in order of preference; the first both sides have is the default."""
    unit: str
    """What a unit is ("episode", "conversation", "question"), for the note."""
    overall_is_mean_of_cells: bool = False
    """The overall rate is the mean of the cell rates (MEME) rather than over all questions."""
    cells: tuple[str, ...] = ()
    """Cell order in the table (others follow, sorted)."""
    stages: Callable[[Sequence[Row], Path], list[Attribution]] | None = None
    """The benchmark's failure-stage attribution of rows (with the run folder), where it has one."""
    headline: str = "overall"
    """Name of the rate the overall outcomes make: the benchmark's headline metric."""
    judge_headlines: Mapping[str, str] = field(default_factory=dict)
    """The headline's name under a judge whose outcomes are another rate (a retrieval pseudo-judge)."""
    derived: tuple[str, ...] = ()
    """Pseudo-judges computed from the rows themselves (no verdict key), available on every run."""


@dataclass(frozen=True)
class SourceAnswer:
    """One stored answer, with whatever its format says about the question it answers."""

    answer: str | None
    where: str
    """File and line or key, for messages."""
    question_id: str | None = None
    unit_id: str | None = None
    question: str | None = None
    category: str | None = None
    unit_index: int | None = None
    """Position of the answer's conversation in the benchmark file (formats without ids)."""
    published_verdict: bool | None = None
    published_judge: str | None = None
    published_judgments: tuple[bool, ...] = ()
    """Every call of the published judge, when the file keeps them (the verdict is their majority)."""
    row: Row | None = None
    """The whole row (a memsuite run folder)."""


@dataclass(frozen=True)
class Format:
    """A reader of one answer format and how to recognise its files."""

    read: Callable[[Path], list[SourceAnswer]]
    detect: Callable[[Path], bool]


@dataclass(frozen=True)
class RejudgeQuestion:
    """One question of a benchmark file as its judges take it."""

    unit_id: str
    question_id: str
    question: str
    category: str
    """The category (LoCoMo) or question type (LongMemEval), as text."""
    gold: Any
    case: Any
    """What the benchmark's judges take as ``JudgeInput.case``."""
    unit_index: int = 0
    """Position of the question's unit in the file."""
    metadata: dict[str, Any] = field(default_factory=dict)
    """Row metadata the benchmark's scores read (category, question type, ...)."""


@dataclass(frozen=True)
class DataFile:
    """One file of an entry, stored under the entry's folder at ``path``."""

    path: str
    """Where it lies under the entry's folder (the release's own layout, so loaders read it unchanged)."""
    url: str
    """The download URL, pinned to a revision."""
    sha256: str | None = None
    """The expected sha256, or None: recorded by the first verified fetch (lock file)."""
    size: int | None = None
    """Bytes, where known exactly."""


@dataclass(frozen=True)
class Dataset:
    """One catalogue entry."""

    name: str
    """The name configs and ``memsuite data`` use."""
    description: str
    licence: str
    source: str
    """The repository or dataset page the files come from."""
    revision: str
    """The pinned commit every URL names."""
    files: tuple[DataFile, ...]
    hashes: str
    """Where the expected hashes come from (or that the first fetch records them)."""
    approx_size: str = ""
    """A human size for the whole entry, when not every file's size is known."""
    folder: bool = False
    """A file set: ``memsuite data path`` names the entry's folder, not its one file."""

    @property
    def size(self) -> int | None:
        """Total bytes, when every file's size is known."""
        sizes = [f.size for f in self.files]
        return None if any(s is None for s in sizes) else sum(s for s in sizes if s is not None)

    def file(self, path: str) -> DataFile:
        """The file of this entry at ``path``.

        Raises:
            ConfigError: The entry has no such file (the message lists a few it has).
        """
        for f in self.files:
            if f.path == path:
                return f
        shown = ", ".join(f.path for f in self.files[:6]) + (", ..." if len(self.files) > 6 else "")
        raise ConfigError(f"data {self.name!r} has no file {path!r}; it has: {shown}")


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
