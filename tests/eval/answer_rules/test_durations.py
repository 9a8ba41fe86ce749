"""Lengths of time in any wording, in minutes."""

import pytest

from memsuite.eval.answer_rules.durations import lengths, without_lengths


@pytest.mark.parametrize(
    "written",
    ["an hour and a half", "1.5 hours", "90 minutes", "1 hour 30 minutes", "one hour and thirty minutes",
     "a 90-minute session"],
)  # fmt: skip
def test_one_length_in_any_wording(written):
    assert lengths(written) == {90.0}


def test_halves_days_and_weeks():
    assert lengths("half an hour") == {30.0}
    assert lengths("two and a half days") == {3600.0}
    assert lengths("3 weeks ago") == {3 * 7 * 24 * 60.0}
    assert lengths("a few hours") == set()  # "a few" is no amount


def test_the_rest_of_the_text():
    assert without_lengths("About 1 hour 30 minutes in all").split() == ["about", "in", "all"]
