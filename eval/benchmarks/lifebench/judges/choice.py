"""LifeBench's multiple-choice judge, LLM-free: the letter an answer names, read by one rule, against
the released letter.

An answer names option letter X (one of the question's option letters, upper case) where

- the whole answer, stripped of spaces, quotes, ``*``, brackets and final punctuation, is X;
- X stands in brackets: ``(X)`` or ``[X]``;
- X opens a line or follows a space and is followed by ``.``, ``)`` or ``:`` (``B.``, ``B)``);
- X follows ``option``, ``answer`` or ``choice`` (any case), with ``is`` and ``:`` allowed between.

An answer naming exactly one letter chose it; an answer naming no letter, or two or more different
letters, is wrong, and the verdict says which.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

_STRIP = " \t\n\"'*`()[]{}.:!?"


def named_letters(answer: str, letters: Sequence[str]) -> list[str]:
    """The option letters ``answer`` names (module docstring), each once, in order of first mention."""
    allowed = "".join(sorted({x for x in letters if len(x) == 1 and x.isalpha()}))
    if not allowed:
        return []
    whole = answer.strip(_STRIP)
    if len(whole) == 1 and whole in allowed:
        return [whole]
    cls = f"[{re.escape(allowed)}]"
    patterns = (
        rf"[\(\[]({cls})[\)\]]",
        rf"(?:^|(?<=\s))({cls})[.):](?!\w)",
        rf"(?i:option|answer|choice)\s*(?:(?i:is)\s*)?:?\s*\(?({cls})\b",
    )
    found: dict[int, str] = {}
    for pattern in patterns:
        for match in re.finditer(pattern, answer, flags=re.MULTILINE):
            found.setdefault(match.start(1), match[1])
    return list(dict.fromkeys(found[i] for i in sorted(found)))


def judge_choice(answer: str, gold: str, letters: Sequence[str]) -> dict[str, Any]:
    """The ``choice`` verdict: ``correct`` when the answer names exactly the gold letter."""
    named = named_letters(answer, letters)
    verdict: dict[str, Any] = {"judge": "choice", "gold": gold, "named": named}
    if not named:
        return {**verdict, "correct": False, "reason": "the answer names no option letter"}
    if len(named) > 1:
        return {
            **verdict,
            "correct": False,
            "reason": f"the answer names {len(named)} letters: {', '.join(named)}",
        }
    return {**verdict, "chosen": named[0], "correct": named[0] == gold.strip().upper()}
