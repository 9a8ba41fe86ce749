"""LoCoMo's F1 rules per category and evidence recall, on hand-checked cases (the token overlap they
build on: tests/eval/answer_rules/test_overlap.py).

The rule tests replace the Porter stemmer by the identity (their words are chosen so stemming changes
nothing), so they run without nltk.
"""

from __future__ import annotations

import pytest

from memsuite.eval.answer_rules import overlap
from memsuite.eval.retrieval_qa.category_f1 import category_f1, evidence_recall, multi_answer_f1


@pytest.fixture
def no_stem(monkeypatch):
    monkeypatch.setattr(overlap, "_stem", lambda word: word)


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


def test_evidence_recall_is_the_share_found():
    assert evidence_recall(["D1:1", "D2:2"], ["D2:2", "D9:9"]) == 0.5
    assert evidence_recall(["D1:1"], []) == 0.0
    assert evidence_recall([], ["D1:1"]) is None
