"""Token overlap as the published QA evaluations measure it (LoCoMo's released evaluation code): the
normalisation, token F1, Porter stemming and contiguous has-answer, on hand-checked cases.

The F1 test replaces the Porter stemmer by the identity (its words are chosen so stemming changes
nothing), so it runs without nltk; the stemmer itself is checked when nltk is installed.
"""

from __future__ import annotations

import pytest

from memsuite.eval.answer_rules import overlap
from memsuite.eval.answer_rules.overlap import has_answer, normalize_answer, token_f1


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
