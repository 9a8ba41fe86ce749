"""Failure-stage attribution, the part every benchmark shares: where along encode -> maintain ->
retrieve -> answer a question fails, and the per-(system, task) table of first failures.

A benchmark decides the four verdicts of its rows from its own artefacts (MEME:
:mod:`memsuite.eval.benchmarks.meme.diagnostics`; DynamicMem:
:mod:`memsuite.eval.benchmarks.dynamicmem.diagnostics`) and returns :class:`Attribution` records; this module
holds the stages, the first-failure rule, the answer-verdict choice, where protocols write memory snapshots,
and the aggregation.

Stages (each True, False, or None when the artefact it needs is missing):

- ``encoded``: what the question needs reached the memory after the input that conveyed it.
- ``maintained``: the memory at question time holds the current state.
- ``retrieved``: the context handed to the answer LLM holds what the question needs.
- ``answered``: the answer judge passed -- the LLM judge when the row has one, else the rule judge;
  None when the run had no answer LLM (retrieval-only runs stop at ``retrieved``).

The first stage that is False is the question's ``first_failure``; ``none`` when no stage failed.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from memsuite.eval.analysis.stats import Interval, bootstrap_interval
from memsuite.eval.protocol import Row

#: Stages in pipeline order.
STAGES = ("encoded", "maintained", "retrieved", "answered")
#: ``first_failure`` values: a stage, or "none" when nothing failed.
OUTCOMES = (*STAGES, "none")
#: Answer judges, most paper-like first (the papers judge with an LLM).
ANSWER_JUDGES = ("llm", "rule")


@dataclass(frozen=True)
class Attribution:
    """The four stage verdicts of one question (MEME) or state key (DynamicMem)."""

    system: str
    """System label of the row."""
    unit_id: str
    """The unit (episode, user)."""
    question_id: str
    """Question id within the unit."""
    task: str
    """Task code or category: the column a stage table groups by."""
    phase: str
    """The question's phase (MEME: ``before`` / ``after`` the change; DynamicMem: the key's change)."""
    encoded: bool | None
    """What the question needs reached the memory after the input that conveyed it."""
    maintained: bool | None
    """The memory at question time holds the current state."""
    retrieved: bool | None
    """The context handed to the answer LLM holds what the question needs."""
    answered: bool | None
    """The answer judge passed (None: no answer, or the judge failed)."""
    answer_judge: str | None
    """Which verdict ``answered`` is: ``llm`` or ``rule`` (None without an answer)."""
    reasons: dict[str, str] = field(default_factory=dict, hash=False)
    """Stage -> why it failed or could not be decided."""

    @property
    def first_failure(self) -> str:
        """The first stage that is False, or ``none``."""
        return next((s for s in STAGES if getattr(self, s) is False), "none")

    def to_dict(self) -> dict[str, Any]:
        """As JSON, with ``first_failure``."""
        return {**asdict(self), "first_failure": self.first_failure}


def answer_verdict(row: Row) -> tuple[bool | None, str | None]:
    """The ``answered`` stage of a row: (passed, judge) from the most paper-like judge that decided."""
    for judge in ANSWER_JUDGES:
        verdict = row.verdicts.get(judge)
        if isinstance(verdict, Mapping) and verdict.get("correct") is not None:
            return bool(verdict["correct"]), judge
    return None, None


def attribute_units(
    rows: Iterable[Row],
    keep: Callable[[Row], bool],
    load: Callable[[str, str], Any] | None,
    attribute: Callable[[Row, Any], Attribution],
) -> list[Attribution]:
    """``attribute(row, artefacts)`` for every row ``keep`` accepts, in row order, where the unit's
    artefacts (snapshots, probes) are loaded once per (system, unit) by ``load`` (None: without them)."""
    cache: dict[tuple[str, str], Any] = {}
    out = []
    for row in rows:
        if not keep(row):
            continue
        key = (row.system, row.unit_id)
        if key not in cache:
            cache[key] = load(*key) if load is not None else None
        out.append(attribute(row, cache[key]))
    return out


# -- run folders ---------------------------------------------------------------------------------------


def snapshots_path(run_path: Path, system: str, unit_id: str) -> Path:
    """Where a protocol writes a unit's memory snapshots (the runner's per-unit work folder)."""
    return Path(run_path) / "work" / system / unit_id.replace("/", "_") / "snapshots.jsonl.gz"


# -- aggregation ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StageCell:
    """Share of one (system, task)'s questions failing first at each stage."""

    system: str
    task: str
    n: int
    """Questions counted."""
    shares: dict[str, float]
    """Outcome (:data:`OUTCOMES`) -> share of the ``n`` questions (sums to 1)."""
    answer_judge: str | None
    """The judge behind ``answered`` (``llm``, ``rule``, ``mixed``), or None when nothing was judged."""
    intervals: dict[str, Interval] = field(default_factory=dict)
    """Outcome -> 95 % interval of its share, resampling units (episodes, users) whole: questions of
    one unit share a memory, so they fail together."""


def stage_table(
    attributions: Iterable[Attribution], *, phase: str | None, tasks: Sequence[str]
) -> list[StageCell]:
    """Aggregate per system and task (in ``tasks`` order), over one phase's questions.

    Args:
        attributions: A benchmark's attributions (its ``attribute_rows``).
        phase: Count only this phase (MEME's failure analysis: ``after``); None counts every phase.
        tasks: Task codes in table order (DynamicMem passes its state categories).

    Returns:
        One cell per (system, task) that has questions, with each share's interval; systems in
        first-seen order.
    """
    groups: dict[tuple[str, str], list[Attribution]] = defaultdict(list)
    systems: list[str] = []
    for a in attributions:
        if phase is not None and a.phase != phase:
            continue
        if a.system not in systems:
            systems.append(a.system)
        groups[(a.system, a.task)].append(a)
    cells = []
    for system in systems:
        for task in tasks:
            items = groups.get((system, task))
            if not items:
                continue
            counts = Counter(a.first_failure for a in items)
            judges = {a.answer_judge for a in items if a.answer_judge}
            judge = judges.pop() if len(judges) == 1 else ("mixed" if judges else None)
            shares = {o: counts.get(o, 0) / len(items) for o in OUTCOMES}
            units = [a.unit_id for a in items]
            intervals = {
                o: bootstrap_interval([float(a.first_failure == o) for a in items], units) for o in OUTCOMES
            }
            found = {o: i for o, i in intervals.items() if i is not None}
            cells.append(StageCell(system, task, len(items), shares, judge, found))
    return cells


def format_stage_table(cells: Sequence[StageCell], *, task_label: str = "task") -> str:
    """The stage table as Markdown: one line per (system, task), shares failing first at each stage."""
    header = f"| system | {task_label} | n | " + " | ".join(OUTCOMES) + " | answer judge |"
    lines = [header, "|" + "---|" * (len(OUTCOMES) + 4)]
    for c in cells:
        shares = " | ".join(f"{c.shares[o]:.2f}" for o in OUTCOMES)
        lines.append(f"| {c.system} | {c.task} | {c.n} | {shares} | {c.answer_judge or 'none'} |")
    return "\n".join(lines)
