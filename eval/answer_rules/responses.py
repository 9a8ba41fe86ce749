"""What a response states as its answer, whether it declines, and the alternatives a gold allows.

The final stated answer (:func:`final_answer`): a chain-of-thought response passes through values
it then corrects or discards, and the official judges grade what it concludes. The text after the
last final-answer marker (``final_answer_markers``: "the answer is", "therefore", "in summary", ...)
is that answer when it holds a word. A response that reasons step by step (``reasoning_markers``:
"step 1", "follow these steps", ...) without such a marker concludes in its last paragraph, which is
its final answer; a single paragraph of steps states no final answer (None): the values its steps
pass through are not answers. Any other response is its own final answer.

A refusal (:func:`refusal`): one of the ``refusals`` phrases ("not mentioned", "no information",
"cannot determine", ...) in the final answer; an ``uncertain_refusals`` phrase ("not sure") counts
only when the caller says the answer states nothing of the gold.

Polarity (:func:`polarity`): a text that opens with yes or no, after any ``polarity_hedges`` ("Likely
no", "Probably yes, since ..."), or with a hedge and "not" ("likely not"), "unlikely", or one of the
``no_openings`` ("Not really", "Not particularly").

Gold alternatives (:func:`gold_alternatives`): a gold sentence that says another answer is also
acceptable (``gold_alternative_markers``) gives that answer as an alternative.
"""

from __future__ import annotations

import re

from memsuite.eval.answer_rules.lists import fold, rule_lists

_WORD = re.compile(r"[a-z0-9]")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_PARENTHESIS = re.compile(r"\([^)]*\)")


def _phrase(text: str, phrases: tuple[str, ...]) -> str | None:
    """The first of ``phrases`` found in folded ``text`` as whole words, or None."""
    return next((p for p in phrases if re.search(rf"(?<![a-z]){re.escape(p)}(?![a-z])", text)), None)


def final_answer(response: str) -> str | None:
    """The final stated answer of ``response``, folded; None when it reasons without concluding."""
    text = fold(response)
    lists = rule_lists()
    last = -1
    for marker in lists.final_answer_markers:
        at = text.rfind(marker)
        if at >= 0:
            last = max(last, at + len(marker))
    if last >= 0 and _WORD.search(text[last:]):
        return text[last:].strip(" :,*#-\n")
    if _phrase(text, lists.reasoning_markers):
        # Steps without a conclusion marker: the last step, when the response has several paragraphs,
        # is what it concludes; a single paragraph of steps states no answer.
        paragraphs = [p for p in re.split(r"\n\s*\n", response.strip()) if _WORD.search(fold(p))]
        return fold(paragraphs[-1]).strip(" :,*#-") if len(paragraphs) > 1 else None
    return text


def refusal(answer: str, *, states_nothing: bool = False) -> str | None:
    """The first refusal phrase found in ``answer`` (folded), or None (module docstring)."""
    lists = rule_lists()
    phrases = lists.refusals + (lists.uncertain_refusals if states_nothing else ())
    return _phrase(fold(answer), phrases)


def polarity(text: str) -> bool | None:
    """True for a text that opens with yes, False for one that opens with no (module docstring), else
    None."""
    rest = fold(text).lstrip(" *\"'(")
    for _ in range(3):  # a few hedges may stack ("I think most likely no")
        hedges = rule_lists().polarity_hedges
        hedge = next((h for h in hedges if re.match(rf"{re.escape(h)}\b", rest)), None)
        if hedge is None:
            break
        rest = rest[len(hedge) :].lstrip(" ,:")
        if re.match(r"not\b", rest):
            return False
    if re.match(r"unlikely\b", rest) or _phrase_opens(rest, rule_lists().no_openings):
        return False
    found = re.match(r"(yes|no)\b(?![ -]one\b)", rest)
    return None if found is None else found.group(1) == "yes"


def _phrase_opens(text: str, phrases: tuple[str, ...]) -> bool:
    return any(re.match(rf"{re.escape(p)}(?![a-z])", text) for p in phrases)


def gold_alternatives(gold: str) -> list[str]:
    """The answers a gold allows: the gold less its also-acceptable sentences, then each of those with
    the marker and any parenthesis dropped (module docstring)."""
    markers = rule_lists().gold_alternative_markers
    main, alternatives = [], []
    for sentence in _SENTENCE_END.split(gold.strip()):
        marker = _phrase(fold(sentence), markers)
        if marker is None:
            main.append(sentence)
            continue
        alternative = re.sub(re.escape(marker), " ", _PARENTHESIS.sub(" ", fold(sentence)))
        if _WORD.search(alternative):
            alternatives.append(alternative.strip(" ."))
    first = " ".join(main).strip()
    return [first, *alternatives] if first else alternatives or [gold]
