"""The MEME rule judge on hand-worked answers, one group per task."""

from __future__ import annotations

import pytest

from memsuite.eval.benchmarks.meme.judges.rule import judge_rule


@pytest.mark.parametrize(
    ("answer", "ok"),
    [
        ("The error was:\nE1204  Flux   capacitor timeout", True),
        ("e1204 flux capacitor TIMEOUT", True),
        ("E1204 flux capacitor", False),
        ("I don't have that information.", False),
    ],
)
def test_exact_recall(answer, ok):
    assert judge_rule("ER", answer, "E1204 flux capacitor timeout").correct is ok


def test_aggregation_needs_every_value():
    gold = "Quellport, Zunderbuild, Pelmet"
    assert judge_rule("Agg", "Quellport, Zunderbuild and Pelmet.", gold).correct
    verdict = judge_rule("Agg", "Quellport and Pelmet.", gold)
    assert not verdict.correct and "Zunderbuild" in verdict.reason


def test_tracking_needs_chronological_order():
    values = ["v1.2", "v1.4", "v2.0"]
    assert judge_rule("Tr", "First v1.2, then v1.4, now v2.0", ",".join(values), values=values).correct
    assert not judge_rule("Tr", "v2.0, before that v1.4 and v1.2", ",".join(values), values=values).correct
    assert not judge_rule("Tr", "v1.2 then v2.0", ",".join(values), values=values).correct


@pytest.mark.parametrize(
    ("answer", "ok"),
    [
        ("Brakefast", True),
        ("It is Brakefast now.", True),
        ("It will be Brakefast.", False),
        ("Either Zunder or Brakefast.", False),
        ("Zunder, but now Brakefast.", False),
        ("I don't know.", False),
    ],
)
def test_cascade_needs_the_new_value_alone_and_definitive(answer, ok):
    assert judge_rule("Cas", answer, "Brakefast", old_value="Zunder").correct is ok


@pytest.mark.parametrize(
    ("answer", "ok"),
    [
        ("Uncertain — it was Quellport, but the lease changed.", True),
        ("Uncertain — previously 'Quellport', but lease changed", True),  # the gold itself
        ("It may have changed since the office moved.", True),
        ("Quellport.", False),
        ("I don't have that information.", True),
        ("The answer is 42.", False),
        # The stale value as the answer fails whatever marker word stands beside it.
        ("It is Quellport; that has not changed.", False),
        ("Quellport, though the lease changed.", False),
        ("Quellport. I'm not sure.", False),
        ("It was Quellport and it has not changed.", False),  # a negated change is no uncertainty
        ("The lease is unchanged, so the office is where it was.", False),
    ],
)
def test_absence_passes_uncertainty_fails_confident_old_value(answer, ok):
    assert (
        judge_rule(
            "Abs", answer, "Uncertain — previously 'Quellport', but lease changed", old_value="Quellport"
        ).correct
        is ok
    )


@pytest.mark.parametrize(
    ("answer", "ok"),
    [
        ("I don't have that information.", True),
        ("That was removed at your request.", True),
        ("You asked me to forget it, but it was 4471.", False),
        ("4471", False),
        ("The code is probably something else.", False),
    ],
)
def test_deletion_declines_without_revealing(answer, ok):
    assert judge_rule("Del", answer, "No — explicitly removed", old_value="4471").correct is ok


def test_before_phase_is_value_match_and_unknown_task_fails_loudly():
    assert judge_rule("Cas", "Zunder", "Zunder", phase="before").correct
    assert not judge_rule("Del", "I don't know", "4471", phase="before").correct
    with pytest.raises(ValueError, match="unknown MEME task"):
        judge_rule("Exact", "x", "x")


def test_marker_lists_are_data_and_checked(tmp_path):
    from memsuite.eval.benchmarks.meme.judges import rule

    assert "may have changed" in rule.markers()["doubt"] and "don't have" in rule.markers()["declines"]
    bad = tmp_path / "answer_markers.json"
    bad.write_text('{"declines": ["no record"], "doubt": []}', encoding="utf-8")
    with pytest.raises(ValueError, match=r"answer_markers\.json.*'doubt'"):
        rule.markers(bad)
