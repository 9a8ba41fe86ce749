"""The evidence verdict and the rule judge against gold, on the dev and the held-out phrasing families.

50 episodes (no filler) per family; per question the evidence verdict on the gold evidence context must
say True, the rule judge pass the gold answer and fail a stale one (eval/benchmarks/meme/agreement.py;
benchmarks/bench_meme_phrasing.py prints the figures). The held-out family was written after the rules
were frozen; no fixture here is written against its wording.
"""

from __future__ import annotations

from functools import cache

import pytest

from eval.benchmarks.meme.agreement import Agreement, agreement
from eval.benchmarks.meme.generator import generate_episodes
from memory_systems.errors import ConfigError


@cache
def _agreement(phrasing: str) -> Agreement:
    return agreement(generate_episodes(50, seed=0, phrasing=phrasing))


def test_dev_family_agrees_with_gold():
    result = _agreement("dev")
    assert result.questions > 400
    assert result.evidence_rate >= 0.95 and result.rule_rate >= 0.95, result.misses[:5]


def test_dev2_family_agrees_with_gold_both_ways():
    # dev2, the first held-out family, scored 83.1 % (one-sided) with the first frozen rules; its misses
    # were then read and the rules corrected, so it is development data now.
    result = _agreement("dev2")
    assert result.rule_rate >= 0.95, result.misses[:5]
    assert result.evidence_rate >= 0.95 and result.control_rate >= 0.99, result.misses[:5]


def test_controls_catch_a_verdict_that_says_yes_to_everything(monkeypatch):
    from eval.benchmarks.meme import agreement as module

    monkeypatch.setattr(module, "_evidence", lambda case, context: {"correct": True, "reason": "always"})
    result = agreement(generate_episodes(2, seed=0))
    assert result.positive_rate == 1.0 and result.control_rate == 0.0 and result.evidence_rate == 0.0
    assert result.controls >= result.questions


def test_families_share_values_questions_and_gold_but_not_wording():
    dev, held = (generate_episodes(4, seed=1, phrasing=p) for p in ("dev", "dev2"))
    for a, b in zip(dev, held, strict=True):
        assert a.before_questions == b.before_questions and a.after_questions == b.after_questions
        assert a.root_change == b.root_change
        facts_a = {f.fact_text for s in a.sessions for f in s.gold_facts or ()}
        facts_b = {f.fact_text for s in b.sessions for f in s.gold_facts or ()}
        assert facts_a == facts_b
        turns_a = {t.content for s in a.sessions for t in s.conversation}
        turns_b = {t.content for s in b.sessions for t in s.conversation}
        # only the shared openings, closings and preambles (and verbatim blocks' lead-in-free text) overlap
        assert len(turns_a & turns_b) < len(turns_b) / 3
        assert b.extra["generator"]["phrasing"] == "dev2" and "phrasing" not in a.extra["generator"]


def test_unknown_phrasing_is_refused_before_any_work():
    with pytest.raises(ConfigError, match="phrasing"):
        generate_episodes(2, seed=0, phrasing="casual")
