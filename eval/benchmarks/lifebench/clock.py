"""LifeBench's time rule: when a question is asked and on which day a record lies.

- A question's time is the last day of its ``ask_time`` month (``YYYY-MM``), or its day
  (``YYYY-MM-DD``); the memory then holds every record of that day or earlier and nothing later.
- A record's day is the first 10 characters of its ``datetime``, else of its ``date``; a record with
  neither is timeless (held from the start).
"""

from __future__ import annotations

import calendar
import re

_MONTH = re.compile(r"(\d{4})-(\d{2})")
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
TIMELESS = "timeless"


def question_time(ask_time: str) -> str | None:
    """The day a question is asked, ``YYYY-MM-DD`` (module docstring); None for any other form."""
    if _DAY.fullmatch(ask_time):
        return ask_time
    match = _MONTH.fullmatch(ask_time)
    if match is None or not 1 <= int(match[2]) <= 12:
        return None
    last = calendar.monthrange(int(match[1]), int(match[2]))[1]
    return f"{ask_time}-{last:02d}"


def record_day(raw: dict) -> tuple[str | None, str | None]:
    """``(day, time)`` of a released record: its day ``YYYY-MM-DD`` (None: timeless) and the string it
    was read from. A value whose first 10 characters are not a day is reported as ``(None, value)``."""
    for name in ("datetime", "date"):
        value = raw.get(name)
        if isinstance(value, str) and value:
            return (value[:10] if _DAY.fullmatch(value[:10]) else None), value
    return None, None
