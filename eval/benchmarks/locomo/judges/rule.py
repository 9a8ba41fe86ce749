"""LoCoMo's LLM-free ``rule`` judge: the J prompt of the published comparisons (:mod:`.llm`) as string
rules, strict by default, and LoCoMo's category-5 rule.

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
  is held, no when one is missing;
- any other gold: yes when at least :data:`TOPIC` of its key words are held, else no.

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
from memsuite.eval.answer_rules.text import Elements, elements, match
from memsuite.eval.answer_rules.verdict import rule_verdict as _verdict
from memsuite.eval.benchmarks.locomo.judges.adversarial import judge_adversarial
from memsuite.eval.benchmarks.locomo.schema import ADVERSARIAL

#: At this share of the gold's key words (numbers and dates all present) a strict answer holds it.
TOPIC = 0.5
#: An item of a list gold is held at this share of its key words.
ITEM = 0.5
#: The leniencies of the rule judge (module docstring).
LENIENCIES = ("strict", "official")

_LIST_SPLIT = re.compile(r"\s*[,;]\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+")
#: A list gold's items are short: at most this many content words each.
_ITEM_WORDS = 4


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
    gold_elements = key_elements(elements(str(gold)), asked)
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
    items = list_items(str(gold))
    if items:
        kept = [_item_held(key_elements(elements(item), asked), response) for item in items]
        missing = [item for item, ok in zip(items, kept, strict=True) if not ok]
        if not missing:
            return _verdict(True, f"holds every item of the gold ({found.describe()})")
        enough = leniency == "official" and len(missing) * 2 <= len(items)
        what = f"{len(items) - len(missing)} of {len(items)} items; missing {', '.join(missing)}"
        return _verdict(enough, f"holds {what}")
    if held / words >= TOPIC:
        return _verdict(True, f"holds most of the gold's key words ({found.describe()})")
    if leniency == "official":
        return _verdict(True, f"touches the gold's topic ({found.describe()})")
    return _verdict(False, f"holds under {TOPIC:.0%} of the gold's key words ({found.describe()})")


def key_elements(gold: Elements, asked: Elements | None) -> Elements:
    """The gold's elements less the words the question holds (module docstring); all of them when the
    question holds every word."""
    if asked is None:
        return gold
    words = tuple(w for w in gold.words if w not in set(asked.words))
    if not words and not gold.numbers and not gold.dates:
        return gold
    return Elements(words, gold.numbers, gold.dates)


def list_items(gold: str) -> list[str]:
    """The items of a list gold (two or more short items apart by commas or semicolons), else []."""
    if not re.search(r"[,;]", gold):
        return []
    items = [item.strip(" .") for item in _LIST_SPLIT.split(gold.strip(" ."))]
    items = [item for item in items if elements(item).size]
    if len(items) < 2 or any(len(elements(item).words) > _ITEM_WORDS for item in items):
        return []
    return items


def _item_held(item: Elements, response: Elements) -> bool:
    if item.size == 0:
        return True
    found = match(item, response)
    if found.key_missing:
        return False
    words = len(item.words)
    return not words or (words - len(found.missing_words)) / words >= ITEM
