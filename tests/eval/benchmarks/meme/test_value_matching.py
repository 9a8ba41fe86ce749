"""Tolerant value matching (eval/benchmarks/meme/matching.py): paraphrases match, near misses do not."""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from memsuite.eval.benchmarks.meme.matching import (
    head,
    is_name,
    line_holds,
    lines,
    missing_values,
    normalize,
    tokens,
    value_present,
)


def lines_holding(text: str, keys: Iterable[str]) -> list[str]:
    """The lines of ``text`` that hold any of ``keys`` (values or entity names), in order."""
    keys = [k for k in keys if k and normalize(k)]
    return [line for line in lines(text) if any(line_holds(line, k) for k in keys)]


# Phrasings below are ones memsuite's generator never writes (it always states the label verbatim).


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("User: we rotate weekly, with a lead and a backup on duty.", "rotating weekly (lead + backup)"),
        ("Memory: pager duty rotates weekly -- lead & backups.", "rotating weekly (lead + backup)"),
        ("the oncall rota lives in the wiki", "on-call rota"),
        ("the on call rota lives in the wiki", "on-call rota"),
        ("the on-call rota lives in the wiki", "oncall rota"),
        ("We run postgresql 14 in prod.", "PostgreSQL 14"),
        ("Car: kestrel-compact 4, bought used", "Kestrel Compact 4"),
        ("The reporting job listens on port 6642.", "6642"),
        ("Lead changed to Dana Park.", "Dana Park"),
        ("Condition noted: high blood-pressure, diagnosed in March", "high blood pressure"),
        ("She moved to Orinthal park last spring", "Orinthal Park"),
        # Days are capitalised by spelling, not because the schedule is a name: word order may change.
        ("The standup is at 13:35 on Fridays.", "Fridays at 13:35"),
        ("we take the ferries from Pike Steps", "the ferry from Pike Steps"),
        ("backups run every night at 02:40", "nightly at 02:40"),
    ],
)
def test_paraphrases_and_spacing_variants_match(text, value):
    assert value_present(text, value)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("We run PostgreSQL 15 in prod.", "PostgreSQL 14"),
        ("We run PostgreSQL 14.2 in prod.", "PostgreSQL 14"),
        ("Minor bump to v1.14 today", "14"),
        ("Dana Lee parked her car at the park.", "Dana Park"),
        ("Lead changed to Dana Lee.", "Dana Park"),
        ("The reporting job listens on port 66421.", "6642"),
        ("we rotate monthly with a lead", "rotating weekly (lead + backup)"),
        ("high scores, a blood test next week, and pressure at work", "high blood pressure"),
        ("The standup is at 13:35 on Thursdays.", "Fridays at 13:35"),
        ("The standup is at 13:36 on Fridays.", "Fridays at 13:35"),
    ],
)
def test_different_values_sharing_a_word_do_not_match(text, value):
    assert not value_present(text, value)


def test_words_spread_over_a_long_line_do_not_match():
    far = "we rotate " + "filler " * 30 + "weekly with a lead and a backup"
    assert not value_present(far, "rotating weekly (lead + backup)")
    assert not value_present("we rotate\nweekly with a lead and a backup", "rotating weekly (lead + backup)")


def test_verbatim_multi_line_values_match_by_normalised_substring():
    log = "Traceback (most recent call last):\n  File \"job.py\", line 12\nKeyError: 'tenant_id'"
    assert value_present(f"Saved it for you:\n{log}\nThanks!", log)
    assert value_present(log.replace("\n  ", "\n"), log)  # whitespace collapses
    assert not value_present(log.replace("tenant_id", "tenant_ids"), log)
    key = "YAEKC-TBR4Y-1Z2IX"
    assert value_present(f"key: {key.lower()}", key)
    assert not value_present("key: YAEKC-TBR4Y-1Z2IXQ", key)


def test_helpers():
    assert tokens("Mon-Fri 08:20-16:35, v3.1 + SAML 2.0") == [
        "mon",
        "fri",
        "08:20",
        "16:35",
        "v3.1",
        "and",
        "saml",
        "2.0",
    ]
    assert head("rotating weekly (lead + backup)") == "rotating weekly"
    assert is_name("Dana Park") and is_name("PostgreSQL 14") and not is_name("high blood pressure")
    assert missing_values("we use Redis 7", ["Redis 7", "Kafka"]) == ["Kafka"]
    found = lines_holding("a: Dana Park\nb: nothing\nc: dana-park", ["Dana Park"])
    assert found == ["a: Dana Park", "c: dana-park"]
    assert not value_present("anything", "  ")
