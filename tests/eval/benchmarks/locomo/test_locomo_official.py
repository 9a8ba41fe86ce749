"""LoCoMo's F1 rules per category, has-answer and recall, on hand-checked cases.

The rule tests replace the Porter stemmer by the identity (their words are chosen so stemming changes
nothing), so they run without nltk; the stemmer itself is checked when nltk is installed.
"""

from __future__ import annotations

import pytest

from memsuite.eval.answer_rules import overlap
from memsuite.eval.answer_rules.overlap import has_answer, normalize_answer, token_f1
from memsuite.eval.benchmarks.locomo.judges.official import category_f1, evidence_recall, multi_answer_f1


@pytest.fixture
def no_stem(monkeypatch):
    monkeypatch.setattr(overlap, "_stem", lambda word: word)


def test_normalisation_drops_commas_punctuation_articles_and_and():
    assert normalize_answer("The Cat, and a Dog!") == "cat dog"
    assert normalize_answer("  7 May,  2023. ") == "7 may 2023"


def test_token_f1_by_hand(no_stem):
    # prediction {red, car}, gold {red, bike, now}: 1 shared; P = 1/2, R = 1/3, F1 = 2/5.
    assert token_f1("a red car", "red bike now") == pytest.approx(0.4)
    assert token_f1("Paris", "paris") == 1.0
    assert token_f1("London", "paris") == 0.0
    assert token_f1("", "paris") == 0.0


def test_category_1_splits_on_commas(no_stem):
    # gold parts: "pottery" (best 1.0), "camping trip" (best vs "camping": P=1, R=1/2 -> 2/3); mean 5/6.
    assert multi_answer_f1("pottery, camping", "pottery, camping trip") == pytest.approx(5 / 6)
    assert category_f1(1, "pottery, camping", "pottery, camping trip") == pytest.approx(5 / 6)
    # Category 4 takes one bag of tokens: 2 shared, P = 1, R = 2/3, F1 = 0.8.
    assert category_f1(4, "pottery, camping", "pottery, camping trip") == pytest.approx(0.8)


def test_category_3_scores_against_the_part_before_the_semicolon(no_stem):
    gold = "Likely yes; she talks about moving"
    assert category_f1(3, "likely yes", gold) == 1.0
    assert category_f1(2, "likely yes", gold) < 1.0


def test_category_5_is_the_abstention_rule():
    assert category_f1(5, "Not mentioned in the conversation", None) == 1.0
    assert category_f1(5, "No information available.", None) == 1.0
    assert category_f1(5, "a pug", None) == 0.0


def test_stemming_matches_inflections():
    pytest.importorskip("nltk", reason="the F1 stemmer is NLTK's PorterStemmer (the locomo extra)")
    # 4 predicted tokens (she, wa, run, race), 2 gold, 2 shared: precision 1/2, recall 1.
    assert token_f1("she was running races", "run race") == pytest.approx(2 * (1 / 2) * 1 / (1 / 2 + 1))
    assert overlap.stemmer().stem("running") == "run"


def test_has_answer_needs_contiguous_tokens():
    context = '(1:56 pm on 8 May, 2023) Caroline said, "I went to a LGBTQ support group yesterday."'
    assert has_answer(["LGBTQ support group"], context)
    assert has_answer(["lgbtq SUPPORT"], context)
    assert not has_answer(["support LGBTQ"], context)
    assert not has_answer(["support groups"], context)
    assert has_answer(["Café"], "we met at the café")


def test_evidence_recall_is_the_share_found():
    assert evidence_recall(["D1:1", "D2:2"], ["D2:2", "D9:9"]) == 0.5
    assert evidence_recall(["D1:1"], []) == 0.0
    assert evidence_recall([], ["D1:1"]) is None
