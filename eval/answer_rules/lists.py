"""The word lists of the answer rules, read once from ``data/answer_rules.json`` (its ``_doc`` says what
each list is for), so widening a list needs no code."""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from functools import cache
from pathlib import Path

RULES_PATH = Path(__file__).with_name("data") / "answer_rules.json"
_PHRASE_LISTS = (
    "articles",
    "stopwords",
    "final_answer_markers",
    "reasoning_markers",
    "refusals",
    "uncertain_refusals",
    "gold_alternative_markers",
    "polarity_hedges",
    "word_family_suffixes",
    "rubric_words",
    "no_openings",
    "one_pronoun_before",
    "one_pronoun_after",
    "date_hedges",
)
_NUMBER_TABLES = ("number_words", "number_multipliers", "relative_spans")
_FOLD = str.maketrans({"‘": "'", "’": "'", "“": '"', "”": '"', "–": "-", "—": "-", "`": "'"})


def fold(text: str) -> str:
    """NFKC, lower case, typographic quotes and dashes folded, whitespace collapsed."""
    text = unicodedata.normalize("NFKC", text).translate(_FOLD).lower()
    return re.sub(r"\s+", " ", text).strip()


@dataclass(frozen=True)
class RuleLists:
    """The lists of ``data/answer_rules.json``, folded."""

    articles: frozenset[str]
    stopwords: frozenset[str]
    final_answer_markers: tuple[str, ...]
    reasoning_markers: tuple[str, ...]
    refusals: tuple[str, ...]
    uncertain_refusals: tuple[str, ...]
    gold_alternative_markers: tuple[str, ...]
    polarity_hedges: tuple[str, ...]
    word_family_suffixes: tuple[str, ...]
    rubric_words: tuple[str, ...]
    no_openings: tuple[str, ...]
    one_pronoun_before: tuple[str, ...]
    one_pronoun_after: tuple[str, ...]
    date_hedges: tuple[str, ...]
    number_words: dict[str, int]
    number_multipliers: dict[str, int]
    relative_spans: dict[str, int]


@cache
def rule_lists(path: Path = RULES_PATH) -> RuleLists:
    """The lists of ``path``, read once per path.

    Raises:
        ValueError: A list is missing, empty or holds a blank, or a table maps a word to a non-integer
            (the message names the file and the list).
    """
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{path}: the rule lists must be a JSON object")
    lists: dict[str, object] = {}
    for name in _PHRASE_LISTS:
        found = data.get(name)
        strings = isinstance(found, list) and all(isinstance(p, str) and p.strip() for p in found)
        if not strings or not found:
            raise ValueError(f"{path}: '{name}' must be a non-empty list of non-empty strings")
        lists[name] = tuple(dict.fromkeys(fold(p) for p in found))
    for name in _NUMBER_TABLES:
        table = data.get(name)
        if (
            not isinstance(table, dict)
            or not table
            or not all(
                isinstance(k, str) and k.strip() and isinstance(v, int) and not isinstance(v, bool)
                for k, v in table.items()
            )
        ):
            raise ValueError(f"{path}: '{name}' must be a non-empty object of words to integers")
        lists[name] = {fold(k): v for k, v in table.items()}
    lists["articles"] = frozenset(lists["articles"])  # type: ignore[arg-type]
    lists["stopwords"] = frozenset(lists["stopwords"])  # type: ignore[arg-type]
    return RuleLists(**lists)  # type: ignore[arg-type]
