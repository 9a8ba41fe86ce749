"""Dates in any common format, as (year, month, day) with unknown parts left None.

Read forms (on folded text): ``2023-05-07`` / ``2023/05/07``; ``5/7/2023``, ``5/7/23`` and ``5/7``
(month first, as US writers and the LongMemEval answers write them); ``7 May 2023``, ``7th of May,
2023``, ``May 7, 2023``, ``May 7th``, ``7 May``; ``May 2023``, ``May, 2023``; a month alone (``in
July``; not "may", "march" or an abbreviation, which are ordinary words when alone). A year alone is a
number, not a date (:mod:`.text`). A range of days (:func:`find_ranges`: "June 19-25, 2023", "5-6
November", "between 6 and 13 August", "7 August to 13 August") is one period, and so is a part of a month
(:func:`find_month_parts`: "early June 2023", "mid-March", "the end of July", "the third week of June")
unless a hedge opens it ("around early June", "sometime in late May": ``date_hedges``) or it is one of
alternatives ("late March or early April"): those read as the month alone.

Two dates name the same day or period (:func:`same_date`) when every part the gold gives is the same in
the answer; an answer that leaves out only the year still names it (a conversation's year is rarely
restated), and an answer more precise than the gold (a day inside the gold's month) names it too.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, timedelta

from memsuite.eval.answer_rules.lists import rule_lists

_MONTHS = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7, "august": 8,
    "september": 9, "october": 10, "november": 11, "december": 12,
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10,
    "nov": 11, "dec": 12,
}  # fmt: skip
#: Month names that are ordinary words when they stand alone.
_FULL_NAMES = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
               "october", "november", "december")  # fmt: skip
_NOT_ALONE = {"may", "march", *(m for m in _MONTHS if m not in _FULL_NAMES)}
_MONTH = r"(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?(?!\d)"
_YEAR = r"(\d{4})(?!\d)"

_PATTERNS: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = (
    (re.compile(rf"\b{_YEAR[:-6]}[-/.](\d{{1,2}})[-/.](\d{{1,2}})\b"), ("y", "m", "d")),
    (re.compile(r"\b(\d{1,2})/(\d{1,2})(?:/(\d{4}|\d{2}))?(?![\d/])"), ("m", "d", "y")),
    (re.compile(rf"\b{_DAY}(?:\s+of)?\s+{_MONTH}(?:,?\s+{_YEAR})?"), ("d", "m", "y")),
    (re.compile(rf"\b{_MONTH}\s+{_DAY}(?:,?\s+{_YEAR})?"), ("m", "d", "y")),
    (re.compile(rf"\b{_MONTH},?\s+(?:of\s+)?{_YEAR}"), ("m", "y")),
    (re.compile(rf"\b{_MONTH}\b"), ("m",)),
)


_TO = r"\s*(?:-|to|and|until|through|till)\s*"
_RANGES: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = (
    # "7 August to 13 August 2023"
    (re.compile(rf"\b{_DAY}(?:\s+of)?\s+{_MONTH}{_TO}{_DAY}(?:\s+of)?\s+{_MONTH}(?:,?\s+{_YEAR})?"),
     ("d", "m", "d2", "m2", "y")),
    # "5-6 November 2022", "between 6 and 13 August 2023"
    (re.compile(rf"\b{_DAY}{_TO}{_DAY}(?:\s+of)?\s+{_MONTH}(?:,?\s+{_YEAR})?"), ("d", "d2", "m", "y")),
    # "June 19-25, 2023", "October 30 to 31, 2022"
    (re.compile(rf"\b{_MONTH}\s+{_DAY}{_TO}{_DAY}(?:,?\s+{_YEAR})?"), ("m", "d", "d2", "y")),
)  # fmt: skip


@dataclass(frozen=True)
class DateValue:
    """A date or a period: any part may be unknown."""

    year: int | None
    month: int | None
    day: int | None

    def as_date(self) -> date | None:
        """The calendar day, when all three parts are known and valid."""
        if self.year is None or self.month is None or self.day is None:
            return None
        try:
            return date(self.year, self.month, self.day)
        except ValueError:
            return None


def _value(kind: str, text: str | None) -> int | None:
    if text is None:
        return None
    if kind == "m" and not text.isdigit():
        return _MONTHS[text]
    number = int(text)
    return number + 2000 if kind == "y" and number < 100 else number


def find_dates(text: str) -> list[tuple[int, int, DateValue]]:
    """``(start, end, date)`` of every date in folded ``text``, in text order, spans not overlapping."""
    found: list[tuple[int, int, DateValue]] = []
    taken: list[tuple[int, int]] = []
    for pattern, kinds in _PATTERNS:
        for match in pattern.finditer(text):
            start, end = match.span()
            if any(start < b and a < end for a, b in taken):
                continue
            parts = dict(zip(kinds, match.groups(), strict=True))
            if kinds == ("m",) and parts["m"] in _NOT_ALONE:
                continue
            value = DateValue(
                _value("y", parts.get("y")), _value("m", parts.get("m")), _value("d", parts.get("d"))
            )
            if value.month is not None and not 1 <= value.month <= 12:
                continue
            if value.day is not None and not 1 <= value.day <= 31:
                continue
            found.append((start, end, value))
            taken.append((start, end))
    return sorted(found, key=lambda item: item[0])


def find_ranges(text: str) -> list[tuple[int, int, DateValue, DateValue]]:
    """``(start, end, first, last)`` of every range of days in folded ``text`` ("June 19-25, 2023",
    "5-6 November", "between 6 and 13 August 2023", "7 August to 13 August"), in text order; the last
    day's month is the first's unless it names its own, the year is shared (None when unstated)."""
    found: list[tuple[int, int, DateValue, DateValue]] = []
    for pattern, kinds in _RANGES:
        for match in pattern.finditer(text):
            start, end = match.span()
            if any(start < b and a < end for a, b, *_ in found):
                continue
            if re.search(r"\band\b", match.group()) and not text[:start].endswith("between "):
                continue  # "6 May and 7 June" names two days; "between 6 and 13 May" a range
            parts = dict(zip(kinds, match.groups(), strict=True))
            year, month = _value("y", parts["y"]), _value("m", parts["m"])
            last_month = _value("m", parts.get("m2")) or month
            first = DateValue(year, month, int(parts["d"]))
            last = DateValue(year, last_month, int(parts["d2"]))
            if not (1 <= first.day <= 31 and 1 <= last.day <= 31):  # type: ignore[operator]
                continue
            if (last_month, last.day) <= (month, first.day):  # type: ignore[operator]
                continue  # not a range forward in time ("3 to 2 May")
            found.append((start, end, first, last))
    return sorted(found, key=lambda item: item[0])


#: The days of each part of a month a phrase names (the last week and "late" run to the month's end).
_PART_DAYS = {"early": (1, 10), "mid": (11, 20), "late": (21, 31), "first": (1, 7), "second": (8, 14),
              "third": (15, 21), "fourth": (22, 28), "last": (-6, 31)}  # fmt: skip
_PART_WORDS = {"early": "early", "beginning of": "early", "start of": "early", "mid": "mid",
               "middle of": "mid", "late": "late", "end of": "late"}  # fmt: skip
_PART = re.compile(
    r"\b(?:(?:the\s+)?(first|second|third|fourth|last)\s+week\s+of|(?:the\s+)?("
    + "|".join(_PART_WORDS)
    + rf"))[\s-]+{_MONTH}(?:,?\s+(?:of\s+)?{_YEAR})?"
)

_ALTERNATIVE = re.compile(r"\bor\s+(?:in\s+|during\s+)?$")
_ALTERNATIVE_AFTER = re.compile(r"\s+or\b")


def find_month_parts(text: str) -> list[tuple[int, int, DateValue, DateValue]]:
    """``(start, end, first, last)`` of every part of a month in folded ``text`` ("early June 2023",
    "mid-March", "the end of July", "the last week of December 2022"), in text order, the year None
    when unstated (the first and last days then need one: :func:`month_part_days`); a part a hedge
    opens (``date_hedges``: "around mid-July") is left out, for its month alone to be read."""
    hedges = "|".join(map(re.escape, rule_lists().date_hedges))
    hedge = re.compile(rf"\b(?:{hedges})\s+(?:in\s+|during\s+)?$")
    found: list[tuple[int, int, DateValue, DateValue]] = []
    for match in _PART.finditer(text):
        if hedge.search(text[: match.start()]) or _ALTERNATIVE.search(text[: match.start()]):
            continue
        if _ALTERNATIVE_AFTER.match(text, match.end()):
            continue  # "late March or early April": alternatives, neither of them named
        week, part, month_name, year_text = match.groups()
        first_day, last_day = _PART_DAYS[week or _PART_WORDS[part]]
        month, year = _MONTHS[month_name], _value("y", year_text)
        found.append((*match.span(), DateValue(year, month, first_day), DateValue(year, month, last_day)))
    return found


def month_part_days(first: DateValue, last: DateValue, year: int | None) -> tuple[date, date] | None:
    """The first and last calendar days of a part of a month (:func:`find_month_parts`), in its own
    year or else ``year``; None when neither is known."""
    year = first.year if first.year is not None else year
    if year is None or first.month is None or first.day is None or last.day is None:
        return None
    length = calendar.monthrange(year, first.month)[1]
    start = length + first.day if first.day < 0 else first.day
    return date(year, first.month, start), date(year, first.month, min(last.day, length))


def same_date(gold: DateValue, answer: DateValue) -> bool:
    """Whether ``answer`` names the gold's day or period (module docstring)."""
    if gold.month is not None and answer.month != gold.month:
        return False
    if gold.day is not None and answer.day != gold.day:
        return False
    return gold.year is None or answer.year in (None, gold.year)


def within(gold: DateValue, answer: DateValue, days_before: int, days_after: int) -> bool:
    """Whether ``answer`` falls in the days before/after the gold's calendar day (relative periods);
    a year the answer leaves out is taken as the gold's."""
    anchor = gold.as_date()
    if anchor is None:
        return False
    day = DateValue(answer.year if answer.year is not None else gold.year, answer.month, answer.day).as_date()
    start, end = anchor - timedelta(days=days_before), anchor + timedelta(days=days_after)
    return day is not None and start <= day <= end
