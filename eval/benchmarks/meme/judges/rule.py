"""The deterministic MEME judge: one rule per task, offline and reproducible (MEME paper, arXiv 2605.12477).

ER is judged exactly as the paper does (normalised substring). The paper judges the other tasks with
GPT-4o against a rubric; these rules encode the same rubric with string tests, so they are stricter
about wording than an LLM would be. Their agreement with the LLM judge is measured on the same rows
(:func:`memsuite.eval.analysis.metrics.judge_agreement`).

Matching is on normalised text: Unicode NFKC, lower case, typographic quotes and dashes folded,
whitespace collapsed. For ER (the paper's test) and Tr's order, a value "is present" when its
normalised form is a substring of the normalised answer; elsewhere a value is present by
:func:`memsuite.eval.benchmarks.meme.matching.value_present` (verbatim, the same words hyphenated or spaced
differently, or -- for descriptive values only -- every content word within one line), the rule the
evidence verdict uses. ``old_value`` is the value before the change (Cas, Abs) or the deleted value
(Del): :func:`memsuite.eval.benchmarks.meme.release.old_value_of`, which is right on released Cascade
questions too, whose ``entity_values`` hold only the new value.

The marker lists (declines, doubt, hedge) are data, ``eval/benchmarks/meme/data/answer_markers.json``,
matched as substrings of the normalised answer.

Rules:
    ER    the gold value is present.
    Agg   every target value is present.
    Tr    every value is present and their first occurrences are in chronological order.
    Cas   the new value is present; the old value is absent; no hedge or future tense ("will be",
          "not sure", "don't know", "either", ...).
    Abs   the old value stated as current fails first, whatever else the answer says (it may appear
          only framed as past: "previously 'X'", "it was X"); then the answer passes when it
          expresses uncertainty or acknowledges the upstream change (e.g. "uncertain", "may have
          changed", "no longer"; a negated "has not changed" is none), or says it lacks the
          information.
    Del   the answer says it has no such information and does not reveal the deleted value.
    before-phase questions (ER, Del, Cas, Abs before the change): the expected value is present.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from memsuite.eval.benchmarks.meme.matching import contains, normalize, value_present

TASKS = ("ER", "Agg", "Tr", "Del", "Cas", "Abs")

#: The judge's marker lists (data: ``eval/benchmarks/meme/data/answer_markers.json``).
MARKERS_PATH = Path(__file__).parent.parent / "data" / "answer_markers.json"
MARKER_LISTS = ("declines", "doubt", "hedge")

#: Abs: words right before the old value that frame it as past ("previously 'Quellport'", "it was ...").
_PAST = re.compile(
    r"\b(previously|formerly|originally|used to be|used to|was|were|had been|were going to|was going to"
    r"|before)\b[\s'\":,]*$"
)
#: Abs: a negated change is no uncertainty ("it has not changed").
_NOT_CHANGED = re.compile(r"\b(not|never|n't|hasn't|haven't|wasn't)\s+(been\s+)?changed\b|\bunchanged\b")


@dataclass(frozen=True)
class Verdict:
    """A judge's decision on one answer."""

    correct: bool | None
    """True/False, or None when the judge itself failed (counted, never a crash)."""
    reason: str
    """Why, in one line."""
    judge: str = "rule"

    def to_dict(self) -> dict[str, object]:
        return {"correct": self.correct, "reason": self.reason, "judge": self.judge}


@cache
def markers(path: Path = MARKERS_PATH) -> dict[str, tuple[str, ...]]:
    """The judge's marker lists of ``path`` (normalised), read once per path.

    Raises:
        ValueError: A list of :data:`MARKER_LISTS` is missing, empty or holds a blank (the message
            names the file and the list).
    """
    data = json.loads(path.read_text(encoding="utf-8"))
    out = {}
    for name in MARKER_LISTS:
        found = data.get(name) if isinstance(data, dict) else None
        blank = not isinstance(found, list) or not all(isinstance(m, str) and m.strip() for m in found)
        if blank or not found:
            raise ValueError(f"{path}: '{name}' must be a non-empty list of non-empty strings")
        out[name] = tuple(normalize(m) for m in found)
    return out


def _stated_as_current(answer: str, value: str) -> bool:
    """Whether ``value`` occurs in ``answer`` at least once without a past framing just before it."""
    text, needle = normalize(answer), normalize(value)
    starts = [m.start() for m in re.finditer(re.escape(needle), text)] if needle else []
    return any(not _PAST.search(text[max(0, i - 24) : i]) for i in starts)


def _any(answer: str, phrases: Sequence[str]) -> str | None:
    text = normalize(answer)
    return next((p for p in phrases if p in text), None)


def judge_rule(
    task: str,
    answer: str,
    gold: str,
    *,
    phase: str = "after",
    values: Sequence[str] = (),
    old_value: str | None = None,
) -> Verdict:
    """Judge one MEME answer by the rules in the module docstring.

    Args:
        task: Short task code (ER, Agg, Tr, Del, Cas, Abs).
        answer: The answer LLM's text.
        gold: The gold answer string.
        phase: "before" or "after" the upstream change.
        values: Agg: the target values; Tr: the values in chronological order. Default: ``gold`` split
            on commas.
        old_value: Cas/Abs: the value before the change; Del: the deleted value.

    Returns:
        The verdict with its reason.
    """
    if task not in TASKS:
        raise ValueError(f"unknown MEME task {task!r}; expected one of {TASKS}")
    if task == "ER":
        ok = contains(answer, gold)
        return Verdict(ok, "expected value present" if ok else "expected value missing")
    if phase == "before":
        ok = value_present(answer, gold)
        return Verdict(ok, "expected value present" if ok else "expected value missing")
    values = list(values) or [v.strip() for v in gold.split(",") if v.strip()]
    if task == "Agg":
        missing = [v for v in values if not value_present(answer, v)]
        return Verdict(not missing, "all values present" if not missing else f"missing {missing}")
    if task == "Tr":
        text = normalize(answer)
        positions = [text.find(normalize(v)) for v in values]
        if any(p < 0 for p in positions):
            return Verdict(False, f"missing {[v for v, p in zip(values, positions, strict=True) if p < 0]}")
        ordered = positions == sorted(positions)
        return Verdict(ordered, "all values in order" if ordered else "values out of chronological order")
    if task == "Cas":
        if not value_present(answer, gold):
            return Verdict(False, "new value missing")
        if old_value and value_present(answer, old_value) and not value_present(gold, old_value):
            return Verdict(False, "old value also stated")
        hedge = _any(answer, markers()["hedge"])
        return Verdict(
            hedge is None, "new value stated definitively" if hedge is None else f"hedged ({hedge!r})"
        )
    if task == "Abs":
        # The stale value first: "Quellport, it has not changed" names a marker word but answers with
        # the old value as current. Only the old value framed as past ("previously 'Quellport'", as
        # the gold says it) may stand beside an uncertainty marker.
        if old_value and _stated_as_current(answer, old_value):
            return Verdict(False, "old value stated as current")
        marker = _any(_NOT_CHANGED.sub(" ", normalize(answer)), markers()["doubt"])
        if marker:
            return Verdict(True, f"uncertainty acknowledged ({marker!r})")
        no_info = _any(answer, markers()["declines"])
        return Verdict(
            no_info is not None, "declines without the stale value" if no_info else "no uncertainty expressed"
        )
    # Del
    if old_value and value_present(answer, old_value):
        return Verdict(False, "deleted value revealed")
    no_info = _any(answer, markers()["declines"])
    return Verdict(no_info is not None, "says it has no such information" if no_info else "does not decline")
