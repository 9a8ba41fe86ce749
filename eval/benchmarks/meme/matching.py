"""Whether a text holds a MEME value, tolerant of how dialogue and LLM memories word it.

Canonical values are labels (``rotating weekly (lead + backup)``, ``on-call``, ``PostgreSQL 14``), and
a context that plainly holds the fact often words it differently: "we rotate weekly, with a lead and
a backup", "oncall", "postgresql 14". :func:`value_present` says yes when any of three rules holds:

1. **Verbatim**: the normalised value (:func:`memsuite.eval.benchmarks.meme.judges.rule.normalize`: NFKC,
lower
   case, quotes and dashes folded, whitespace collapsed) occurs in the normalised text with no letter or digit
   glued to either end ("6642" is not in "66421"). This is what keeps multi-line verbatim values (an
   ER error log, a licence key) matched exactly as before.
2. **Phrase**: the value's tokens, joined, equal the joined tokens of consecutive tokens of one line
   of the text. Tokens are runs of letters and digits (a digit run keeps an inner ``.`` or ``:``, so
   "14.2" and "08:20" stay one token); ``+`` and ``&`` read as "and". Joining folds hyphens, spaces
   and punctuation: "on-call" == "oncall" == "on call", "Kestrel-Compact 4" == "kestrel compact 4".
3. **Token rule** (only for descriptive values, i.e. values with a lower-case content word or whose
   only capitals are days and months, "Fridays at 13:35"; names such as "Dana Park" or "PostgreSQL 14"
   must match as a phrase): every content token of the value
   -- or of its head, the part before a parenthetical gloss -- is found in one line of the text, all
   within a window of ``2 * n + 2`` tokens (``n`` = the value's token count). Content tokens are the
   value's tokens minus function words ("a", "the", "with", "and", ...), compared after light
   stemming (plural "s"/"ies", "-ing", "-ed", final "e", "-ly" of a time noun: "rotating" == "rotate",
   "backups" == "backup", "ferries" == "ferry", "nightly" == "night", "daily" == "day");
   two adjacent value tokens may also match one text token that joins them ("on call" / "oncall").
   Tokens holding a digit are never stemmed and must match exactly ("14" is not "15", nor "14.2").

Where it must still say no: a different value sharing a word ("PostgreSQL 14" vs "PostgreSQL 15",
"Dana Park" vs "Dana Lee ... the park"), a number or version that differs in any digit, a short value
found only inside a longer token ("6642" in "66421").
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from functools import lru_cache

#: Typographic quotes and dashes folded to their ASCII forms.
_FOLD = str.maketrans({"‘": "'", "’": "'", "“": '"', "”": '"', "–": "-", "—": "-", "`": "'"})


def normalize(text: str) -> str:
    """NFKC, lower case, quotes and dashes folded, whitespace collapsed."""
    text = unicodedata.normalize("NFKC", text).translate(_FOLD).lower()
    return re.sub(r"\s+", " ", text).strip()


def contains(answer: str, value: str) -> bool:
    """Whether normalised ``value`` occurs in normalised ``answer`` (a blank value never does)."""
    needle = normalize(value)
    return bool(needle) and needle in normalize(answer)


#: Function words left out of the token rule (they carry no value and paraphrases add or drop them).
_FUNCTION_WORDS = "a an the of and or with for to in on at by via per from is are was were be been it its"
STOPWORDS = frozenset(f"{_FUNCTION_WORDS} this that we our us my your you i me they their".split())
_TOKEN = re.compile(r"[^\W_]*\d[^\W_]*(?:[.:][^\W_]*\d[^\W_]*)*|[^\W_]+")
_PAREN = re.compile(r"\s*[\(\[][^)\]]*[\)\]]\s*")


def tokens(text: str) -> list[str]:
    """Normalised tokens of ``text``: letter/digit runs, "+" and "&" read as "and" (see module doc)."""
    text = normalize(text).replace("+", " and ").replace("&", " and ")
    return _TOKEN.findall(text)


def stem(token: str) -> str:
    """Light stemming for the token rule; tokens holding a digit are returned unchanged."""
    if any(c.isdigit() for c in token):
        return token
    if len(token) > 4 and token.endswith("ily"):  # adverbs of time from nouns: daily, nightly, weekly
        token = token[:-3] + "y"
    elif len(token) > 5 and token.endswith("ly"):
        token = token[:-2]
    if len(token) > 4 and token.endswith("ies"):  # ferries, companies
        token = token[:-3] + "y"
    elif len(token) > 3 and token.endswith("s") and not token.endswith("ss"):
        token = token[:-1]
    for suffix in ("ing", "ed"):
        if len(token) > len(suffix) + 3 and token.endswith(suffix):
            token = token[: -len(suffix)]
            break
    if len(token) > 3 and token.endswith("e"):
        token = token[:-1]
    return token


def head(value: str) -> str:
    """``value`` without parenthetical glosses: ``rotating weekly (lead + backup)`` -> ``rotating weekly``."""
    return " ".join(_PAREN.sub(" ", value).split())


#: Capitalised by English spelling, not because they name something: a schedule such as "Fridays at
#: 13:35" is a description ("13:35 on Fridays"), not a name.
_CALENDAR = frozenset(
    (
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
        "mon",
        "tue",
        "wed",
        "thu",
        "fri",
        "sat",
        "sun",
    )
)


def is_name(value: str) -> bool:
    """Whether ``value`` reads as a name: every content word starts with a capital or a digit, and
    not every capitalised one is a day or month."""
    words = [w for w in re.findall(r"[^\W_]+", head(value) or value) if w.lower() not in STOPWORDS]
    capitals = [w for w in words if w[0].isupper()]
    if capitals and all(stem(w.lower()) in _CALENDAR for w in capitals):
        return False
    return bool(words) and all(w[0].isupper() or w[0].isdigit() for w in words)


def verbatim_present(text: str, value: str) -> bool:
    """Rule 1: the normalised value occurs in the normalised text, not glued to a letter or digit."""
    needle = normalize(value)
    if not needle:
        return False
    return _bounded(needle).search(normalize(text)) is not None


@lru_cache(maxsize=4096)
def _bounded(needle: str) -> re.Pattern[str]:
    # A number is whole only when no ".5" / "1." continues it: "14" is not in "14.2" or "1.14".
    left = r"(?<![^\W_])" + (r"(?<!\d[.:])" if needle[0].isdigit() else "") if needle[0].isalnum() else ""
    right = r"(?![^\W_])" + (r"(?![.:]\d)" if needle[-1].isdigit() else "") if needle[-1].isalnum() else ""
    return re.compile(left + re.escape(needle) + right)


def _phrase_in(line_tokens: Sequence[str], value_tokens: Sequence[str]) -> bool:
    target = "".join(value_tokens)
    if not target:
        return False
    for start in range(len(line_tokens)):
        joined = ""
        for token in line_tokens[start:]:
            joined += token
            if joined == target:
                return True
            if len(joined) >= len(target) or not target.startswith(joined):
                break
    return False


def _token_rule_in(line_tokens: Sequence[str], value_tokens: Sequence[str]) -> bool:
    """Rule 3 on one line: every content token found, within the window, pairs may join."""
    stems = [stem(t) for t in line_tokens]
    positions: dict[str, list[int]] = {}
    for i, s in enumerate(stems):
        positions.setdefault(s, []).append(i)
    for i in range(len(line_tokens) - 1):  # "on call" in the text matches "oncall" in the value
        positions.setdefault(line_tokens[i] + line_tokens[i + 1], []).append(i)
    wanted: list[list[int]] = []
    i = 0
    while i < len(value_tokens):
        if i + 1 < len(value_tokens) and value_tokens[i] + value_tokens[i + 1] in positions:
            wanted.append(positions[value_tokens[i] + value_tokens[i + 1]])
            i += 2
            continue
        token = value_tokens[i]
        i += 1
        if token in STOPWORDS:
            continue
        found = positions.get(stem(token))
        if not found:
            return False
        wanted.append(found)
    if not wanted:
        return False
    return _window(wanted) <= 2 * len(value_tokens) + 2


def _window(groups: list[list[int]]) -> int:
    """Smallest span (in tokens) holding one position of every group."""
    events = sorted((p, g) for g, group in enumerate(groups) for p in group)
    counts: dict[int, int] = {}
    best = len(events) + 10**6
    left = 0
    for pos, group in events:
        counts[group] = counts.get(group, 0) + 1
        while len(counts) == len(groups):
            lpos, lgroup = events[left]
            best = min(best, pos - lpos + 1)
            counts[lgroup] -= 1
            if not counts[lgroup]:
                del counts[lgroup]
            left += 1
    return best


def _line_holds(line_tokens: Sequence[str], value: str) -> bool:
    full = tokens(value)
    short = tokens(head(value))
    for variant in (full, short) if short != full else (full,):
        if variant and _phrase_in(line_tokens, variant):
            return True
    if is_name(value):
        return False
    return any(v and _token_rule_in(line_tokens, v) for v in ((full, short) if short != full else (full,)))


def lines(text: str) -> list[str]:
    """The non-blank lines of ``text`` (the unit the phrase and token rules look within)."""
    return [line for line in text.splitlines() if line.strip()]


def line_holds(line: str, value: str) -> bool:
    """Whether one line holds ``value`` by any of the three rules."""
    return verbatim_present(line, value) or _line_holds(tokens(line), value)


def value_present(text: str, value: str) -> bool:
    """Whether ``text`` holds ``value`` by any of the module's three rules (a blank value never is)."""
    if not normalize(value):
        return False
    if verbatim_present(text, value):
        return True
    return any(_line_holds(tokens(line), value) for line in lines(text))


def missing_values(text: str, values: Iterable[str]) -> list[str]:
    """The values :func:`value_present` does not find in ``text``."""
    return [v for v in values if not value_present(text, v)]
