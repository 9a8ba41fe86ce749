"""Uncertainty of rates and of differences between systems: pure functions of per-question values.

Intervals are percentile bootstraps (95 %, :data:`RESAMPLES` resamples, seeded by :data:`SEED`, so
a report prints the same interval every time). Questions of one unit (a MEME episode, a LoCoMo
conversation, a DynamicMem user) share a memory and are correlated, so the bootstrap resamples
whole units when the caller names each value's unit (a cluster bootstrap); with every value its own
unit it is the plain bootstrap over questions. A rate that is a mean of per-group means (MEME's
Overall: the mean of six task rates) is bootstrapped as that statistic by naming each value's group.

Two systems answered the same questions: :func:`paired_difference` bootstraps the mean of the
per-question differences (resampling units, so both systems get the same resample) and
:func:`mcnemar_exact` tests binary verdicts on the discordant pairs (exact two-sided binomial).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.stats import binom

#: Bootstrap resamples per interval.
RESAMPLES = 2000
#: Seed of every bootstrap (fixed: a report is a pure function of its run folders).
SEED = 0
#: Coverage of every interval.
LEVEL = 0.95
#: A cell with fewer values than this is marked too small to read: its interval is too wide to
#: tell systems apart (with 10 binary verdicts a 95 % interval spans about +-0.3).
MIN_N = 10
#: A cell resampling fewer units than this is marked too small to read as well: a cluster bootstrap
#: over two episodes sees two resamplable values, and its interval understates the spread.
MIN_UNITS = 5


@dataclass(frozen=True)
class Interval:
    """A statistic with its bootstrap interval."""

    value: float
    """The statistic on the data itself."""
    lo: float
    """Lower end of the interval."""
    hi: float
    """Upper end of the interval."""
    n: int
    """Values behind the statistic (questions)."""
    units: int
    """Resampled units (equal to ``n`` when each question is its own unit)."""

    @property
    def too_small(self) -> bool:
        """Whether ``n`` is below :data:`MIN_N` or ``units`` below :data:`MIN_UNITS`."""
        return self.n < MIN_N or self.units < MIN_UNITS

    def scaled(self, factor: float) -> Interval:
        """The same interval in other units (x100 for a percentage)."""
        return Interval(self.value * factor, self.lo * factor, self.hi * factor, self.n, self.units)


def _index(keys: Sequence[Hashable]) -> tuple[np.ndarray, int]:
    codes: dict[Hashable, int] = {}
    return np.array([codes.setdefault(k, len(codes)) for k in keys], dtype=int), len(codes)


def _statistic_samples(
    values: Sequence[float],
    units: Sequence[Hashable] | None,
    groups: Sequence[Hashable] | None,
    resamples: int,
    seed: int,
) -> tuple[float, np.ndarray, int]:
    """The statistic on the data and on each unit resample (NaN where a resample lacks a group)."""
    x = np.asarray(values, dtype=float)
    unit_codes, n_units = _index(units if units is not None else range(len(x)))
    group_codes, n_groups = _index(groups if groups is not None else [0] * len(x))
    # Per unit and group: sum and count of the values; a resample is a multiset of units.
    # bincount over flat (unit, group) cells: np.add.at does the same sums tens of times slower.
    cells = unit_codes * n_groups + group_codes
    sums = np.bincount(cells, weights=x, minlength=n_units * n_groups).reshape(n_units, n_groups)
    counts = np.bincount(cells, minlength=n_units * n_groups).reshape(n_units, n_groups).astype(float)
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, n_units, size=(resamples, n_units))
    # How often each unit is drawn in each resample, then the weighted sums per group.
    flat = (np.arange(resamples)[:, None] * n_units + draws).ravel()
    weights = np.bincount(flat, minlength=resamples * n_units).reshape(resamples, n_units).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        group_means = (weights @ sums) / (weights @ counts)
        point = (sums.sum(0) / counts.sum(0)).mean()
    return float(point), group_means.mean(axis=1), n_units


def bootstrap_interval(
    values: Sequence[float],
    units: Sequence[Hashable] | None = None,
    groups: Sequence[Hashable] | None = None,
    *,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> Interval | None:
    """The mean of ``values`` (or the mean of per-group means) with its 95 % bootstrap interval.

    Args:
        values: One value per question (1.0 / 0.0 for a binary verdict, or a score).
        units: Each value's unit; units are resampled whole. Default: every value its own unit.
        groups: Each value's group; the statistic is then the unweighted mean of the group means.
        resamples: Bootstrap resamples.
        seed: Seed of the resampling.

    Returns:
        The interval, or None for no values.
    """
    if not len(values):
        return None
    point, samples, n_units = _statistic_samples(values, units, groups, resamples, seed)
    samples = samples[~np.isnan(samples)]
    tail = (1 - LEVEL) / 2 * 100
    lo, hi = np.percentile(samples, [tail, 100 - tail]) if len(samples) else (point, point)
    # Clip to the point: a percentile can fall a rounding error past a constant statistic.
    return Interval(point, float(min(lo, point)), float(max(hi, point)), len(values), n_units)


def point_estimate(values: Sequence[float], groups: Sequence[Hashable] | None = None) -> float:
    """The statistic :func:`bootstrap_interval` resamples, on the data: the mean, or the unweighted
    mean of the group means."""
    if groups is None:
        return float(np.mean(values))
    by_group: dict[Hashable, list[float]] = {}
    for value, group in zip(values, groups, strict=True):
        by_group.setdefault(group, []).append(value)
    return float(np.mean([np.mean(v) for v in by_group.values()]))


def paired_difference(
    a: Sequence[float],
    b: Sequence[float],
    units: Sequence[Hashable] | None = None,
    groups: Sequence[Hashable] | None = None,
    *,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> Interval | None:
    """Mean of ``a - b`` over paired questions, with its paired-bootstrap interval.

    ``a[i]`` and ``b[i]`` are two systems' values on the same question; resampling the differences
    resamples both systems together, so what the questions share cancels. Arguments as
    :func:`bootstrap_interval`.

    Raises:
        ValueError: ``a`` and ``b`` differ in length.
    """
    if len(a) != len(b):
        raise ValueError(f"paired values differ in length: {len(a)} and {len(b)}")
    diff = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    return bootstrap_interval(list(diff), units, groups, resamples=resamples, seed=seed)


@dataclass(frozen=True)
class McNemar:
    """Exact McNemar test of two systems' binary verdicts on the same questions."""

    a_only: int
    """Questions system A passed and B failed."""
    b_only: int
    """Questions B passed and A failed."""
    p_value: float
    """Two-sided exact p: 2 x the binomial(a_only + b_only, 1/2) tail of the smaller count, capped at 1."""


def mcnemar_exact(a: Sequence[bool], b: Sequence[bool]) -> McNemar:
    """Exact two-sided McNemar test on paired binary verdicts (concordant pairs carry no information).

    Raises:
        ValueError: ``a`` and ``b`` differ in length.
    """
    if len(a) != len(b):
        raise ValueError(f"paired verdicts differ in length: {len(a)} and {len(b)}")
    a_only = sum(bool(x) and not bool(y) for x, y in zip(a, b, strict=True))
    b_only = sum(bool(y) and not bool(x) for x, y in zip(a, b, strict=True))
    # scipy's binomial CDF: summing exact binomial coefficients takes minutes for the thousands of
    # discordant pairs two systems of a 50,000-row run have (the report page tests every pair).
    tail = float(binom.cdf(min(a_only, b_only), a_only + b_only, 0.5))
    return McNemar(a_only, b_only, min(1.0, 2 * tail))
