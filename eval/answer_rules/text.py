"""The content elements of a text and the containment of a gold answer's elements in a response.

Normalisation (:func:`elements`): folded text (:func:`.lists.fold`: case, quotes, dashes, spaces);
dates in any format become dates (:mod:`.dates`); numbers in digits (``12,000``, ``$120``, ``3.5``)
or in words (``three``, ``twenty-one``, ``two hundred``, ``twice``: the ``number_words`` lists)
become numbers; what is left is split into words at punctuation, articles and stopwords are dropped,
and each word is Porter-stemmed (``dresses`` = ``dress``; NLTK, as LoCoMo's own F1 uses it). A year
written alone is a number. The content elements of a gold answer are its words, numbers and dates.

Relative periods: a date after a relative phrase ("the week before 9 June 2023", "two weeks before",
"the Friday before", "the week of") is a period, not that day (:func:`relative_period`). "<n> <unit>
before D" spans from ``n + 1`` units before D to ``n - 1`` units before it, the day D itself left out
("last week", said on D, is the calendar week before D's: 1 to 13 days back); "after" mirrors it; "the
<unit> of D" is D give or take a unit less a day. A weekday ("the Friday before D", from "last Friday"
said on D) spans a week, as "the week before" does. Unit lengths in days are ``relative_spans``.

Containment (:func:`match`): each gold element is looked for among the response's: a word among its
words or its word family (``word_family_suffixes``: "mentorship" = "mentoring"), or spelled out by an
acronym the gold writes in capitals ("UK": "United Kingdom"), or inside one of the gold's own compounds
the response holds ("a challenge called #PlankChallenge"); a number among its
numbers (a number word in the response counts, and a year inside one of its dates counts), a date by
:func:`.dates.same_date`; a gold period holds a response day inside it, a response month overlapping
it (a period of a month or more), a part of a month centred in the days the phrase names ("early
June" for "the week before 9 June"; never for a day, a weekday or a weekend), or the same relative
phrase on the same day -- never the anchor day itself ("the week before 27 June" is not 27 June).
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass, field
from datetime import date, timedelta

from memsuite.eval.answer_rules.dates import (
    DateValue,
    find_dates,
    find_month_parts,
    find_ranges,
    month_part_days,
    same_date,
)
from memsuite.eval.answer_rules.lists import fold, rule_lists
from memsuite.eval.answer_rules.overlap import stemmer

_NUMBER = re.compile(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\d)|(?<![\w.])\d+(?:\.\d+)?(?!\d)")
_WORD = re.compile(r"[a-z0-9]+")
_ACRONYM = re.compile(r"\b[A-Z]{2,5}\b")
_RELATIVE = re.compile(r"\b(?:([a-z0-9]+)\s+)?([a-z]+?)s?\s+(before|after|prior to|of)\s*$")
#: The relation of a range of days ("June 19-25, 2023").
RANGE = "range"
#: The relation of a part of a month ("early June 2023", "the third week of June").
PART = "part of a month"
_GLUED = re.compile(r"(?<=\d)(?=[a-z]{3,})|(?<=[a-z]{3})(?=\d)")
_NUMBER_RANGE = re.compile(r"(?<![\d/.-])(\d+(?:\.\d+)?)\s*(?:-|to)\s*(\d+(?:\.\d+)?)(?![\d/.-])")
_LONE_NUMBER = re.compile(r"(?<![\d.])\d+(?:\.\d+)?(?![\d.])")


@dataclass(frozen=True)
class GoldDate:
    """A date of a text; after a relative phrase ("the week before"), the period it names."""

    value: DateValue
    period: tuple[date, date] | None = None
    """First and last day of the period a relative phrase names (None when its anchor has no year)."""
    relation: str = ""
    """The relative phrase, normalised ("1 week before"); empty for a date that names itself."""
    last: DateValue | None = None
    """A range of days' last day (its first is ``value``)."""


def relative_period(anchor: DateValue, count: int, unit: str, relation: str) -> tuple[date, date] | None:
    """The days "<count> <unit> <relation> <anchor>" spans (module docstring); None when the anchor is
    not a whole day or the unit is not a relative span."""
    day = anchor.as_date()
    span = rule_lists().relative_spans.get(unit)
    if day is None or span is None:
        return None
    if relation == "of":
        return day - timedelta(days=span - 1), day + timedelta(days=span - 1)
    near, far = max(1, (count - 1) * span), (count + 1) * span - 1
    if relation == "after":
        return day + timedelta(days=near), day + timedelta(days=far)
    return day - timedelta(days=far), day - timedelta(days=near)


@dataclass(frozen=True)
class Elements:
    """The content elements of one text."""

    words: tuple[str, ...] = ()
    """Stemmed content words, in text order, without repeats."""
    numbers: tuple[float, ...] = ()
    dates: tuple[GoldDate, ...] = ()
    acronyms: tuple[str, ...] = ()
    """Words written in capitals ("UK", "NYC"), lower-cased: each may stand for the words its letters
    open ("United Kingdom"); none in a folded text."""

    @property
    def size(self) -> int:
        return len(self.words) + len(self.numbers) + len(self.dates)


@dataclass(frozen=True)
class Match:
    """Which gold elements a response holds."""

    found: int
    total: int
    missing_words: tuple[str, ...] = ()
    missing_numbers: tuple[float, ...] = ()
    missing_dates: tuple[DateValue, ...] = ()
    response_numbers: tuple[float, ...] = field(default=(), repr=False)

    @property
    def complete(self) -> bool:
        return self.total > 0 and self.found == self.total

    @property
    def coverage(self) -> float:
        return self.found / self.total if self.total else 0.0

    @property
    def key_missing(self) -> bool:
        """A number or a date of the gold is missing (the parts an answer cannot paraphrase)."""
        return bool(self.missing_numbers or self.missing_dates)

    def describe(self) -> str:
        parts = [*self.missing_words, *(_number_text(n) for n in self.missing_numbers)]
        parts += [_date_text(d) for d in self.missing_dates]
        missing = f"; missing {', '.join(parts)}" if parts else ""
        return f"{self.found} of {self.total} gold elements{missing}"


def _number_text(number: float) -> str:
    return str(int(number)) if number == int(number) else str(number)


def _date_text(value: DateValue) -> str:
    return "-".join("?" if part is None else str(part) for part in (value.year, value.month, value.day))


def _spelled_numbers(words: list[str]) -> tuple[list[str], list[float]]:
    """Words with spelled numbers taken out, and those numbers ("twenty one" -> 21, "two hundred" -> 200)."""
    lists = rule_lists()
    kept: list[str] = []
    numbers: list[float] = []
    current: int | None = None
    for at, word in enumerate([*words, ""]):
        if word == "one" and _pronoun_one(words, at):
            word = ""  # the pronoun: neither a number nor a content word
        if word in lists.number_words:
            value = lists.number_words[word]
            # "twenty one" adds; "one two" (two separate numbers) does not.
            if current is not None and current % 100 >= 20 and current % 10 == 0 and value < 10:
                current += value
            else:
                if current is not None:
                    numbers.append(current)
                current = value
        elif word in lists.number_multipliers and current is not None:
            current *= lists.number_multipliers[word]
        else:
            if current is not None:
                numbers.append(current)
                current = None
            if word:
                kept.append(word)
    return kept, [float(n) for n in numbers]


def _pronoun_one(words: list[str], at: int) -> bool:
    """Whether ``words[at]`` ("one") is the pronoun (``one_pronoun_before`` / ``one_pronoun_after``, or
    the last of several words), not the number 1."""
    lists = rule_lists()
    before = words[at - 1] if at > 0 else ""
    after = words[at + 1] if at + 1 < len(words) else ""
    if before in lists.number_words:
        return False  # "twenty-one"
    return before in lists.one_pronoun_before or after in lists.one_pronoun_after or (not after and at > 0)


def _count(word: str | None) -> int | None:
    """The count a relative phrase opens with ("two weeks before": 2), or None (one unit)."""
    if word is None:
        return None
    if word.isdigit():
        return int(word)
    return rule_lists().number_words.get(word)


def elements(text: str, *, relative: bool = True) -> Elements:
    """The content elements of ``text`` (module docstring); ``relative`` reads relative date periods."""
    lists = rule_lists()
    folded = _GLUED.sub(" ", fold(text))  # "15April, 2022" is "15 April, 2022"
    dates: list[GoldDate] = []
    numbers: list[float] = []
    pieces: list[str] = []
    cursor = 0
    ranges = find_ranges(folded)
    parts = [part for part in find_month_parts(folded)
             if not any(part[0] < end and start < part[1] for start, end, *_ in ranges)]  # fmt: skip
    periods = [*ranges, *parts]
    found_dates = [(a, b, value, None) for a, b, value in find_dates(folded)
                   if not any(a < end and start < b for start, end, *_ in periods)]  # fmt: skip
    for start, end, value, last in sorted([*found_dates, *periods], key=lambda item: item[0]):
        pieces.append(folded[cursor:start])
        period, relation = None, ""
        found = _RELATIVE.search(pieces[-1]) if relative and last is None else None
        if last is not None and (start, end, value, last) in parts:  # a part of a month is its own period
            period, relation = month_part_days(value, last, None), PART
        elif last is not None:  # a range of days is its own period
            first_day, last_day = value.as_date(), last.as_date()
            period = (first_day, last_day) if first_day and last_day else None
            relation = RANGE
        elif found:
            count = _count(found.group(1))
            unit, kind = found.group(2), found.group(3).replace("prior to", "before")
            # An anchor without a year (an answer's "the week before June 9") is still a period: its
            # relation is kept, its days are unknown.
            known = value if value.year is not None else DateValue(2000, value.month, value.day)
            if relative_period(known, count or 1, unit, kind) is not None:
                period = relative_period(value, count or 1, unit, kind)
                relation = f"{count or 1} {unit} {kind}"
                # The period replaces its words (a count the phrase opens with included).
                pieces[-1] = pieces[-1][: found.start() if count else found.start(2)]
        dates.append(GoldDate(value, period, relation, last))
        if value.year is not None:
            numbers.append(float(value.year))  # a date's year answers a question about the year
        pieces.append(" ")
        cursor = end
    pieces.append(folded[cursor:])
    rest = "".join(pieces)
    for found_number in _NUMBER.finditer(rest):
        numbers.append(float(found_number.group().replace(",", "")))
    rest = _NUMBER.sub(" ", rest)
    words, spelled = _spelled_numbers(_WORD.findall(rest.replace("'s ", " ")))
    stem = stemmer().stem
    content = [stem(w) for w in words if w not in lists.articles and w not in lists.stopwords]
    acronyms = tuple(dict.fromkeys(w.lower() for w in _ACRONYM.findall(text)))
    numbers = list(dict.fromkeys([*numbers, *spelled]))
    return Elements(tuple(dict.fromkeys(content)), tuple(numbers), tuple(dates), acronyms)


def _in_period(period: tuple[date, date], anchor: DateValue, candidate: DateValue) -> bool:
    """Whether a response date (not itself a period) falls in a gold period: a day inside it, or -- for
    a period of a month or more -- a month overlapping it ("early June" does not name "the week before
    9 June"); a year the response leaves out is the anchor's."""
    year = candidate.year if candidate.year is not None else anchor.year
    if year is None or candidate.month is None:
        return False
    if candidate.day is not None:
        day = DateValue(year, candidate.month, candidate.day).as_date()
        return day is not None and period[0] <= day <= period[1]
    if (period[1] - period[0]).days < 27:
        return False
    first = date(year, candidate.month, 1)
    last = date(year, candidate.month, calendar.monthrange(year, candidate.month)[1])
    return first <= period[1] and period[0] <= last


def _nominal(gold: GoldDate) -> tuple[date, date] | None:
    """The days a relative phrase names at its word ("the week before 9 June": the seven days before
    it), narrower than its period, which allows for the calendar week it was said in."""
    anchor = gold.value.as_date()
    if anchor is None or not gold.relation:
        return None
    count, unit, kind = gold.relation.split(" ", 2)
    span = rule_lists().relative_spans.get(unit)
    if span is None:
        return None
    near, far = (int(count) - 1) * span + 1, int(count) * span
    if kind == "of":
        return anchor - timedelta(days=span // 2), anchor + timedelta(days=span // 2)
    if kind == "after":
        return anchor + timedelta(days=near), anchor + timedelta(days=far)
    return anchor - timedelta(days=far), anchor - timedelta(days=near)


def _names_a_day(gold: GoldDate) -> bool:
    """Whether a gold date names a day or a few: a day, a range of at most three days ("November 5-6,
    2022"), a weekday or a weekend ("the Saturday before 7 November", "the weekend after 3 June")."""
    if gold.relation == RANGE:
        return gold.period is not None and (gold.period[1] - gold.period[0]).days < 3
    if gold.relation and gold.relation != PART:
        return gold.relation.split(" ")[1] not in ("week", "month", "year", "fortnight")
    return not gold.relation and gold.value.day is not None


def _middle(period: tuple[date, date]) -> date:
    return period[0] + (period[1] - period[0]) / 2


def _date_found(gold: GoldDate, response: Elements) -> bool:
    for candidate in response.dates:
        if candidate.relation == PART and candidate.period is None and candidate.last is not None:
            # A part of a month without its year ("mid-March") is in the gold's year.
            period = month_part_days(candidate.value, candidate.last, gold.value.year)
            candidate = GoldDate(candidate.value, period, PART, candidate.last)
        middle = None if candidate.period is None else _middle(candidate.period)
        if candidate.relation == PART and _names_a_day(gold):
            continue  # "early July" names neither 2 July nor 5-6 July: it is a guess around the day
        if candidate.relation == PART and gold.relation not in ("", RANGE, PART):
            window = _nominal(gold)
            if window is not None and middle is not None and window[0] <= middle <= window[1]:
                return True
            continue
        if not gold.relation:
            if not candidate.relation and same_date(gold.value, candidate.value):
                return True
            # A response range names its first and last days ("from 29 March till 19 April").
            ends = (candidate.value, candidate.last) if candidate.relation == RANGE else ()
            if any(end is not None and same_date(gold.value, end) for end in ends):
                return True
            # A response period centred in the gold's day or month ("the week of 14 June" for "June").
            if middle is not None and same_date(gold.value, DateValue(middle.year, middle.month, middle.day)):
                return True
        elif not candidate.relation:
            if gold.period is not None and _in_period(gold.period, gold.value, candidate.value):
                return True
        elif candidate.relation == gold.relation and same_date(gold.value, candidate.value):
            return True
        elif gold.period is not None and middle is not None and gold.period[0] <= middle <= gold.period[1]:
            return True  # another phrase for a period centred inside the gold's ("the week of 9 October")
    return False


def _period_elements(response: Elements) -> tuple[set[float], set[str]]:
    """The numbers and words a response's relative periods state: each period's count and the year of
    its middle ("three years before 23 January 2022": 3 and 2019), and its unit ("year")."""
    numbers: set[float] = set()
    words: set[str] = set()
    for candidate in response.dates:
        if candidate.period is None or candidate.relation in ("", RANGE, PART):
            continue
        count, unit, _ = candidate.relation.split(" ", 2)
        numbers |= {float(count), float(_middle(candidate.period).year)}
        words.add(stemmer().stem(unit))
    return numbers, words


def misspelt(gold_word: str, word: str) -> bool:
    """Whether two stemmed words of at least six letters, with the same first letter, are one letter
    apart: one added, dropped, changed, or two neighbours swapped."""
    if min(len(gold_word), len(word)) < 6 or gold_word[0] != word[0] or gold_word == word:
        return False
    if abs(len(gold_word) - len(word)) > 1:
        return False
    short, long = sorted((gold_word, word), key=len)
    if len(short) < len(long):
        return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))
    differ = [i for i in range(len(short)) if short[i] != long[i]]
    if len(differ) == 1:
        return True
    return (
        len(differ) == 2
        and differ[1] == differ[0] + 1
        and short[differ[0]] == long[differ[1]]
        and short[differ[1]] == long[differ[0]]
    )


def same_family(gold_word: str, word: str) -> bool:
    """Whether two stemmed words are one word family (``word_family_suffixes``)."""
    if gold_word == word:
        return True
    short, long = sorted((gold_word, word), key=len)
    if len(short) < 5 or not long.startswith(short):
        return False
    return long[len(short) :] in rule_lists().word_family_suffixes


def _spelled_out(acronyms: tuple[str, ...], words: tuple[str, ...]) -> set[str]:
    """The acronyms, and the words, of every run of ``words`` whose first letters spell one of the
    ``acronyms`` ("united kingdom" for "uk"): either stands for the other."""
    found: set[str] = set()
    for acronym in acronyms:
        for start in range(len(words) - len(acronym) + 1):
            run = words[start : start + len(acronym)]
            if "".join(w[0] for w in run) == acronym:
                found |= {acronym, *run}
    return found


def match(gold: Elements, response: Elements) -> Match:
    """Which of the gold's elements the response holds (module docstring).

    A gold date's year is not also required as a number: the date itself carries it.
    """
    years = {float(d.value.year) for d in gold.dates if d.value.year is not None}
    gold_numbers = [n for n in gold.numbers if n not in years]
    period_numbers, period_words = _period_elements(response)
    words = set(response.words) | period_words
    stated = set(response.numbers) | period_numbers
    spelled_out = _spelled_out(gold.acronyms, response.words) | _spelled_out(response.acronyms, gold.words)
    missing_words = tuple(
        w for w in gold.words if w not in spelled_out and not any(same_family(w, r) for r in words)
    )
    # A misspelt word ("jweleri" for "jewelri", "xeonoblad" for "xenoblad") is the word.
    missing_words = tuple(w for w in missing_words if not any(misspelt(w, r) for r in words))
    # A word the gold repeats inside one of its own compounds ("a challenge called #PlankChallenge")
    # is held with the compound.
    held = [w for w in gold.words if w not in missing_words]
    missing_words = tuple(
        w for w in missing_words if not (len(w) >= 5 and any(w in h and w != h for h in held))
    )
    missing_numbers = tuple(n for n in gold_numbers if n not in stated)
    missing_dates = tuple(d.value for d in gold.dates if not _date_found(d, response))
    total = len(gold.words) + len(gold_numbers) + len(gold.dates)
    found = total - len(missing_words) - len(missing_numbers) - len(missing_dates)
    return Match(found, total, missing_words, missing_numbers, missing_dates, response.numbers)


def stated_only_in_a_range(numbers: set[float], final: str) -> str | None:
    """The range ("2-3 weeks", "20 to 30%") in which the final answer states a gold number, when it
    states it nowhere else and the range's other end is no gold number (of any alternative): a range
    hedges between counts, it does not give the gold's ("10-12 hours" for a gold of "10-12 hours", or
    "2-3 days" for "2 days. 3 days ... is also acceptable", does)."""
    text = fold(final)
    alone = {float(n) for n in _LONE_NUMBER.findall(_NUMBER_RANGE.sub(" ", text))}
    for found in _NUMBER_RANGE.finditer(text):
        ends = {float(n) for n in found.groups()}
        if ends & (numbers - alone) and not ends <= numbers:
            return found.group()
    return None


def key_elements(gold: Elements, asked: Elements | None) -> Elements:
    """The gold's elements less the words the question holds (restating the question names no
    answer); all of them when the question holds every word and the gold has no number or date."""
    if asked is None:
        return gold
    words = tuple(w for w in gold.words if w not in set(asked.words))
    if not words and not gold.numbers and not gold.dates:
        return gold
    return Elements(words, gold.numbers, gold.dates, gold.acronyms)
