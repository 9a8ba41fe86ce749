"""Lengths of time in any common wording, in minutes: "an hour and a half", "1.5 hours", "90 minutes",
"1 hour 30 minutes", "half an hour", "two and a half days".

A gold length and an answer's are the same when their minutes are ("an hour and a half" = "90
minutes"); :mod:`.text` reads the numbers of both apart, which cannot see that.
"""

from __future__ import annotations

import re

from memsuite.eval.answer_rules.lists import fold, rule_lists

#: Minutes in each unit of a length of time.
UNIT_MINUTES = {"minute": 1, "min": 1, "hour": 60, "hr": 60, "day": 1440, "week": 10080}
_UNIT = r"(minute|min|hour|hr|day|week)s?\b"


def _amount(word: str) -> float | None:
    if word in ("a", "an"):
        return 1.0
    try:
        return float(word)
    except ValueError:
        return rule_lists().number_words.get(word)


_LENGTH = re.compile(
    rf"\b(?:(half)\s+an?\s+{_UNIT}"
    rf"|([a-z]+|\d+(?:\.\d+)?)(\s+and\s+a\s+half)?[\s-]+{_UNIT}(\s+and\s+a\s+half)?"
    rf"(?:,?\s+(?:and\s+)?(\d+(?:\.\d+)?|[a-z]+)\s+{_UNIT})?)"
)


def without_lengths(text: str) -> str:
    """``text`` less the lengths of time it states."""
    return _LENGTH.sub(" ", fold(text))


def lengths(text: str) -> set[float]:
    """The lengths of time ``text`` states, in minutes ("1 hour 30 minutes": 90)."""
    found: set[float] = set()
    for match in _LENGTH.finditer(fold(text)):
        half, half_unit, amount, half_before, unit, half_after, extra_amount, extra_unit = match.groups()
        if half:
            found.add(UNIT_MINUTES[half_unit] / 2)
            continue
        value = _amount(amount)
        if value is None:
            continue
        minutes = (value + (0.5 if half_before or half_after else 0)) * UNIT_MINUTES[unit]
        if extra_amount and extra_unit:
            extra = _amount(extra_amount)
            if extra is None or UNIT_MINUTES[extra_unit] >= UNIT_MINUTES[unit]:
                found.add(minutes)
                continue
            minutes += extra * UNIT_MINUTES[extra_unit]
        found.add(minutes)
    return found
