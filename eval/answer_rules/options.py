"""Questions that offer two options ("Which did I do first, the charity gala or the bake sale?"): the
option an answer chooses.

An answer to such a question often names both options -- the one it chooses and the other, to say
which came after -- so holding the gold's words does not show the choice. The option it names first
in its final answer is the one it chooses ("The necklace came first, before the photo album"; "The
bake sale."). An option is found by its own words: the content words the other option does not have.
"""

from __future__ import annotations

import re

from memsuite.eval.answer_rules.lists import fold
from memsuite.eval.answer_rules.text import elements, same_family

_OPTIONS = re.compile(r",\s*([^,?]+?)\s+or\s+([^,?]+?)\s*\?\s*$")
_TOKEN = re.compile(r"[a-z0-9]+")


def question_options(question: str) -> tuple[str, str] | None:
    """The two options a question ends with (", A or B?"), or None."""
    found = _OPTIONS.search(fold(question))
    return (found.group(1), found.group(2)) if found else None


def _own_words(options: tuple[str, str], question: str) -> tuple[set[str], set[str]]:
    """Each option's own words: those neither the other option nor the rest of the question has
    ("trip" in "Which trip did I take first, the one to Europe or the solo trip to Thailand?" names
    neither)."""
    first, second = (set(elements(option).words) for option in options)
    asked = set(elements(fold(question).rsplit(options[0], 1)[0]).words)
    return first - second - asked, second - first - asked


def chosen_option(options: tuple[str, str], answer: str, question: str = "") -> int | None:
    """The index of the option ``answer`` names first (by each option's own words), or None when it
    names neither."""
    own = _own_words(options, question)
    positions: list[int | None] = [None, None]
    for at, token in enumerate(_TOKEN.findall(fold(answer))):
        words = elements(token).words
        for index in (0, 1):
            if positions[index] is None and any(same_family(o, w) for o in own[index] for w in words):
                positions[index] = at
    found = [(p, i) for i, p in enumerate(positions) if p is not None]
    return min(found)[1] if found else None


def gold_option(options: tuple[str, str], gold: str, question: str = "") -> int | None:
    """The option the gold names: the one whose own words it holds more of (None on a tie)."""
    own = _own_words(options, question)
    held = set(elements(gold).words)
    scores = [len(own[0] & held), len(own[1] & held)]
    if scores[0] == scores[1]:
        return None
    return 0 if scores[0] > scores[1] else 1
