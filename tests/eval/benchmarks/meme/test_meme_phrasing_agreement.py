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


def test_heldout_family_rule_judge_agrees_with_gold():
    assert _agreement("heldout").rule_rate >= 0.95, _agreement("heldout").misses[:5]


def test_heldout_family_evidence_does_not_regress():
    # Measured with the rules frozen before the held-out family was written: 83.1 % (seed 0, 50 episodes).
    assert _agreement("heldout").evidence_rate >= 0.83


@pytest.mark.xfail(
    strict=True,
    reason="issue 18's bar: the frozen rules miss held-out dependency and deletion wordings "
    "(Abs 2/55, Del 22/50 after the change): evidence agreement 83.1 %",
)
def test_heldout_family_evidence_meets_the_bar():
    assert _agreement("heldout").evidence_rate >= 0.95


def test_families_share_values_questions_and_gold_but_not_wording():
    dev, held = (generate_episodes(4, seed=1, phrasing=p) for p in ("dev", "heldout"))
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
        assert b.extra["generator"]["phrasing"] == "heldout" and "phrasing" not in a.extra["generator"]


def test_unknown_phrasing_is_refused_before_any_work():
    with pytest.raises(ConfigError, match="phrasing"):
        generate_episodes(2, seed=0, phrasing="casual")
