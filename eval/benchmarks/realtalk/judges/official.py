"""REALTALK's lexical score, restated from the release (danny911kr/REALTALK ``eval_memory/qa_tool.py``,
``compute_lexical_score``; read, not copied).

The release scores a full-context answer per category with LoCoMo's rules: category 1 splits answer
and gold on commas and averages, over gold parts, the best token F1 of any answer part; category 2
is the token F1 of the whole answer; category 3 the token F1 against the gold cut at its first ``;``.
Token F1 is LoCoMo's (lower-cased, punctuation and the words a/an/the/and dropped, Porter-stemmed
tokens): :func:`memsuite.eval.answer_rules.overlap.token_f1`, through LoCoMo's per-category function,
whose numbering the release shares. The release averages the scores per category
(``evaluate_memory.py``); it prints no overall.
"""

from __future__ import annotations

from memsuite.eval.retrieval_qa.category_f1 import category_f1


def lexical_score(category: int, answer: str, gold: str) -> float | None:
    """The release's score of one answer (module docstring); None for a category it has no rule for."""
    if category not in (1, 2, 3):
        return None
    return category_f1(category, answer, gold)


def scored_gold(category: int, gold: str) -> str:
    """The gold the release compares against: category 3 up to its first ``;``."""
    return gold.split(";")[0].strip() if category == 3 else gold
