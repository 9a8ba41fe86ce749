"""BEAM's LLM-free ``rule`` judge: each rubric item decided by a documented string rule, or undecided.

Built on :mod:`memsuite.eval.answer_rules` (normalisation, numbers and dates in any form, refusals, the
final stated answer). A rubric item reads "LLM response should state / mention / contain /
include: X" or is a bare X (event ordering's items); each item is decided as follows.

- **Abstention** (the question has no answer): every item passes when the final answer declines (a
  ``refusals`` phrase) and invents nothing -- it states no number, date, version or name the question
  does not hold; otherwise every item fails (it answers what cannot be answered).
- **Declining an answerable question** fails every item.
- **Format items** (instruction and preference following), only where a rule below decides them:
  - code: an item asking for code blocks, code snippets or syntax highlighting passes when the answer
    holds a fenced block (three backticks); with "syntax highlighting" the fence must name a language
    (```python); else it fails;
  - versions: an item asking for version numbers or version details passes when the answer lists
    libraries (list lines or ``name==1.2`` lines) and every such line holds a version number after its
    name; it fails when a listed line has none, or the answer holds no version number at all; it is
    undecided when the answer has versions but no list to check them against;
  - every other instruction or preference item is undecided (``None``, "no documented rule decides
    this item"): whether an answer is "lightweight" or "pragmatic" needs a reader.
- **Contradiction**: an item saying there is contradictory information passes when the answer says so
  (one of :data:`CONTRADICTION_MARKERS`), else fails.
- **Content items** (every other "state / mention / contain: X", and bare items): the item passes when
  the answer holds X's content -- every content word, number and date of X (:func:`~memsuite.eval.
  answer_rules.text.match`), with numbers, dates, versions (``v0.6.2``, ``3.11``) and names
  (identifiers such as ``Flask-Login``, ``pbkdf2:sha256``, ``UUID``; capitalised words inside a sentence)
  matched exactly. It fails when a number, date, version or name of X is missing, or when the answer
  holds under half of X's elements; otherwise (most of X, some words missing) it is undecided: a
  paraphrase or a missing part needs a reader.

The verdict: ``items`` (each with ``passed``: True / False / None and its reason), ``score`` the mean over
decided items (None when none is decided), ``coverage`` the share of items decided, and ``correct``:
False when any item fails, True when every item passes, else None (``undecided``).
"""

from __future__ import annotations

import re
from typing import Any

from memsuite.eval.answer_rules.lists import fold
from memsuite.eval.answer_rules.responses import final_answer, refusal
from memsuite.eval.answer_rules.text import elements, match
from memsuite.eval.answer_rules.verdict import rule_verdict
from memsuite.eval.benchmarks.beam.schema import BeamQuestion

#: Below this share of X's elements the answer holds only a part of it (fails).
PART = 0.5
#: Phrases (folded) by which an answer says two statements disagree.
CONTRADICTION_MARKERS = (
    "contradict",
    "conflict",
    "inconsisten",
    "discrepanc",
    "mixed information",
    "two different",
    "clarify which",
    "which is correct",
    "which one is correct",
)
_ITEM = re.compile(
    r"^\s*llm response should\s+(?:\w+\s+){0,2}?(state|mention|contain|include)\s*:\s*(.*)$", re.I | re.S
)
_VERSION = re.compile(r"(?<![\w.])v?(\d+(?:\.\d+){1,3})(?![\w.]*\d)", re.I)
_FENCE = re.compile(r"^[ \t]*```[ \t]*([\w+#.-]*)", re.M)
_LIST_LINE = re.compile(r"^\s*(?:[-*+\u2022]|\d+[.)])\s+(.*\S)", re.M)
_PINNED = re.compile(r"^\s*[A-Za-z][\w.-]*\s*(?:==|>=|<=|~=|@)\s*\S+", re.M)
_TOKEN = re.compile(r"[A-Za-z0-9][\w.:+#/-]*[A-Za-z0-9+#]|[A-Za-z0-9]")
_FORMAT_ABILITIES = ("instruction_following", "preference_following")


def parse_item(item: str) -> tuple[str, str]:
    """``(verb, X)`` of a rubric item; a bare item is ``("state", item)``."""
    found = _ITEM.match(item)
    return (found.group(1).lower(), found.group(2).strip()) if found else ("state", item.strip())


def versions(text: str) -> set[str]:
    """Version numbers in ``text`` (``v0.6.2`` and ``0.6.2`` are one), dotted numbers of 2 to 4 parts."""
    return {m.group(1) for m in _VERSION.finditer(text)}


def names(text: str) -> set[str]:
    """Names in ``text``, lower-cased: identifiers (an inner capital, digit, dot, colon, hyphen or
    underscore: ``Flask-Login``, ``pbkdf2:sha256``, ``UUID``) and capitalised words inside a sentence."""
    out = set()
    for sentence in re.split(r"(?<=[.!?:])\s+|\n+", text):
        for position, token in enumerate(_TOKEN.findall(sentence)):
            token = token.strip(".:-/")
            if not token or token.replace(".", "").isdigit() or _VERSION.fullmatch(token):
                continue
            inner = token[1:]
            identifier = (
                any(c.isupper() for c in inner)
                or (any(c.isdigit() for c in token) and any(c.isalpha() for c in token))
                or any(c in token for c in ".:_-+#/")
            )
            if token[0].isdigit():  # a quantity with its unit (250ms) is a number, matched as one
                continue
            if identifier or (position > 0 and token[0].isupper() and len(token) > 1):
                out.add(token.lower())
    return out


def _tokens(text: str) -> set[str]:
    return {t.strip(".:-/").lower() for t in _TOKEN.findall(text)}


def content_item(x: str, answer: str) -> tuple[bool | None, str]:
    """Whether ``answer`` holds the content of ``x`` (module docstring)."""
    missing_versions = sorted(versions(x) - versions(answer))
    if missing_versions:
        return False, f"version {', '.join(missing_versions)} missing"
    answer_tokens = _tokens(answer)
    missing_names = sorted(n for n in names(x) if n not in answer_tokens)
    gold = elements(x, relative=True)
    found = match(gold, elements(answer))
    if found.key_missing:
        return False, f"a number or date is missing ({found.describe()})"
    if missing_names:
        return False, f"name {', '.join(missing_names)} missing"
    if gold.size == 0:
        return None, "the item has no content element"
    if found.complete:
        return True, f"holds it ({found.describe()})"
    if found.coverage < PART:
        return False, f"holds only part of it ({found.describe()})"
    return None, f"holds most of it; a paraphrase or a part ({found.describe()})"


def code_item(x: str, answer: str) -> tuple[bool | None, str] | None:
    """The code-block rule, or None when the item is not about code."""
    text = x.lower()
    if not any(w in text for w in ("code block", "code snippet", "syntax highlight", "code example")):
        return None
    fences = _FENCE.findall(answer)
    if not fences:
        return False, "no fenced code block"
    if "highlight" in text and not any(fences[0::2]):
        return False, "fenced code without a language (no syntax highlighting)"
    return True, "a fenced code block" + (f" ({fences[0]})" if fences[0] else "")


def version_item(x: str, answer: str) -> tuple[bool | None, str] | None:
    """The version-number rule, or None when the item is not about versions."""
    if "version" not in x.lower():
        return None
    if not versions(answer):
        return False, "no version number in the answer"
    lines = _LIST_LINE.findall(answer) + [m.group(0) for m in _PINNED.finditer(answer)]
    listed = [line for line in lines if re.match(r"\W*[A-Za-z]", line)]
    if not listed:
        return None, "versions given, but no list of libraries to check each against"
    bare = [line for line in listed if not versions(line)]
    if bare:
        return False, f"{len(bare)} of {len(listed)} listed libraries without a version ({bare[0][:60]!r})"
    return True, f"every listed library ({len(listed)}) has a version"


def decide_item(question: BeamQuestion, item: str, answer: str) -> tuple[bool | None, str]:
    """One answerable question's rubric item (module docstring)."""
    verb, x = parse_item(item)
    if question.ability in _FORMAT_ABILITIES:
        for rule in (code_item, version_item):
            decided = rule(x, answer)
            if decided is not None:
                return decided
        return None, "no documented rule decides this item"
    if question.ability == "contradiction_resolution" and "contradict" in fold(x):
        found = next((m for m in CONTRADICTION_MARKERS if m in fold(answer)), None)
        return (True, f"says so ({found!r})") if found else (False, "does not point out the contradiction")
    del verb  # state, mention, contain and include ask the same of content: that the answer holds it
    return content_item(x, answer)


def invents(question: BeamQuestion, answer: str) -> str | None:
    """A number, date, version or name the answer states that the question does not hold, or None."""
    asked = elements(question.question)
    stated = elements(answer)
    numbers = [n for n in stated.numbers if n not in asked.numbers]
    if numbers:
        return f"the number {numbers[0]:g}"
    new_versions = versions(answer) - versions(question.question)
    if new_versions:
        return f"the version {sorted(new_versions)[0]}"
    new_names = names(answer) - _tokens(question.question)
    return f"the name {sorted(new_names)[0]!r}" if new_names else None


def judge_rule(question: BeamQuestion, response: str) -> dict[str, Any]:
    """The rule verdict on one response (module docstring)."""
    rubric = question.rubric
    if not response.strip():
        return _verdict([(item, False, "empty answer") for item in rubric])
    final = final_answer(response) or fold(response)
    if question.ability == "abstention":
        declined = refusal(final, states_nothing=True)
        if not declined:
            outcome = (False, "answers a question the conversation cannot answer")
        else:
            invented = invents(question, response)
            outcome = (
                (False, f"declines but states {invented}") if invented else (True, f"declines ({declined!r})")
            )
        return _verdict([(item, *outcome) for item in rubric])
    declined = refusal(final, states_nothing=True)
    if declined and question.ability not in _FORMAT_ABILITIES:
        found = [content_item(parse_item(i)[1], response)[0] for i in rubric]
        if not any(found):
            return _verdict(
                [(item, False, f"declines an answerable question ({declined!r})") for item in rubric]
            )
    return _verdict([(item, *decide_item(question, item, response)) for item in rubric])


def _verdict(items: list[tuple[str, bool | None, str]]) -> dict[str, Any]:
    decided = [passed for _, passed, _ in items if passed is not None]
    listed = [{"item": item, "passed": passed, "reason": reason[:200]} for item, passed, reason in items]
    score = sum(decided) / len(decided) if decided else None
    coverage = len(decided) / len(items) if items else 0.0
    if not items:
        verdict = rule_verdict(None, "the question has no rubric")
    elif any(p is False for p in decided):
        failed = next(i for i in listed if i["passed"] is False)
        verdict = rule_verdict(False, f"{failed['item'][:80]!r}: {failed['reason']}")
    elif len(decided) == len(items):
        verdict = rule_verdict(True, f"all {len(items)} rubric items pass")
    else:
        verdict = rule_verdict(
            None, f"{len(items) - len(decided)} of {len(items)} items undecided, none failed"
        )
    return {**verdict, "score": score, "coverage": coverage, "items": listed}
