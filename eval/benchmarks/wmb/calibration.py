"""WMB-100K abstention calibration: choose the relevance cutoff (``benchmark_options.min_score``) on a
tuning split of a run made without one, and report the held-out split at the same cutoff.

A cutoff only drops hits, so every row's outcome is a step function of it (:class:`_Steps`): one run
without a cutoff re-judges every candidate offline with the coverage judge, no system or model call.
:func:`calibrate` works on one system's rows; :func:`calibrate_run` on a whole run folder, writing
``calibration.json`` beside it (``memsuite calibrate RUN_DIR``).
"""

from __future__ import annotations

import bisect
import hashlib
import json
import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from memsuite.eval.benchmarks.wmb.schema import FALSE_MEMORY, HEADLINE_QTYPE, SITUATIONAL_QTYPES
from memsuite.eval.benchmarks.wmb.scoring import (
    FM_PENALTY,
    _is_part_a,
    _latency,
    _merges,
    _minus,
    _qtype,
    _ratio,
    _situational_verdict,
    kept_hits,
    speed_penalty,
)
from memsuite.eval.protocol import Row
from memsuite.eval.run.folder import load_run
from memsuite.memory_systems.errors import ConfigError

#: The file :func:`calibrate_run` writes into the run folder.
CALIBRATION_FILE = "calibration.json"


@dataclass(frozen=True)
class CurvePoint:
    """Scores of one split at one abstention cutoff."""

    threshold: float | None
    """Minimum relevance score a hit needs to be returned; None = no cutoff."""
    part_b: float | None
    """Situational accuracy, points of 100 (None without situational questions)."""
    correct: int
    """Situational questions judged correct."""
    questions: int
    """Situational questions in the split."""
    fm_false_positives: int
    """Probes of the split that returned something."""
    fm_probes: int
    """Probes in the split."""
    fm_penalty: float
    """FM penalty estimated for the whole row set: the split's false-positive rate x all probes x 0.25."""
    speed_penalty: float
    """Speed penalty of all rows (a cutoff does not change search latency)."""
    total: float | None
    """part_b - fm_penalty - speed_penalty."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Calibration:
    """The cutoff chosen on the tuning split, and the trade-off curves of both splits."""

    threshold: float | None
    """The cutoff with the best tuning total (the lowest such cutoff on ties; None = no cutoff)."""
    tune: tuple[CurvePoint, ...]
    """Tuning split: one point per candidate cutoff, ascending (no cutoff first)."""
    test: tuple[CurvePoint, ...]
    """Held-out split at the same cutoffs (empty when the tuning split takes every row)."""
    tune_ids: tuple[str, ...]
    """Question ids of the tuning split."""
    test_ids: tuple[str, ...]
    """Question ids of the held-out split."""

    @property
    def best(self) -> CurvePoint:
        """The tuning split's point at the chosen cutoff."""
        return next(p for p in self.tune if p.threshold == self.threshold)

    @property
    def held_out(self) -> CurvePoint | None:
        """The held-out split's point at the chosen cutoff (None without a held-out split)."""
        return next((p for p in self.test if p.threshold == self.threshold), None)

    def to_dict(self) -> dict[str, Any]:
        held = self.held_out
        return {
            "threshold": self.threshold,
            "best": self.best.to_dict(),
            "held_out": held.to_dict() if held else None,
            "tune": [p.to_dict() for p in self.tune],
            "test": [p.to_dict() for p in self.test],
            "tune_ids": list(self.tune_ids),
            "test_ids": list(self.test_ids),
        }


class _Steps:
    """One row's outcome as a step function of the cutoff (it changes only at the hits' scores)."""

    def __init__(self, row: Row) -> None:
        hits = row.metadata.get("hits") or []
        self.levels = sorted({float(hit["score"]) for hit in hits})
        self.is_probe = _qtype(row) == FALSE_MEMORY
        # outcome[i]: cutoff at levels[i]; outcome[len(levels)]: every hit dropped.
        self.outcomes = []
        for cutoff in [*self.levels, math.inf]:
            memories = [hit["text"] for hit in kept_hits(hits, cutoff, merge=_merges(row))]
            if self.is_probe:
                self.outcomes.append(bool(memories))  # a false positive
            else:
                self.outcomes.append(bool(_situational_verdict(row, memories)["correct"]))

    def at(self, threshold: float | None) -> bool:
        if threshold is None:
            return self.outcomes[0]
        return self.outcomes[bisect.bisect_left(self.levels, threshold)]


def _split(ids: Sequence[str], tune_fraction: float) -> set[str]:
    """The tuning share of ``ids``: a fixed function of the ids (sha256 order), same on every run."""
    ordered = sorted(ids, key=lambda qid: hashlib.sha256(qid.encode()).hexdigest())
    return set(ordered[: round(len(ordered) * tune_fraction)])


def _candidates(steps: Iterable[_Steps], max_points: int) -> list[float | None]:
    scores = sorted({level for step in steps for level in step.levels})
    if len(scores) > max_points:
        # Evenly spaced ranks keep the curve's shape at a bounded cost.
        picks = {round(i * (len(scores) - 1) / (max_points - 1)) for i in range(max_points)}
        scores = [scores[i] for i in sorted(picks)]
    nothing = [math.nextafter(scores[-1], math.inf)] if scores else []
    return [None, *scores, *nothing]


def calibrate(
    rows: Sequence[Row],
    *,
    thresholds: Sequence[float | None] | None = None,
    tune_fraction: float = 0.5,
    headline_only: bool = True,
    max_points: int = 200,
) -> Calibration:
    """Pick the abstention cutoff that maximises the total, and the Part B / FM trade-off curve.

    Uses the Part B FalseMemory probes and situational questions (S1 only by default, the headline;
    S1-S7 with ``headline_only=False``) of one system's rows, judged by the coverage judge (the only
    judge that can re-judge a new cutoff without calls). Each stratum (probes, situational questions)
    is split by a fixed hash of the question id: ``tune_fraction`` tunes, the rest is held out and
    only reported. Totals on a split estimate the whole row set's total: Part B is a rate, the FM
    penalty is the split's false-positive rate times all probes times 0.25, the speed penalty that of
    all rows (a cutoff does not change latency). So the numbers of a split of any size are comparable.

    Args:
        rows: One system's rows from the WMB protocol, run without a cutoff (or a lower one than any
            candidate): ``metadata["hits"]`` must hold every hit with its score.
        thresholds: Candidate cutoffs (None = no cutoff); default no cutoff, every distinct hit score
            of the tuning rows (at most ``max_points``, evenly spaced by rank) and one above the
            highest (return nothing).
        tune_fraction: Share of each stratum used for tuning, in (0, 1].
        headline_only: Tune the S1 headline (default) or Part B over S1-S7.
        max_points: Bound on the default candidates.

    Returns:
        The chosen cutoff and both splits' curves.

    Raises:
        ConfigError: ``tune_fraction`` outside (0, 1], or no probe and no situational row to tune on.
    """
    if not 0 < tune_fraction <= 1:
        raise ConfigError(f"calibrate: tune_fraction must be in (0, 1], got {tune_fraction!r}")
    wanted = {HEADLINE_QTYPE} if headline_only else set(SITUATIONAL_QTYPES)
    chosen = [
        row for row in rows if not _is_part_a(row) and (_qtype(row) == FALSE_MEMORY or _qtype(row) in wanted)
    ]
    if not chosen:
        raise ConfigError("calibrate: no Part B FalseMemory or situational rows to tune on")
    steps = {row.question_id: _Steps(row) for row in chosen}
    probe_ids = [row.question_id for row in chosen if _qtype(row) == FALSE_MEMORY]
    question_ids = [row.question_id for row in chosen if _qtype(row) != FALSE_MEMORY]
    tune_ids = _split(probe_ids, tune_fraction) | _split(question_ids, tune_fraction)
    test_ids = set(steps) - tune_ids
    all_probes = len(probe_ids)
    speed = sum(speed_penalty(_latency(row)) for row in rows)
    if thresholds is None:
        thresholds = _candidates((steps[qid] for qid in tune_ids), max_points)

    def point(ids: set[str], threshold: float | None) -> CurvePoint:
        outcome = Counter()
        for qid in ids:
            step = steps[qid]
            hit = step.at(threshold)
            outcome["probes" if step.is_probe else "questions"] += 1
            outcome["false_positives" if step.is_probe else "correct"] += hit
        part_b = _ratio(outcome["correct"], outcome["questions"])
        fp_rate = outcome["false_positives"] / outcome["probes"] if outcome["probes"] else 0.0
        fm = fp_rate * all_probes * FM_PENALTY
        return CurvePoint(
            threshold,
            part_b,
            outcome["correct"],
            outcome["questions"],
            outcome["false_positives"],
            outcome["probes"],
            fm,
            speed,
            _minus(part_b, fm, speed),
        )

    tune = tuple(point(tune_ids, t) for t in thresholds)
    test = tuple(point(test_ids, t) for t in thresholds) if test_ids else ()
    best = max(tune, key=lambda p: -math.inf if p.total is None else p.total)  # max keeps the first on ties
    return Calibration(best.threshold, tune, test, tuple(sorted(tune_ids)), tuple(sorted(test_ids)))


def calibrate_run(
    run_dir: Path | str, *, tune_fraction: float = 0.5, headline_only: bool = True
) -> tuple[dict[str, Calibration], Path]:
    """Calibrate every system of a WMB-100K run folder and write the curves to ``calibration.json``.

    Args:
        run_dir: A WMB run folder, run without ``min_score`` (or with a lower one than any candidate).
        tune_fraction: Share of each stratum used for tuning, in (0, 1].
        headline_only: Tune the S1 headline (default) or Part B over S1-S7.

    Returns:
        System -> its calibration (systems sorted by name), and the file written.

    Raises:
        ConfigError: The folder is not a WMB-100K run, or a system has nothing to tune on.
    """
    folder = load_run(run_dir)
    if folder.header()["config"]["benchmark"] != "wmb":
        raise ConfigError(f"{run_dir} is not a WMB-100K run")
    rows_by_system: dict[str, list[Row]] = {}
    for row in folder.rows():
        rows_by_system.setdefault(row.system, []).append(row)
    results = {
        system: calibrate(rows, tune_fraction=tune_fraction, headline_only=headline_only)
        for system, rows in sorted(rows_by_system.items())
    }
    out = folder.path / CALIBRATION_FILE
    out.write_text(json.dumps({system: result.to_dict() for system, result in results.items()}, indent=2))
    return results, out


def format_calibration(system: str, result: Calibration, points: int = 12) -> list[str]:
    """Lines a terminal shows for one system: the chosen cutoff and about ``points`` tuning points."""
    best, held = result.best, result.held_out
    lines = [
        f"{system}: min_score = {result.threshold}  (tune total {best.total:.1f}"
        + (f", held-out total {held.total:.1f})" if held else ")"),
        f"  {'cutoff':>10} {'part_b':>8} {'fm_pen':>8} {'total':>8}   (tuning split)",
    ]
    step = max(1, len(result.tune) // points)
    for point in result.tune[::step]:
        cutoff = "none" if point.threshold is None else f"{point.threshold:.4f}"
        lines.append(f"  {cutoff:>10} {point.part_b:8.1f} {point.fm_penalty:8.2f} {point.total:8.1f}")
    return lines
