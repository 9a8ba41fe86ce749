"""LoCoMo's LLM-free ``rule`` judge: the J prompt of the published comparisons (:mod:`.llm`) and
LoCoMo's own category-5 rule, as string rules.

Each rule restates the official rubric; nothing here was fitted to graded answers. The answer's final
stated answer is judged (:func:`memsuite.eval.answer_rules.responses.final_answer`), its elements
matched against the gold's (:mod:`memsuite.eval.answer_rules.text`: case, punctuation, articles,
number words, dates in any format, relative periods such as "the week before 9 June 2023").

- categories 1-4 (the J prompt: "grade generously ... as long as it touches on the same topic as the
  gold answer it is CORRECT"; "for time questions ... the same date or time period ... even if the
  format differs"): yes when the answer holds every content element of the gold, or at least half of
  its words with every number and date of the gold (it touches the same topic); no when a number or
  date of the gold is missing (another date is another period), when it declines, or when it holds none
  of the gold's words; otherwise (some but under half of the words) undecided;
- category 5 (adversarial): its own rule, :func:`.adversarial.judge_adversarial` (yes when the
  answer abstains and asserts neither the trap nor another answer to the premise).

Undecided is ``correct: None`` with ``undecided`` saying why: counted apart, never true or false.
"""

from __future__ import annotations

from typing import Any

from memsuite.eval.answer_rules.responses import final_answer, refusal
from memsuite.eval.answer_rules.text import elements, match
from memsuite.eval.answer_rules.verdict import rule_verdict as _verdict
from memsuite.eval.benchmarks.locomo.judges.adversarial import judge_adversarial
from memsuite.eval.benchmarks.locomo.schema import ADVERSARIAL

#: At this share of the gold's words (numbers and dates all present) the answer touches its topic.
TOPIC = 0.5


def judge_rule(
    category: int, gold: str | None, answer: str, *, adversarial_answer: str | None = None, question: str = ""
) -> dict[str, Any]:
    """The rule verdict on one answer (module docstring); ``gold`` is None for category 5, whose trap
    (``adversarial_answer``) and ``question`` its rule reads."""
    if category == ADVERSARIAL:  # category 5: its own rule (.adversarial)
        return judge_adversarial(answer, adversarial_answer, question)
    if not answer.strip():
        return _verdict(False, "empty answer")
    final = final_answer(answer)
    if final is None:
        return _verdict(False, "reasons step by step without stating a final answer")
    if gold is None or not str(gold).strip():
        return _verdict(None, "no gold answer")
    wanted = elements(str(gold), relative=True)
    if wanted.size == 0:
        return _verdict(None, "the gold answer has no content element")
    found = match(wanted, elements(final))
    if found.complete:
        return _verdict(True, f"holds the gold ({found.describe()})")
    if found.key_missing:
        return _verdict(False, f"a number or date of the gold is missing ({found.describe()})")
    words = len(wanted.words)
    held = words - len(found.missing_words)
    if held / words >= TOPIC:
        return _verdict(True, f"touches the gold's topic ({found.describe()})")
    declined = refusal(final, states_nothing=held == 0)
    if declined:
        return _verdict(False, f"declines an answerable question ({declined!r})")
    if held == 0:
        return _verdict(False, f"holds none of the gold's words ({found.describe()})")
    return _verdict(None, f"holds a few of the gold's words; the same topic or not ({found.describe()})")
