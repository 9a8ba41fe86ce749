"""A run's ``summary.json`` as typed data: one :class:`SystemSummary` per system, holding the benchmark's
:class:`~memsuite.eval.protocol.Scores` (read back with the layout its definition names, the one its
``summarize`` wrote), its usage, its units and its failed calls.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from memsuite.eval.protocol import BY_JUDGE, Scores, ScoresLayout
from memsuite.memory_systems.records import Usage


def _usage(data: Any) -> Usage:
    known = {f.name for f in fields(Usage)}
    if not isinstance(data, Mapping):
        return Usage()
    return Usage(**{k: v for k, v in data.items() if k in known})


@dataclass(frozen=True)
class SystemSummary:
    """One system of a run, as ``summary.json`` holds it."""

    system: str
    scores: Scores = field(default_factory=Scores)
    """The benchmark's scores over the system's rows."""
    usage: Usage = field(default_factory=Usage)
    """LLM calls, tokens, embedded texts and wall time per phase over the finished units."""
    units: Mapping[str, int] = field(default_factory=dict)
    """Units by status (``done``, ``error``)."""
    wall_s: float = 0.0
    """Wall time of the finished units, seconds."""
    failed_calls: Mapping[str, int] = field(default_factory=dict)
    """LLM calls that failed for good (``answer``, ``judge``): their rows are out of every rate."""

    @classmethod
    def from_json(
        cls, system: str, data: Mapping[str, Any], layout: ScoresLayout = BY_JUDGE
    ) -> SystemSummary:
        """One entry of ``summary.json`` (missing parts empty: a run made before they were recorded)."""
        return cls(
            system,
            Scores.from_json(data.get("scores"), layout),
            _usage(data.get("usage")),
            dict(data.get("units") or {}),
            float(data.get("wall_s") or 0.0),
            dict(data.get("failed_calls") or {}),
        )

    def to_json(self) -> dict[str, Any]:
        """The entry as ``summary.json`` holds it."""
        return {
            "scores": self.scores.to_json(),
            "usage": self.usage.to_dict(),
            "units": dict(self.units),
            "wall_s": self.wall_s,
            "failed_calls": dict(self.failed_calls),
        }


@dataclass(frozen=True)
class Summary:
    """A run's ``summary.json``: one :class:`SystemSummary` per system."""

    systems: Mapping[str, SystemSummary] = field(default_factory=dict)
    layout: ScoresLayout = BY_JUDGE

    @classmethod
    def from_json(cls, data: Mapping[str, Any], layout: ScoresLayout = BY_JUDGE) -> Summary:
        entries = {str(s): SystemSummary.from_json(str(s), e or {}, layout) for s, e in data.items()}
        return cls(entries, layout)

    def to_json(self) -> dict[str, Any]:
        return {system: entry.to_json() for system, entry in self.systems.items()}

    def system(self, name: str) -> SystemSummary:
        """One system's summary (empty for a system the run did not score)."""
        return self.systems.get(name) or SystemSummary(name, Scores(layout=self.layout))
