"""LoCoMo's category 5 (adversarial): the rule that scores an answer, and the multiple-choice format.

A category-5 question asks about something the conversation never says (usually a fact of one
speaker asked about the other); the right answer is that the conversation does not tell. Each item
carries ``adversarial_answer``, the trap: what a reader who confuses the speakers would say.

Open format (:func:`judge_adversarial`, LLM-free): the answer passes when it abstains (a ``refusals``
phrase of :mod:`memsuite.eval.answer_rules`, or LoCoMo's own "not mentioned" / "no information
available") and asserts nothing in place of the missing fact. Its final stated answer is cut into
clauses (sentences, their comma-separated parts, and the parts a contrast such as "but",
"however", "though" joins); a clause
holding a refusal is the abstention, any other clause is something the answer states. It fails when

- it does not abstain (it answers a question the conversation does not answer);
- a clause outside the abstention holds the trap: its words that the question does not already hold,
  all of them or at least half (every number and date among them); the trap named inside the
  refusal ("there is no mention of a necklace") is not asserted;
- a clause outside the abstention hedges or contrasts ("probably", "I think", "but ...") and states
  content the question does not hold: another answer to the premise, given anyway.

A clause outside the abstention that states new content without hedging ("Not mentioned. She adopted
a beagle.") is undecided (``correct: None`` with ``undecided``): whether it answers the premise or
explains the refusal is not a string question. A clause whose only new words are courtesy or talk
about the conversation itself (``_COURTESY``: "sorry", "the context provided", ...) states nothing.
Besides the shared refusal list, "does not say" and its kin count as abstaining (``_ABSTAINS``).

Choice format (:func:`choice_options`, :func:`chosen_option`): the options are the trap, distractors
drawn from the gold answers of the conversation's other questions (seeded by run seed, conversation
and question, so reruns ask the same), and "Not mentioned in the conversation", in a seeded order,
lettered (a), (b), ...; the answer is scored by the option it chooses (right only for "not
mentioned"). A reply naming no option is judged by the open rule.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from typing import Any

from memsuite.eval.answer_rules.lists import fold
from memsuite.eval.answer_rules.responses import final_answer, refusal
from memsuite.eval.answer_rules.text import Elements, elements, match
from memsuite.eval.answer_rules.verdict import rule_verdict as _verdict
from memsuite.eval.retrieval_qa.category_f1 import ABSTENTION_PHRASES

NOT_MENTIONED = "Not mentioned in the conversation"
#: Options besides the trap and "not mentioned" in the choice format (four options, A-D, as the
#: audit's multiple-choice description has them).
DISTRACTORS = 2
#: At this share of the trap's own words (numbers and dates all present) a clause states the trap.
TRAP_SHARE = 0.5

_CLAUSE = re.compile(r"\s*,?\s*\b(but|however|although|though|yet|instead|rather)\b\s*,?\s*|[.!?;,]+\s*")
_HEDGES = (
    "probably", "likely", "maybe", "perhaps", "possibly", "presumably", "might", "may have", "could be",
    "could have", "i think", "i believe", "i guess", "i assume", "it seems", "seems", "appears",
    "suggests", "implies", "my guess", "best guess", "if i had to",
)  # fmt: skip
_ABSTAINS = (
    "does not say", "doesn't say", "did not say", "didn't say", "never says", "never said", "not told",
    "never talked", "never discussed", "did not talk", "didn't talk", "never came up", "not come up",
)  # fmt: skip
_COURTESY = (
    "sorry apologies apologize unfortunately afraid help anything else know question ask asked context "
    "conversation conversations information details detail memory memories provided available based "
    "given mentioned say says said specific"
)
_LETTER = re.compile(r"^(?:\(([a-z])\)|([a-z])(?:[.):]|$))")


def _declines(clause: str) -> str | None:
    official = next((p for p in (*ABSTENTION_PHRASES, *_ABSTAINS) if p in clause), None)
    return refusal(clause, states_nothing=True) or official


def _new(clause: Elements, question: Elements) -> Elements:
    """The clause's elements the question does not hold."""
    return Elements(
        tuple(w for w in clause.words if w not in set(question.words)),
        tuple(n for n in clause.numbers if n not in set(question.numbers)),
        tuple(d for d in clause.dates if all(d.value != q.value for q in question.dates)),
    )


def _states_trap(trap: Elements, text: Elements) -> bool:
    if trap.size == 0:
        return False
    found = match(trap, text)
    if found.complete:
        return True
    words = len(trap.words)
    return bool(words) and not found.key_missing and (words - len(found.missing_words)) / words >= TRAP_SHARE


def _clauses(text: str) -> list[tuple[str, bool]]:
    """``(clause, follows a contrast)`` in order."""
    out, contrast, cursor = [], False, 0
    for found in _CLAUSE.finditer(text):
        out.append((text[cursor : found.start()].strip(), contrast))
        contrast, cursor = found.group(1) is not None, found.end()
    out.append((text[cursor:].strip(), contrast))
    return [(c, k) for c, k in out if c]


def judge_adversarial(
    answer: str, adversarial_answer: str | None, question: str = "", options: Sequence[str] | None = None
) -> dict[str, Any]:
    """The rule verdict on one category-5 answer (module docstring).

    Args:
        answer: The answer as judged (a choice reply already read as its option's text).
        adversarial_answer: The trap; None when the item has none.
        question: The question, whose words an answer may repeat without asserting anything.
        options: The choice format's options, when the question was asked that way.
    """
    if not answer.strip():
        return _verdict(False, "empty answer")
    if options:
        chosen = chosen_option(answer, options)
        if chosen is not None:
            letter = chr(ord("a") + chosen)
            if options[chosen] == NOT_MENTIONED:
                return {**_verdict(True, f"chose ({letter}) {NOT_MENTIONED!r}"), "choice": letter}
            what = "the trap" if fold(options[chosen]) == fold(adversarial_answer or "") else "a distractor"
            return {**_verdict(False, f"chose ({letter}) {options[chosen]!r}, {what}"), "choice": letter}
    final = final_answer(answer)
    if final is None:
        return _verdict(False, "reasons step by step without stating a final answer")
    clauses = _clauses(final)
    declined = [(c, d) for c, _ in clauses if (d := _declines(c))]
    asserted = [(c, contrast) for c, contrast in clauses if not _declines(c)]
    asked = elements(f"{question} {_COURTESY}")
    trap = _new(elements(adversarial_answer), asked) if adversarial_answer else Elements()
    stated = elements(" ".join(c for c, _ in asserted)) if asserted else Elements()
    if _states_trap(trap, stated):
        verb = "declines, then states" if declined else "states"
        return _verdict(False, f"{verb} the trap {adversarial_answer!r}")
    if not declined:
        return _verdict(False, "answers a question the conversation does not answer")
    phrase = declined[0][1]
    for clause, contrast in asserted:
        new = _new(elements(clause), asked)
        if new.size == 0:
            continue
        hedge = next((h for h in _HEDGES if re.search(rf"(?<![a-z]){re.escape(h)}(?![a-z])", clause)), None)
        if hedge or contrast:
            how = f"hedged with {hedge!r}" if hedge else "after a contrast"
            return _verdict(False, f"declines ({phrase!r}), then answers anyway ({how}): {clause[:120]!r}")
        return _verdict(None, f"declines ({phrase!r}) and also states {clause[:120]!r}: an answer or not")
    return _verdict(True, f"says the conversation does not tell ({phrase!r}) and asserts nothing else")


def choice_options(
    adversarial_answer: str, others: Sequence[str], *, seed: int, sample_id: str, index: int
) -> tuple[str, ...]:
    """The options of one question in the choice format, in their seeded order (module docstring).

    Args:
        adversarial_answer: The trap.
        others: Gold answers of the conversation's other questions (the distractors' pool).
        seed: The run's seed.
        sample_id: The conversation.
        index: The question's index in it.
    """
    taken = {fold(adversarial_answer), fold(NOT_MENTIONED)}
    pool = []
    for text in others:
        if text.strip() and fold(text) not in taken:
            taken.add(fold(text))
            pool.append(text.strip())
    rng = random.Random(f"locomo-choice:{seed}:{sample_id}:{index}")
    options = [adversarial_answer, *rng.sample(pool, min(DISTRACTORS, len(pool))), NOT_MENTIONED]
    rng.shuffle(options)
    return tuple(options)


def chosen_option(reply: str, options: Sequence[str]) -> int | None:
    """The index of the option a reply chooses: a letter ("c", "(C)", "c) ...", "C. ...") or an option's
    whole text; None when it names none."""
    said = fold(reply).strip(" *\"'")
    found = _LETTER.match(said)
    letter = found and (found.group(1) or found.group(2))
    if letter and ord(letter) - ord("a") < len(options):
        return ord(letter) - ord("a")
    plain = said.rstrip(".")
    texts = [fold(o).rstrip(".") for o in options]
    return texts.index(plain) if plain in texts else None
