"""The evidence verdict and the rule judge against gold, on the generator's phrasing families.

Per question the evidence verdict must say True on the gold evidence context and False on every
control context (the key session left out), and the rule judge must pass the gold answer and fail a
stale one (eval/benchmarks/meme/agreement.py; perf/bench_meme_phrasing.py prints the figures).
``dev`` is the rules' own wording; ``dev2``, ``dev3`` and ``dev4`` were held-out families, measured once
each and then read to correct the rules; ``heldout`` (50 episodes) was written blind
to the rules and measured once with them frozen. No fixture here is written against its wording.
"""

from __future__ import annotations

from functools import cache

import pytest

from memsuite.eval.benchmarks.meme.agreement import Agreement, agreement
from memsuite.eval.benchmarks.meme.generator import generate_episodes
from memsuite.memory_systems.errors import ConfigError


@cache
def _agreement(phrasing: str) -> Agreement:
    return agreement(generate_episodes(50, seed=0, phrasing=phrasing))


def test_dev_family_agrees_with_gold():
    result = _agreement("dev")
    assert result.questions > 400
    assert result.evidence_rate >= 0.95 and result.rule_rate >= 0.95, result.misses[:5]


@pytest.mark.parametrize("phrasing", ["dev2", "dev3", "dev4"])
def test_retired_heldout_families_agree_with_gold_both_ways(phrasing):
    # Each scored below the bar when measured blind (dev2 83.1 % on gold contexts only; dev3 85.8 % and
    # dev4 91.7 % both ways); their misses were then read and the rules corrected.
    result = _agreement(phrasing)
    assert result.rule_rate >= 0.95, result.misses[:5]
    assert result.evidence_rate >= 0.95 and result.control_rate >= 0.99, result.misses[:5]


def test_blind_heldout_family_meets_the_bar():
    # Issue 18's bar, on the fourth family, written blind and measured once with the rules frozen:
    # 97.3 % both ways (97.3 % on gold contexts, 100 % of 642 controls rejected), rule judge 100 %.
    result = _agreement("heldout")
    assert result.questions >= 500
    assert result.evidence_rate >= 0.95 and result.rule_rate >= 0.95
    assert result.control_rate >= 0.97


def test_controls_catch_a_verdict_that_says_yes_to_everything(monkeypatch):
    from memsuite.eval.benchmarks.meme.protocol import MemeCase

    monkeypatch.setattr(MemeCase, "evidence", lambda case, context: {"correct": True, "reason": "always"})
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
