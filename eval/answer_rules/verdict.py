"""The verdict dict of a ``rule`` judge, the same in every benchmark that uses the answer rules."""

from __future__ import annotations

from typing import Any

JUDGE = "rule"


def rule_verdict(correct: bool | None, reason: str) -> dict[str, Any]:
    """``{"judge": "rule", "correct", "reason"}``; an undecided verdict (None) also says why in
    ``undecided``, so summaries count it apart and never as true or false."""
    verdict: dict[str, Any] = {"judge": JUDGE, "correct": correct, "reason": reason[:300]}
    if correct is None:
        verdict["undecided"] = reason[:300]
    return verdict
