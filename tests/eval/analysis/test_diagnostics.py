"""The shared failure-stage aggregation: shares per outcome, each with its interval resampling units."""

from __future__ import annotations

import pytest

from memsuite.eval.analysis.diagnostics import OUTCOMES, Attribution, stage_table


def _attribution(unit: str, question: str, retrieved: bool) -> Attribution:
    return Attribution("sys", unit, question, "Tr", "after", True, True, retrieved, None, None)


def test_stage_shares_carry_intervals_resampling_units_whole():
    # Twelve units of two questions each; both questions of the first six fail at retrieval.
    attributions = [_attribution(f"u{i}", f"q{j}", i >= 6) for i in range(12) for j in range(2)]
    [cell] = stage_table(attributions, phase="after", tasks=("Tr",))
    assert set(cell.intervals) == set(OUTCOMES)
    retrieved = cell.intervals["retrieved"]
    assert (retrieved.value, retrieved.n, retrieved.units) == (0.5, 24, 12)
    assert retrieved.lo < 0.5 < retrieved.hi and not retrieved.too_small
    assert cell.intervals["none"].value == pytest.approx(cell.shares["none"])
    encoded = cell.intervals["encoded"]
    assert (encoded.value, encoded.lo, encoded.hi) == (0.0, 0.0, 0.0)
    # The same shares over 24 independent questions: resampling units whole gives a wider interval.
    alone = [_attribution(f"u{i}-{j}", "q", i >= 6) for i in range(12) for j in range(2)]
    [independent] = stage_table(alone, phase="after", tasks=("Tr",))
    wide = retrieved.hi - retrieved.lo
    assert wide > independent.intervals["retrieved"].hi - independent.intervals["retrieved"].lo
