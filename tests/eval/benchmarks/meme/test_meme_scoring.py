"""MEME scoring on hand-worked rows: the trivial-pass filter and the Overall mean."""

from __future__ import annotations

import pytest

from memsuite.eval.benchmarks.meme.scoring import filter_labels, meme_scores
from memsuite.eval.protocol import Row


def _row(unit, task, phase, entity, correct):
    return Row(
        "bm25",
        "meme",
        unit,
        f"{phase}-{task}-{entity}",
        "q",
        "gold",
        "ctx",
        verdicts={"rule": {"correct": correct}},
        metadata={"task": task, "phase": phase, "entities": [entity]},
    )


def test_filter_labels_all_four_cases():
    rows = [
        _row("e1", "Del", "before", "a", True),
        _row("e1", "Del", "after", "a", True),  # real
        _row("e1", "Cas", "before", "b", False),
        _row("e1", "Cas", "after", "b", True),  # trivial
        _row("e1", "Abs", "before", "c", True),
        _row("e1", "Abs", "after", "c", False),  # knew_but_failed
        _row("e2", "Del", "before", "a", False),
        _row("e2", "Del", "after", "a", False),  # never_knew (other unit)
        _row("e2", "Cas", "after", "z", True),  # no before-question
    ]
    labels = filter_labels(rows)
    assert labels == {1: "real", 3: "trivial", 5: "knew_but_failed", 7: "never_knew", 8: "unfiltered"}


def test_rates_and_overall():
    rows = [
        _row("e1", "ER", "before", "r", True),
        _row("e1", "ER", "after", "r", True),
        _row("e1", "Agg", "after", "g", True),
        _row("e2", "Agg", "after", "g", False),
        _row("e1", "Tr", "after", "t", False),
        _row("e1", "Del", "before", "d", False),
        _row("e1", "Del", "after", "d", True),  # trivial -> 0
        _row("e1", "Cas", "before", "c", True),
        _row("e1", "Cas", "after", "c", True),  # real -> 1
        _row("e1", "Abs", "before", "x", True),
        _row("e1", "Abs", "after", "x", False),
    ]
    scores = meme_scores(rows)
    assert scores["tasks"] == {"ER": 1.0, "Agg": 0.5, "Tr": 0.0, "Del": 0.0, "Cas": 1.0, "Abs": 0.0}
    assert scores["Overall"] == pytest.approx(2.5 / 6)
    assert scores["before"] == {"ER": 1.0, "Del": 0.0, "Cas": 1.0, "Abs": 1.0}
    assert scores["filter"] == {"trivial": 1, "real": 1, "knew_but_failed": 1}


def test_missing_task_gives_no_overall_and_failures_are_counted():
    rows = [_row("e1", "ER", "after", "r", True), _row("e1", "Agg", "after", "g", None)]
    scores = meme_scores(rows)
    assert scores["Overall"] is None and scores["tasks"]["Tr"] is None
    assert scores["judge_failures"] == 1


def test_rows_without_a_verdict_are_left_out_of_rates():
    rows = [_row("e1", "ER", "after", "r", True), _row("e1", "Del", "after", "d", None)]
    rows = [type(r)(**{**r.to_dict(), "verdicts": {"evidence": r.verdicts["rule"]}}) for r in rows]
    scores = meme_scores(rows, judge="evidence")
    assert scores["tasks"]["ER"] == 1.0 and scores["tasks"]["Del"] is None and scores["n"]["Del"] == 0
    assert scores["judge_failures"] == 0  # the evidence judge has no rule there: not a failure
