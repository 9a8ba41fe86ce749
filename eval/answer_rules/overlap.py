"""Token overlap between an answer and a gold, as the published QA evaluations measure it: SQuAD-style
normalisation, Porter-stemmed tokens, token F1, and whether a text holds an answer's tokens in a row.

Restated from the released evaluation code of LoCoMo (snap-research/LoCoMo ``task_eval/evaluation.py``:
``normalize_answer``, ``f1_score``, ``has_answer``), which LongMemEval's retrieval check shares; no
code copied.

- :func:`normalize_answer`: drop commas, lower-case, strip ASCII punctuation, remove the words
  a/an/the/and, collapse whitespace.
- :func:`token_f1`: tokens Porter-stemmed (NLTK's ``PorterStemmer``), F1 over the token multisets (0
  when nothing is shared).
- :func:`has_answer`: NFD-normalise both texts, tokenise them into runs of letters/digits/marks or
  single other non-space characters, lower-cased, and look for an answer's tokens as a contiguous run
  of the context's tokens.
"""

from __future__ import annotations

import string
import unicodedata
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache

import regex

from memsuite.memory_systems.errors import require

_PUNCTUATION = frozenset(string.punctuation)
_DROPPED_WORDS = regex.compile(r"\b(a|an|the|and)\b")
_TOKENS = regex.compile(r"([\p{L}\p{N}\p{M}]+)|([^\p{Z}\p{C}])", flags=regex.IGNORECASE | regex.UNICODE)
#: Category 5 counts as answered correctly when the prediction says one of these.


@lru_cache(maxsize=1)
def stemmer():
    """NLTK's ``PorterStemmer`` (its default mode), as LoCoMo's F1 uses it.

    Raises:
        MissingDependencyError: nltk is not installed (the ``locomo`` extra).
    """
    stem = require("nltk.stem", extra="locomo", purpose="LoCoMo's F1 judge (NLTK's Porter stemmer)")
    return stem.PorterStemmer()


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return stemmer().stem(word)


def normalize_answer(text: str) -> str:
    """LoCoMo's answer normalisation (module docstring)."""
    text = text.replace(",", "").lower()
    text = "".join(ch for ch in text if ch not in _PUNCTUATION)
    text = _DROPPED_WORDS.sub(" ", text)
    return " ".join(text.split())


def _tokens(text: str) -> list[str]:
    return [_stem(word) for word in normalize_answer(text).split()]


def token_f1(prediction: str, gold: str) -> float:
    """F1 of the stemmed, normalised token multisets (LoCoMo ``f1_score``)."""
    predicted, expected = _tokens(prediction), _tokens(gold)
    shared = sum((Counter(predicted) & Counter(expected)).values())
    if shared == 0:
        return 0.0
    precision, recall = shared / len(predicted), shared / len(expected)
    return 2 * precision * recall / (precision + recall)


def _has_answer_tokens(text: str) -> list[str]:
    return [m.group().lower() for m in _TOKENS.finditer(unicodedata.normalize("NFD", text))]


def has_answer(answers: Iterable[str], context: str) -> bool:
    """LoCoMo ``has_answer``: some answer's tokens appear contiguously in the context's tokens."""
    words = _has_answer_tokens(context)
    for answer in answers:
        wanted = _has_answer_tokens(answer)
        if not wanted:
            continue
        width = len(wanted)
        if any(words[i : i + width] == wanted for i in range(len(words) - width + 1)):
            return True
    return False
