"""Generic metrics against hand-worked values."""

from __future__ import annotations

import pytest

from memsuite.eval.analysis.metrics import judge_agreement, mean, percentile
from memsuite.eval.protocol import Row


def _row(rule, llm):
    verdicts = {"rule": {"correct": rule}}
    if llm is not ...:
        verdicts["llm"] = {"correct": llm}
    return Row("s", "b", "u", "q", "question", "gold", "ctx", verdicts=verdicts)


def test_judge_agreement_and_kappa():
    rows = [
        _row(True, True),
        _row(True, False),
        _row(False, False),
        _row(False, False),
        _row(True, None),
        _row(True, ...),
    ]
    result = judge_agreement(rows)
    assert result["n"] == 4 and result["excluded"] == 2
    assert result["agreement"] == 0.75
    # pa = 0.5, pb = 0.25 -> expected = 0.125 + 0.375 = 0.5 -> kappa = (0.75 - 0.5) / 0.5
    assert result["kappa"] == pytest.approx(0.5)
    assert result["a_only_true"] == 1 and result["b_only_true"] == 0


def test_mean_and_percentile():
    assert mean([]) is None and mean([1, 2, 3]) == 2
    assert percentile([], 0.5) is None
    assert percentile([10.0], 0.95) == 10.0
    assert percentile(list(range(1, 101)), 0.5) == pytest.approx(50.5, abs=0.6)
    assert percentile(list(range(1, 101)), 0.95) == pytest.approx(95, abs=1.1)
