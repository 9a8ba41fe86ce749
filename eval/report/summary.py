"""A run's ``summary.json`` as typed data: one :class:`SystemSummary` per system, holding the benchmark's
scores as its summarize wrote them, its usage, its units and its failed calls.

Where a benchmark keeps each judge's scores differs (MEME and LoCoMo under ``by_judge``, WMB-100K under
``judges``, LongMemEval and BEAM at the top level under the judge's name, DynamicMem its rule judge at the
top level and the LLM judge under ``llm_judge``), so a renderer passes its benchmark's :data:`JudgesOf`
(:func:`under`, :func:`at_top`, or its own) to :meth:`SystemSummary.judges`. The file itself is read and
written unchanged, so every run folder, old or new, reports the same.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from memsuite.memory_systems.records import Usage

#: A benchmark's reading of one system's scores: judge name -> that judge's scores (its own layout).
JudgesOf = Callable[[Mapping[str, Any]], dict[str, Mapping[str, Any]]]


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
