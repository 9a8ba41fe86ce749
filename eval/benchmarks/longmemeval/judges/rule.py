"""LongMemEval's LLM-free ``rule`` judge: the official per-type rubric (:mod:`.llm`) as string rules.

Each rule restates a sentence of the official judge prompt (LongMemEval ``evaluate_qa.py``); nothing
here was fitted to graded answers. The response's final stated answer is judged
(:func:`memsuite.eval.answer_rules.responses.final_answer`), its elements matched against the gold's
(:mod:`memsuite.eval.answer_rules.text`: case, punctuation, articles, number words, dates in any
format).

- a response that reasons step by step and never states a final answer is no (the values its steps
  pass through are not its answer);
- a question that ends with two options ("..., the charity gala or the bake sale?") is answered by the
  option the final answer names first (:mod:`memsuite.eval.answer_rules.options`): the gold's is yes,
  the other no;
- a gold that is a length of time is held in any units ("an hour and a half" = "90 minutes");
- a gold number the final answer states only as one end of a range ("2-3 weeks" for "3 weeks") is not
  held: the range hedges between counts;
- a gold that names an alternative ("7 days. 8 days (including the last day) is also acceptable.") is
  held when any alternative is;
- every type: yes when the final answer holds every content element of the gold ("contains the correct
  answer"); no when it declines an answerable question, when a number or date of the gold is missing
  (those cannot be paraphrased), or when it holds under half of the gold's words ("only a subset of the
  information"); otherwise undecided -- it holds most of the gold's words, and whether the rest is a
  paraphrase or a missing part needs a reader;
- temporal-reasoning: a count of days (the gold or the question says days) off by one in the final
  answer is accepted ("do not penalize off-by-one errors for the number of days"); weeks, months and
  other counts are not, nor a count off by one from a gold that lists its own alternative ("6 days.
  7 days (including the last day) is also acceptable": the allowance is spent);
- knowledge-update: the gold is the updated value, so containment is the rule: a previous value
  beside it is fine, a previous value alone misses the gold;
- abstention (``_abs``): yes when the final answer declines (the ``refusals`` list), else no;
- single-session-preference: the gold is a rubric of what a personalised answer does, which a string
  test cannot read: a refusal is no (it uses no personal information), anything else undecided.

Undecided is ``correct: None`` with ``undecided`` saying why: counted apart, never true or false.
"""

from __future__ import annotations

import re
from typing import Any

from memsuite.eval.answer_rules.durations import lengths, without_lengths
from memsuite.eval.answer_rules.lists import fold, rule_lists
from memsuite.eval.answer_rules.options import chosen_option, gold_option, question_options
from memsuite.eval.answer_rules.responses import final_answer, gold_alternatives, refusal
from memsuite.eval.answer_rules.text import elements, key_elements, match, stated_only_in_a_range
from memsuite.eval.answer_rules.verdict import rule_verdict as _verdict
from memsuite.eval.benchmarks.longmemeval.schema import LmeQuestion

#: Below this share of the gold's key elements the answer holds only a part of it (no); at or above
#: it, every number and date held, it holds the gold in other words (yes).
MOST = 2 / 3
#: A preference answer uses the user's details at this share of the rubric's detail words.
USES = 0.2


def _off_by_one(missing: tuple[float, ...], stated: tuple[float, ...]) -> bool:
    return bool(missing) and all(n - 1 in stated or n + 1 in stated for n in missing)


_UNIT = re.compile(r"\b(day|week|month|year|hour|minute)s?\b")
_ASKED_UNIT = re.compile(r"\bhow many (day|week|month|year|hour|minute)s?\b")


def _counts_days(gold: str, question: str) -> bool:
    """Whether the answer is a count of days (the rubric forgives off-by-one for "the number of days"
    only): the gold's unit, else the unit the question asks for ("How many weeks passed between the
    day I ..." counts weeks)."""
    unit = _UNIT.search(gold.lower()) or _ASKED_UNIT.search(question.lower())
    return unit is not None and unit.group(1) == "day"


def judge_rule(question: LmeQuestion, response: str) -> dict[str, Any]:
    """The rule verdict on one response (module docstring)."""
    if not response.strip():
        return _verdict(False, "empty answer")
    if question.question_type == "single-session-preference" and not question.abstention:
        return _preference(question, final_answer(response) or fold(response))
    final = final_answer(response)
    if final is None:
        return _verdict(False, "reasons step by step without stating a final answer")
    if question.abstention:
        declined = refusal(final, states_nothing=True)
        if declined:
            return _verdict(True, f"declines an unanswerable question ({declined!r})")
        return _verdict(False, "answers a question that cannot be answered")
    options = question_options(question.question) if not refusal(final) else None
    wanted = gold_option(options, str(question.answer), question.question) if options else None
    if options and wanted is not None:
        chosen = chosen_option(options, final, question.question)
        if chosen is not None:
            which = "the gold's" if chosen == wanted else "the other"
            return _verdict(chosen == wanted, f"chooses {options[chosen]!r}, {which} of the two options")
    golds = gold_alternatives(str(question.answer))
    # A gold that lists its alternatives ("6 days. 7 days (including the last day) is also
    # acceptable.") has spent the off-by-one allowance on them.
    allowed = {n for gold in golds for n in elements(gold).numbers}
    verdicts = [_against(question, gold, final, allowed, off_by_one=len(golds) == 1) for gold in golds]
    # The gold allows any of its alternatives: the best verdict stands (yes, then undecided, then no).
    return next((v for want in (True, None, False) for v in verdicts if v["correct"] is want), verdicts[0])


def _against(
    question: LmeQuestion, gold_text: str, final: str, allowed: set[float], *, off_by_one: bool
) -> dict[str, Any]:
    """The verdict of the final answer against one form of the gold (``allowed``: the numbers of every
    form)."""
    gold = key_elements(elements(gold_text), elements(question.question))
    if gold.size == 0:
        return _verdict(None, "the gold answer has no content element")
    found = match(gold, elements(final))
    ranged = stated_only_in_a_range(allowed, final)
    if ranged:
        return _verdict(False, f"gives a range, not the count ({ranged})")
    if found.complete:
        return _verdict(True, f"holds the gold ({found.describe()})")
    length = lengths(gold_text)
    only_length = not elements(without_lengths(gold_text)).size
    if length and only_length and length & lengths(final) and not refusal(final):
        return _verdict(True, "states the gold's length of time in other units")
    if (
        off_by_one
        and question.question_type == "temporal-reasoning"
        and _counts_days(gold_text, question.question)
        and not found.missing_words
        and not found.missing_dates
        and _off_by_one(found.missing_numbers, found.response_numbers)
    ):
        return _verdict(True, f"a count off by one, accepted for temporal questions ({found.describe()})")
    declined = refusal(final, states_nothing=found.found == 0)
    if declined:
        return _verdict(False, f"declines an answerable question ({declined!r})")
    if found.key_missing:
        return _verdict(False, f"a number or date of the gold is missing ({found.describe()})")
    if found.coverage < MOST:
        return _verdict(False, f"holds only part of the gold ({found.describe()})")
    return _verdict(True, f"holds most of the gold, every number and date of it ({found.describe()})")


def _preference(question: LmeQuestion, final: str) -> dict[str, Any]:
    """A preference rubric: its first sentences say what the user would prefer, naming the personal
    details a personalised answer uses; the answer meets it when it holds at least :data:`USES` of
    those details' words (the rubric's own wording and the question's words aside)."""
    declined = refusal(final)
    if declined:
        return _verdict(False, f"declines ({declined!r}): uses no personal information")
    wanted = re.split(r"(?<=[.!?])\s+(?=[^.!?]*\b(?:might|may|would|will) not\b)", str(question.answer))[0]
    asked = elements(question.question)
    rubric = set(rule_lists().rubric_words)
    details = [w for w in key_elements(elements(wanted), asked).words if w not in rubric]
    if not details:
        return _verdict(None, "a preference rubric naming no personal detail")
    held = [w for w in details if w in set(elements(final).words)]
    share = len(held) / len(details)
    verdict = share >= USES
    return _verdict(verdict, f"uses {len(held)} of {len(details)} personal details of the rubric")
