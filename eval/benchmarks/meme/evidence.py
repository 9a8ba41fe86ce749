"""What a MEME question needs, and whether a text holds it: the LLM-free evidence rules.

Two readers share these rules: the protocol's ``evidence`` verdict on the retrieved context (does the
context handed to the answer LLM hold what the question needs?) and the failure-stage attribution
(:mod:`eval.benchmarks.meme.diagnostics`), which also applies :func:`holds_state` to the memory
snapshot at question time. Matching is the rule judge's (:func:`.judges.rule.normalize`: NFKC, lower
case, quotes and dashes folded, whitespace collapsed) followed by a substring test.

Evidence in a retrieved context, per task (before-questions: the expected value):

======  ===========================================================================================
ER      the verbatim value
Agg     every value
Tr      every value (all three, so the order can be told)
Cas     the new value (the applied fact, or the stated rule that declares it) and the upstream change
Abs     the old value with a line naming the entity (or holding the old value) that states the
        dependency ("depend") or an uncertainty, and the upstream change
Del     the deletion request (a line naming the entity, or holding the value, with "forget",
        "delete", "remove" or "erase" as a word), or no trace of the deleted value at all
======  ===========================================================================================

"The upstream change" is the root's new value (``root_change.after``) when the episode records it;
without it only the first part is required.

The state in a memory snapshot (:func:`holds_state`) is stricter for Del: the deleted value must be
gone, since a memory that still holds it has not been maintained even when it also holds the request.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from eval.benchmarks.meme.judges.rule import normalize, uncertainty_marker

#: A request to forget, as a whole word ("forgetting to tell you" is not one).
_FORGET = re.compile(r"\b(forget|delete|remove|erase)\b")


def needed_values(
    task: str, phase: str, gold: str, values: Sequence[str], old_value: str | None
) -> list[str]:
    """The values a question needs, per the module's table (the old/deleted value for Abs and Del)."""
    if phase == "before" or task in ("ER", "Cas"):
        return [str(gold)]
    if task in ("Abs", "Del"):
        old = old_value or next(iter(values or []), None)
        return [old] if old else []
    return [v for v in values if v] or [v.strip() for v in str(gold).split(",")]


def present(norm_text: str, value: str) -> bool:
    """``value`` occurs in the already normalised ``norm_text``."""
    needle = normalize(value)
    return bool(needle) and needle in norm_text


def _lines_about(text: str, value: str, names: Sequence[str]) -> list[str]:
    """Normalised lines of ``text`` that name the entity or hold ``value``."""
    keys = [k for k in (*map(normalize, names), normalize(value)) if k]
    return [line for line in map(normalize, text.splitlines()) if any(k in line for k in keys)]


def uncertainty_stated(text: str, value: str, names: Sequence[str]) -> bool:
    """A line naming the entity (or holding ``value``) states a dependency or an uncertainty."""
    return any("depend" in line or uncertainty_marker(line) for line in _lines_about(text, value, names))


def deletion_requested(text: str, value: str, names: Sequence[str]) -> bool:
    """A line naming the entity (or holding ``value``) asks to forget it."""
    return any(_FORGET.search(line) for line in _lines_about(text, value, names))


def holds_state(
    text: str,
    *,
    task: str,
    phase: str,
    values: Sequence[str],
    names: Sequence[str] = (),
    text_norm: str | None = None,
) -> tuple[bool, str]:
    """Whether a memory ``text`` holds the state the question needs, with a reason (strict for Del)."""
    text_norm = normalize(text) if text_norm is None else text_norm
    if phase == "after" and task == "Del":
        leaked = [v for v in values if present(text_norm, v)]
        return not leaked, f"deleted value still there: {leaked}" if leaked else "deleted value gone"
    missing = [v for v in values if not present(text_norm, v)]
    if missing:
        return False, f"missing {missing}"
    if phase == "after" and task == "Abs" and not uncertainty_stated(text, values[0], names):
        return False, "old value without a stated dependency or uncertainty"
    return True, "holds the needed state"


def context_holds_evidence(
    context: str,
    *,
    task: str,
    phase: str,
    values: Sequence[str],
    names: Sequence[str] = (),
    change: str | None = None,
) -> tuple[bool, str]:
    """Whether a retrieved context holds what the question needs (the module's table), with a reason."""
    norm = normalize(context)
    if phase == "after" and task == "Del":
        if deletion_requested(context, next(iter(values), ""), names):
            return True, "deletion request retrieved"
        return holds_state(context, task=task, phase=phase, values=values, names=names, text_norm=norm)
    held, reason = holds_state(context, task=task, phase=phase, values=values, names=names, text_norm=norm)
    if held and phase == "after" and task in ("Cas", "Abs") and change and not present(norm, change):
        return False, f"upstream change {change!r} missing"
    return held, "all present" if held else reason
