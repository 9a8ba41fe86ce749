"""LoCoMo's scores, reimplemented from the released evaluation code (LLM-free).

Sources (read through the public code index; rules restated here, no code copied):

- Token F1 -- snap-research/LoCoMo ``task_eval/evaluation.py`` (``normalize_answer``, ``f1_score``,
  ``f1``, ``eval_question_answering``). Normalisation: drop commas, lower-case, strip ASCII
  punctuation, remove the words a/an/the/and, collapse whitespace; tokens are Porter-stemmed (NLTK's
  ``PorterStemmer``) and F1 is over the multiset of tokens (0 when nothing is shared).
  Per category: 2, 3 and 4 score the whole answer, category 3's gold taken only up to its first ``;``;
  category 1 splits prediction and gold on commas and averages, over gold parts, the best F1 of any
  predicted part; category 5 scores 1 when the prediction contains "no information available" or
  "not mentioned" (case-insensitive), else 0.
- Has-answer -- the same file, ``has_answer``: NFD-normalise both texts, tokenise them into runs of
  letters/digits/marks or single other non-space characters, lower-cased, and look for the gold's
  tokens as a contiguous run of the context's tokens.
- Evidence recall -- the same file's ``eval_question_answering``: the share of a question's evidence
  ids found among the retrieved dia_ids. The released code scores a question without evidence as 1;
  here such questions are left out of the average (and counted), so a recall is always over
  questions that can miss something.
"""

from __future__ import annotations

import string
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache

import regex

from memsuite.eval.benchmarks.locomo.schema import ADVERSARIAL
from memsuite.memory_systems.errors import require

_PUNCTUATION = frozenset(string.punctuation)
_DROPPED_WORDS = regex.compile(r"\b(a|an|the|and)\b")
_TOKENS = regex.compile(r"([\p{L}\p{N}\p{M}]+)|([^\p{Z}\p{C}])", flags=regex.IGNORECASE | regex.UNICODE)
#: Category 5 counts as answered correctly when the prediction says one of these.
ABSTENTION_PHRASES = ("no information available", "not mentioned")


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


def multi_answer_f1(prediction: str, gold: str) -> float:
    """Category 1: mean over comma-separated gold parts of the best F1 of any predicted part."""
    predicted = [p.strip() for p in prediction.split(",")]
    expected = [g.strip() for g in gold.split(",")]
    return sum(max(token_f1(p, g) for p in predicted) for g in expected) / len(expected)


def category_f1(category: int, prediction: str, gold: str | None) -> float:
    """LoCoMo's per-category answer score (module docstring); ``gold`` is unused for category 5."""
    if category == ADVERSARIAL:
        said = prediction.lower()
        return 1.0 if any(phrase in said for phrase in ABSTENTION_PHRASES) else 0.0
    gold = str(gold)
    if category == 3:
        gold = gold.split(";")[0].strip()
    if category == 1:
        return multi_answer_f1(prediction, gold)
    return token_f1(prediction, gold)


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


def evidence_recall(evidence: Sequence[str], retrieved: Sequence[str]) -> float | None:
    """Share of ``evidence`` ids among ``retrieved``; None without evidence (left out of averages)."""
    if not evidence:
        return None
    found = set(retrieved)
    return sum(e in found for e in evidence) / len(evidence)
