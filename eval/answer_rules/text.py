"""The content elements of a text and the containment of a gold answer's elements in a response.

Normalisation (:func:`elements`): folded text (:func:`.lists.fold`: case, quotes, dashes, spaces);
dates in any format become dates (:mod:`.dates`); numbers in digits (``12,000``, ``$120``, ``3.5``)
or in words (``three``, ``twenty-one``, ``two hundred``, ``twice``: the ``number_words`` lists)
become numbers; what is left is split into words at punctuation, articles and stopwords are dropped,
and each word is Porter-stemmed (``dresses`` = ``dress``; NLTK, as LoCoMo's own F1 uses it). A year
written alone is a number. The content elements of a gold answer are its words, numbers and dates.

Containment (:func:`match`): each gold element is looked for among the response's: a word among its
words, a number among its numbers (a number word in the response counts, and a year inside one of its
dates counts), a date by :func:`.dates.same_date`, or -- for a gold date after a relative word ("the
week before 9 June 2023") -- any response date in the period the word spans (``relative_spans``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from memsuite.eval.answer_rules.dates import DateValue, find_dates, same_date, within
from memsuite.eval.answer_rules.lists import fold, rule_lists

_NUMBER = re.compile(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\d)|(?<![\w.])\d+(?:\.\d+)?(?!\d)")
_WORD = re.compile(r"[a-z0-9]+")
_RELATIVE = re.compile(r"\b([a-z]+)\s+(before|after|prior to|of)\s*$")


@dataclass(frozen=True)
class GoldDate:
    """A date of a gold answer, and the period around it a relative word gives ("the week before")."""

    value: DateValue
    days_before: int = 0
    days_after: int = 0


@dataclass(frozen=True)
class Elements:
    """The content elements of one text."""

    words: tuple[str, ...] = ()
    """Stemmed content words, in text order, without repeats."""
    numbers: tuple[float, ...] = ()
    dates: tuple[GoldDate, ...] = ()

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
    for word in [*words, ""]:
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


def elements(text: str, *, relative: bool = False) -> Elements:
    """The content elements of ``text`` (module docstring); ``relative`` reads relative date periods
    (for a gold answer)."""
    lists = rule_lists()
    folded = fold(text)
    dates: list[GoldDate] = []
    numbers: list[float] = []
    pieces: list[str] = []
    cursor = 0
    for start, end, value in find_dates(folded):
        pieces.append(folded[cursor:start])
        before, after = 0, 0
        if relative:
            found = _RELATIVE.search(pieces[-1])
            span = lists.relative_spans.get(found.group(1)) if found else None
            if found and span is not None and found.group(2) != "of":
                before, after = (span, 0) if found.group(2) in ("before", "prior to") else (0, span)
                pieces[-1] = pieces[-1][: found.start()]  # the period replaces its words
        dates.append(GoldDate(value, before, after))
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
    # Imported on use: the LoCoMo judges package imports this module (through its rule judge).
    from memsuite.eval.benchmarks.locomo.judges.official import stemmer

    stem = stemmer().stem
    content = [stem(w) for w in words if w not in lists.articles and w not in lists.stopwords]
    return Elements(tuple(dict.fromkeys(content)), tuple(dict.fromkeys([*numbers, *spelled])), tuple(dates))


def _date_found(gold: GoldDate, response: Elements) -> bool:
    for candidate in response.dates:
        if same_date(gold.value, candidate.value):
            return True
        if (gold.days_before or gold.days_after) and within(
            gold.value, candidate.value, gold.days_before, gold.days_after
        ):
            return True
    return False


def match(gold: Elements, response: Elements) -> Match:
    """Which of the gold's elements the response holds (module docstring).

    A gold date's year is not also required as a number: the date itself carries it.
    """
    years = {float(d.value.year) for d in gold.dates if d.value.year is not None}
    gold_numbers = [n for n in gold.numbers if n not in years]
    words = set(response.words)
    missing_words = tuple(w for w in gold.words if w not in words)
    missing_numbers = tuple(n for n in gold_numbers if n not in response.numbers)
    missing_dates = tuple(d.value for d in gold.dates if not _date_found(d, response))
    total = len(gold.words) + len(gold_numbers) + len(gold.dates)
    found = total - len(missing_words) - len(missing_numbers) - len(missing_dates)
    return Match(found, total, missing_words, missing_numbers, missing_dates, response.numbers)
