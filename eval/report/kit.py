"""The report kit: a run's ``summary.json`` as typed data, and the helpers every benchmark's renderer
shares -- percentages, judge order, rates with their intervals, the metrics of a ranking of the whole
corpus.

A system's summary (:class:`SystemSummary`) holds the benchmark's scores as its summarize wrote them,
its usage, its units and its failed calls. Where a benchmark keeps each judge's scores differs (MEME and
LoCoMo under ``by_judge``, WMB-100K under ``judges``, LongMemEval and BEAM at the top level under the
judge's name, DynamicMem its rule judge at the top level and the LLM judge under ``llm_judge``), so a
renderer passes its benchmark's :data:`JudgesOf` (:func:`under`, :func:`at_top`, or its own) to
:meth:`SystemSummary.judges`; the file itself is read and written unchanged, so every run folder, old or
new, reports the same.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, TypeVar

from memsuite.eval.report.intervals import cell_intervals
from memsuite.eval.stats import Interval
from memsuite.memory_systems.records import Usage

if TYPE_CHECKING:
    from memsuite.eval.report.runs import RunInfo

#: A benchmark's reading of one system's scores: judge name -> that judge's scores (its own layout).
JudgesOf = Callable[[Mapping[str, Any]], dict[str, Mapping[str, Any]]]
Key = TypeVar("Key", bound=Hashable)
Item = TypeVar("Item")


def under(key: str) -> JudgesOf:
    """Judges kept in one mapping of the scores (``by_judge``: judge -> scores)."""

    def judges(scores: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
        found = scores.get(key)
        if not isinstance(found, Mapping):
            return {}
        return {str(j): s for j, s in found.items() if isinstance(s, Mapping)}

    return judges


def at_top(*names: str) -> JudgesOf:
    """Judges kept at the top level of the scores under their own names (a judge no row carried is
    absent or None there)."""

    def judges(scores: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
        return {j: scores[j] for j in names if isinstance(scores.get(j), Mapping)}

    return judges


#: The layout most benchmarks use.
BY_JUDGE = under("by_judge")


def _usage(data: Any) -> Usage:
    known = {f.name for f in fields(Usage)}
    if not isinstance(data, Mapping):
        return Usage()
    return Usage(**{k: v for k, v in data.items() if k in known})


@dataclass(frozen=True)
class SystemSummary:
    """One system of a run, as ``summary.json`` holds it."""

    system: str
    scores: Mapping[str, Any] = field(default_factory=dict)
    """The benchmark's scores over the system's rows, in the benchmark's own layout."""
    usage: Usage = field(default_factory=Usage)
    """LLM calls, tokens, embedded texts and wall time per phase over the finished units."""
    units: Mapping[str, int] = field(default_factory=dict)
    """Units by status (``done``, ``error``)."""
    wall_s: float = 0.0
    """Wall time of the finished units, seconds."""
    failed_calls: Mapping[str, int] = field(default_factory=dict)
    """LLM calls that failed for good (``answer``, ``judge``): their rows are out of every rate."""

    @classmethod
    def from_json(cls, system: str, data: Mapping[str, Any]) -> SystemSummary:
        """One entry of ``summary.json`` (missing parts empty: a run made before they were recorded)."""
        scores = data.get("scores")
        return cls(
            system,
            scores if isinstance(scores, Mapping) else {},
            _usage(data.get("usage")),
            dict(data.get("units") or {}),
            float(data.get("wall_s") or 0.0),
            dict(data.get("failed_calls") or {}),
        )

    def to_json(self) -> dict[str, Any]:
        """The entry as ``summary.json`` holds it."""
        return {
            "scores": dict(self.scores),
            "usage": self.usage.to_dict(),
            "units": dict(self.units),
            "wall_s": self.wall_s,
            "failed_calls": dict(self.failed_calls),
        }

    def judges(self, judges_of: JudgesOf = BY_JUDGE) -> dict[str, Mapping[str, Any]]:
        """Judge -> its scores, read with the benchmark's layout."""
        return judges_of(self.scores)

    def judge(self, name: str, judges_of: JudgesOf = BY_JUDGE) -> Mapping[str, Any] | None:
        """One judge's scores, or None when the system has none under it."""
        return judges_of(self.scores).get(name)

    def part(self, key: str) -> Mapping[str, Any]:
        """A mapping of the scores (``source``, ``retrieval``, ``result_json``); empty when absent."""
        found = self.scores.get(key)
        return found if isinstance(found, Mapping) else {}


@dataclass(frozen=True)
class Summary:
    """A run's ``summary.json``: one :class:`SystemSummary` per system."""

    systems: Mapping[str, SystemSummary] = field(default_factory=dict)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Summary:
        return cls({str(s): SystemSummary.from_json(str(s), e or {}) for s, e in data.items()})

    def to_json(self) -> dict[str, Any]:
        return {system: entry.to_json() for system, entry in self.systems.items()}

    def system(self, name: str) -> SystemSummary:
        """One system's summary (empty for a system the run did not score)."""
        return self.systems.get(name) or SystemSummary(name)


# -- helpers every renderer shares ---------------------------------------------------------------------


def percent(value: float | None) -> float | None:
    """A rate in 0..1 as a percentage (None stays None: not measured)."""
    return None if value is None else 100.0 * float(value)


def percent_intervals(found: Mapping[Key, Interval]) -> dict[Key, Interval]:
    """Intervals of rates in 0..1 as percentages."""
    return {cell: interval.scaled(100.0) for cell, interval in found.items()}


def rate_intervals(
    rows: Iterable[Item],
    value: Callable[[Item], float | None],
    cells: Callable[[Item], Iterable[Hashable]],
    unit: Callable[[Item], Hashable] | None = None,
    group: Callable[[Item], Hashable] | None = None,
) -> dict[Hashable, Interval]:
    """Each cell's rate with its interval, in percent (:func:`~.intervals.cell_intervals` x 100)."""
    return percent_intervals(cell_intervals(rows, value, cells, unit, group))


def ranking_intervals(
    rows: Iterable[Item],
    metric: Callable[[Item, str], float | None],
    names: Sequence[str],
    unit: Callable[[Item], Hashable] | None = None,
) -> dict[str, Interval]:
    """Metric name -> interval in percent of its mean over the rows, for the metrics of a ranking of the
    whole corpus (``recall_all@10``, ``ndcg_any@5``); ``metric(row, name)`` is None where a row has none."""
    rows = list(rows)
    out: dict[str, Interval] = {}
    for name in names:
        found = rate_intervals(rows, lambda r, n=name: metric(r, n), lambda r, n=name: (n,), unit)
        out.update({str(cell): interval for cell, interval in found.items()})
    return out


def judge_order(present: Iterable[str], preferred: Sequence[str]) -> list[str]:
    """The judges present, the preferred ones first in their order (most paper-like first), then the
    rest by name."""
    present = set(present)
    return [j for j in preferred if j in present] + sorted(present - set(preferred))


def judges_in(runs: Sequence[RunInfo], judges_of: JudgesOf, preferred: Sequence[str]) -> list[str]:
    """Every judge any system of the runs has scores under, in :func:`judge_order`."""
    present = {j for run in runs for s in run.systems for j in run.system_summary(s).judges(judges_of)}
    return judge_order(present, preferred)
