"""The LLM-free ``rule`` judge of LoCoMo-numbered categories (:mod:`.categories`; LoCoMo's and
REALTALK's): the J prompt of LoCoMo's published comparisons (its ``llm`` judge) as string rules,
strict by default, and the category-5 rule.

Each rule restates the official rubric; nothing here was fitted to graded answers. The answer's final
stated answer is judged (:func:`memsuite.eval.answer_rules.responses.final_answer`), its elements
matched against the gold's (:mod:`memsuite.eval.answer_rules.text`: case, punctuation, articles,
number words, word families, dates in any format, relative periods such as "the week before 9 June
2023"). The gold's *key* elements are those the question does not already hold ("Melanie's daughter"
asked "Whose birthday did Melanie celebrate?" is keyed on "daughter"): restating the question names
no answer.

Categories 1-4 (the J prompt: "for time questions ... the same date or time period ... even if the
format differs"):

- a yes/no gold ("Likely no; she ...") is answered by the answer's own yes or no when it opens with
  one (the reason after it is not required): the same is yes, the other no;
- yes when the answer holds every key element of the gold; no when a number or date of the gold is
  missing (another date is another period), when it declines, or when it holds none of the key words;
- a list gold (items apart by commas or semicolons: "pottery, camping, painting") is held item by item
  (an item is held when half its key words are, and all its numbers and dates): yes when every item
  is held, no when more than half are missing; holding the rest, a list answer (items of at most
  :data:`EXTRA_WORDS` content words) is yes unless it names an item the gold does not hold (a wrong
  item), and an answer in prose (over :data:`PROSE_WORDS` content words, an item longer than a list
  item) is yes: its other phrases explain, they are not items;
- a gold of alternatives ("California or Florida", "friend, colleague or family") is held by any one
  alternative whole;
- a reason the gold gives after its answer ("..., since they don't have fur"; "National park; she likes
  the outdoors") is not a part of it;
- any other gold: yes when more than :data:`TOPIC` of its key words are held, else no.

The J prompt also says "grade generously ... as long as it touches on the same topic as the gold answer
it is CORRECT". That generosity is a choice, not the default: ``leniency="official"`` (the judge
``rule_official``) accepts a list answer holding half of the items and any other answer holding one
key word. Strict rejects vague answers that touch the topic without stating the answer -- the
published judge accepts 63 % of such answers written to be wrong; ``perf/bench_judge_agreement.py``
reports what each choice costs in agreement with the published verdicts.

Category 5 (adversarial): its own rule, :func:`.adversarial.judge_adversarial` (yes when the answer
abstains and asserts neither the trap nor another answer to the premise).

Undecided is ``correct: None`` with ``undecided`` saying why (a gold with no content element): counted
apart, never true or false.
"""

from __future__ import annotations

import re
from typing import Any

from memsuite.eval.answer_rules.responses import final_answer, polarity, refusal
from memsuite.eval.answer_rules.text import Elements, elements, key_elements, match, same_family
from memsuite.eval.answer_rules.verdict import rule_verdict as _verdict
from memsuite.eval.retrieval_qa.adversarial import judge_adversarial
from memsuite.eval.retrieval_qa.categories import ADVERSARIAL

#: Above this share of the gold's key words (numbers and dates all present) a strict answer holds it:
#: of a two-word gold ("mental health") both words, one of them names another thing ("a health cause").
TOPIC = 0.5
#: A part of a multi-part gold is held at this share of its key words.
ITEM = 0.5
#: The leniencies of the rule judge (module docstring).
LENIENCIES = ("strict", "official")

#: An answer item of at most this many content words (question words aside) is an item of a list; a
#: longer one explains.
EXTRA_WORDS = 3
#: An answer of more than this many content words (question words aside) with an item that explains
#: is prose; a shorter one is a phrase that names its items.
PROSE_WORDS = 8

_REASON = re.compile(
    r"[,;]?\s*\b(?:since|because|as)\s+(?:she|he|they|it|there|her|his|their|of)\b"
    r"|;\s*(?:she|he|they|it|there)(?:'s)?\b",
    re.I,
)
#: A gold whose parts are alternatives ("California or Florida", "friend, colleague or family").
_ALTERNATIVES = re.compile(r"^[^;]*\bor\s+[^,;]*$")
_PART_SPLIT = re.compile(r"\s*[,;]\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+")


def judge_rule(
    category: int,
    gold: str | None,
    answer: str,
    *,
    adversarial_answer: str | None = None,
    question: str = "",
    leniency: str = "strict",
) -> dict[str, Any]:
    """The rule verdict on one answer (module docstring); ``gold`` is None for category 5, whose trap
    (``adversarial_answer``) and ``question`` its rule reads; ``question`` also keys the gold."""
    if leniency not in LENIENCIES:
        raise ValueError(f"leniency must be one of {', '.join(LENIENCIES)}, got {leniency!r}")
    if category == ADVERSARIAL:  # category 5: its own rule (.adversarial)
        return judge_adversarial(answer, adversarial_answer, question)
    if not answer.strip():
        return _verdict(False, "empty answer")
    final = final_answer(answer)
    if final is None:
        return _verdict(False, "reasons step by step without stating a final answer")
    if gold is None or not str(gold).strip():
        return _verdict(None, "no gold answer")
    wanted = polarity(str(gold))
    if wanted is not None:
        stated = polarity(final)
        if stated is not None:
            said = "yes" if stated else "no"
            return _verdict(stated == wanted, f"answers {said} to a {'yes' if wanted else 'no'} question")
    asked = elements(question) if question else None
    gold = _without_reason(str(gold))
    gold_elements = key_elements(elements(gold), asked)
    if gold_elements.size == 0:
        return _verdict(None, "the gold answer has no content element")
    response = elements(final)
    found = match(gold_elements, response)
    if found.complete:
        return _verdict(True, f"holds the gold ({found.describe()})")
    if found.key_missing:
        return _verdict(False, f"a number or date of the gold is missing ({found.describe()})")
    words = len(gold_elements.words)
    held = words - len(found.missing_words)
    declined = refusal(final, states_nothing=held == 0)
    if declined:
        return _verdict(False, f"declines an answerable question ({declined!r})")
    if held == 0:
        return _verdict(False, f"holds none of the gold's key words ({found.describe()})")
    if _ALTERNATIVES.search(gold):
        alternatives = gold_parts(gold, always=True)
        whole = [a for a in alternatives if match(key_elements(elements(a), asked), response).complete]
        if len(alternatives) > 1 and whole:
            return _verdict(True, f"holds {whole[0]!r}, one of the gold's alternatives")
    parts = gold_parts(gold)
    if len(parts) > 1:
        return _parts_verdict(parts, asked, response, final, leniency)
    if held / words > TOPIC:
        return _verdict(True, f"holds most of the gold's key words ({found.describe()})")
    if leniency == "official":
        return _verdict(True, f"touches the gold's topic ({found.describe()})")
    return _verdict(False, f"holds half or less of the gold's key words ({found.describe()})")


def _parts_verdict(
    parts: list[str], asked: Elements | None, response: Elements, final: str, leniency: str
) -> dict[str, Any]:
    """The verdict on a multi-part gold (module docstring)."""
    held = [_part_held(key_elements(elements(part), asked), response) for part in parts]
    missing = [part for part, ok in zip(parts, held, strict=True) if not ok]
    what = f"{len(parts) - len(missing)} of {len(parts)} parts"
    if not missing:
        return _verdict(True, f"holds every part of the gold ({what})")
    if len(missing) * 2 > len(parts):
        return _verdict(False, f"holds {what}; missing {', '.join(missing)}")
    if leniency == "official":
        return _verdict(True, f"holds {what}; missing {', '.join(missing)}")
    items = gold_parts(final, always=True)
    if _size(response, asked) > PROSE_WORDS and any(
        _size(elements(item), asked) > EXTRA_WORDS for item in items
    ):
        # Prose: its other phrases explain around the items it names; they are not items of its own.
        return _verdict(True, f"holds {what} in prose; missing {', '.join(missing)}")
    gold_words = {w for part in parts for w in elements(part).words}
    extra = [item for item in items if _outside(elements(item), gold_words, asked)]
    if extra:
        return _verdict(False, f"holds {what}, and also {', '.join(extra)}, which the gold does not hold")
    return _verdict(True, f"holds {what} and nothing outside the gold; missing {', '.join(missing)}")


def _without_reason(gold: str) -> str:
    """The gold less a reason it gives after its answer ("Hairless cats or pigs, since they don't have
    fur": the reason explains the answer, it is not a part of it); the whole gold when the reason is
    all it says ("Because of their inclusivity")."""
    answer = _REASON.split(gold, maxsplit=1)[0]
    return answer if elements(answer).size else gold


def gold_parts(text: str, *, always: bool = False) -> list[str]:
    """The parts of a multi-part text: pieces apart by commas, semicolons, "and" or "or", each with a
    content element; one part when it has no comma or semicolon (a phrase joined by "and" alone is a
    part list only with ``always``)."""
    if not always and not re.search(r"[,;]|\band\b", text):
        return [text]
    parts = [part.strip(" .") for part in _PART_SPLIT.split(text.strip(" ."))]
    return [part for part in parts if elements(part).size] or [text]


def _size(item: Elements, asked: Elements | None) -> int:
    """The content words of an answer item that are not question words."""
    return len([w for w in item.words if asked is None or w not in set(asked.words)])


def _outside(item: Elements, gold_words: set[str], asked: Elements | None) -> bool:
    """Whether a list answer's item has a content word and none of its words is a gold word or a
    question word: an item the gold does not hold."""
    words = [w for w in item.words if asked is None or w not in set(asked.words)]
    return bool(words) and not any(same_family(w, g) for w in words for g in gold_words)


def _part_held(part: Elements, response: Elements) -> bool:
    if part.size == 0:
        return True
    found = match(part, response)
    if found.key_missing:
        return False
    words = len(part.words)
    return not words or (words - len(found.missing_words)) / words >= ITEM
