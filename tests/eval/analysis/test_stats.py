"""Intervals and paired tests on hand-made verdicts whose answers are known."""

import pytest

from memsuite.eval.analysis.stats import (
    MIN_N,
    bootstrap_interval,
    mcnemar_exact,
    paired_difference,
)


def test_constant_verdicts_give_a_zero_width_interval():
    for value in (0.0, 1.0):
        interval = bootstrap_interval([value] * 40, units=[i // 4 for i in range(40)])
        assert (interval.value, interval.lo, interval.hi) == (value, value, value)
        assert (interval.n, interval.units) == (40, 10)


def test_interval_of_half_right_verdicts_matches_the_binomial_spread():
    # 100 independent 0/1 values with mean 0.5: the 95 % interval is about 0.5 +- 1.96 * 0.05.
    interval = bootstrap_interval([1.0, 0.0] * 50)
    assert interval.value == 0.5
    assert interval.lo == pytest.approx(0.40, abs=0.02)
    assert interval.hi == pytest.approx(0.60, abs=0.02)


def test_units_are_resampled_whole():
    # Two units, each internally constant: resamples are {0, 0.5, 1} -- never a value between, and the
    # interval spans both ends, where a bootstrap over the 20 questions would be narrow.
    values = [1.0] * 10 + [0.0] * 10
    clustered = bootstrap_interval(values, units=["a"] * 10 + ["b"] * 10)
    assert (clustered.lo, clustered.hi) == (0.0, 1.0)
    assert clustered.too_small  # two units
    flat = bootstrap_interval(values)
    assert 0.25 < flat.lo < flat.hi < 0.75


def test_mean_of_group_means():
    # Group x: 1 of 1 right; group y: 1 of 4 right. Mean of group means = (1 + 0.25) / 2, not 2 / 5.
    interval = bootstrap_interval([1.0, 1.0, 0.0, 0.0, 0.0], groups=["x", "y", "y", "y", "y"])
    assert interval.value == pytest.approx(0.625)


def test_interval_is_seeded():
    values = [1.0, 0.0, 0.0, 1.0, 1.0] * 5
    assert bootstrap_interval(values) == bootstrap_interval(values)
    assert bootstrap_interval(values, seed=1) != bootstrap_interval(values, seed=2)


def test_too_small_below_the_threshold():
    assert bootstrap_interval([1.0] * (MIN_N - 1)).too_small
    assert not bootstrap_interval([1.0] * MIN_N).too_small
    assert bootstrap_interval([]) is None


def test_mcnemar_worked_by_hand():
    # A right / B wrong on 1 question, A wrong / B right on 6, both right on 5, both wrong on 3.
    # Discordant n = 7; P(X <= 1 | Bin(7, 1/2)) = (1 + 7) / 128 = 0.0625; two-sided p = 0.125.
    a = [True] * 1 + [False] * 6 + [True] * 5 + [False] * 3
    b = [False] * 1 + [True] * 6 + [True] * 5 + [False] * 3
    test = mcnemar_exact(a, b)
    assert (test.a_only, test.b_only) == (1, 6)
    assert test.p_value == pytest.approx(0.125)
    # No discordant pair: nothing to test, p = 1.
    assert mcnemar_exact([True, False], [True, False]).p_value == 1.0
    # 0 vs 10 discordant: p = 2 / 1024.
    assert mcnemar_exact([False] * 10, [True] * 10).p_value == pytest.approx(2 / 1024)


def test_paired_difference_cancels_what_questions_share():
    # B fails exactly where A fails, plus two more: the difference is 2/20 on every resample that
    # keeps those two questions -- an interval that excludes zero only by the discordant questions.
    a = [1.0] * 12 + [0.0] * 8
    b = [1.0] * 10 + [0.0] * 10
    diff = paired_difference(a, b)
    assert diff.value == pytest.approx(0.1)
    assert diff.lo >= 0.0
    same = paired_difference(a, a)
    assert (same.value, same.lo, same.hi) == (0.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="differ in length"):
        paired_difference([1.0], [1.0, 0.0])


def test_mcnemar_matches_the_exact_sum_and_handles_thousands_of_pairs():
    from math import comb

    # 40 vs 60 discordant: the two-sided tail summed from exact binomial coefficients.
    a = [True] * 40 + [False] * 60 + [True] * 7
    b = [False] * 40 + [True] * 60 + [True] * 7
    exact = 2 * sum(comb(100, i) for i in range(41)) / 2**100
    assert mcnemar_exact(a, b).p_value == pytest.approx(exact, rel=1e-9)
    # Thousands of discordant pairs (two systems of a 50,000-row run): a p-value from the binomial CDF.
    many = mcnemar_exact([True] * 20_000 + [False] * 20_000, [False] * 20_000 + [True] * 20_000)
    assert (many.a_only, many.b_only, many.p_value) == (20_000, 20_000, 1.0)
    skewed = mcnemar_exact([True] * 9_000 + [False] * 11_000, [False] * 9_000 + [True] * 11_000)
    assert 0 < skewed.p_value < 1e-40
