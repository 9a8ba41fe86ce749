"""LoCoMo's scores of LoCoMo-numbered categories (:mod:`.categories`; REALTALK's release scores its
answers with them too), reimplemented from the released evaluation code (LLM-free).

Sources (read through the public code index; rules restated here, no code copied):

- Token F1 -- snap-research/LoCoMo ``task_eval/evaluation.py`` (``f1``, ``eval_question_answering``),
  over :func:`memsuite.eval.answer_rules.overlap.token_f1` (its ``normalize_answer`` and ``f1_score``).
  Per category: 2, 3 and 4 score the whole answer, category 3's gold taken only up to its first ``;``;
  category 1 splits prediction and gold on commas and averages, over gold parts, the best F1 of any
  predicted part; category 5 scores 1 when the prediction contains "no information available" or
  "not mentioned" (case-insensitive), else 0.
- Has-answer -- the same file, ``has_answer``: :func:`memsuite.eval.answer_rules.overlap.has_answer`.
- Evidence recall -- the same file's ``eval_question_answering``: the share of a question's evidence
  ids found among the retrieved dia_ids. The released code scores a question without evidence as 1;
  here such questions are left out of the average (and counted), so a recall is always over
  questions that can miss something.
"""

from __future__ import annotations

from collections.abc import Sequence

from memsuite.eval.answer_rules.overlap import token_f1
from memsuite.eval.retrieval_qa.categories import ADVERSARIAL

ABSTENTION_PHRASES = ("no information available", "not mentioned")


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


def evidence_recall(evidence: Sequence[str], retrieved: Sequence[str]) -> float | None:
    """Share of ``evidence`` ids among ``retrieved``; None without evidence (left out of averages)."""
    if not evidence:
        return None
    found = set(retrieved)
    return sum(e in found for e in evidence) / len(evidence)
