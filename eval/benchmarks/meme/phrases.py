"""Recognisers for what MEME evidence states: deletion requests, change events, dependencies, doubt.

The phrase lists are data (``data/phrases.json``, loaded once), so widening them needs no code. Each
list is matched case-insensitively on normalised text (:func:`eval.benchmarks.meme.judges.rule.normalize`):

``deletion``
    A request to forget a fact, or the record that it was forgotten, in any person and as verb or
    noun: "please forget", "drop that from memory", "don't keep", "scrap", "no longer want you to
    remember", "User asked to remove the staging URL", "deletion request", "removed at the user's
    request".
``change``
    A change event, verb or noun: "changed to", "switched to", "moved to", "is now", "replaced ...
    with", "migrated", "now uses", "updated to", "Lead changed to Dana Park", "X was swapped for Y".
``conditional``
    Markers of a hypothetical or a stated rule ("if", "whenever", "depends on", ...): a sentence that
    holds one is never a change event, so "if the car changes, the mechanic will be X" (a Cascade
    rule) does not count as the car having changed.
``dependency``
    A dependency statement: "depends on", "relies on", "is tied to", "derived from", "built on",
    "follows", "if ... changes".
``uncertainty``
    A stated doubt about a value: "uncertain", "not sure", "may have changed", "to be confirmed".

Phrase syntax: words separated by single spaces; a word ending in ``*`` matches any word starting
with it ("remov*": remove, removed, removal); ``...`` stands for up to six words ("drop ... from
memory"). A phrase matches whole words only ("forget" is not in "forgetting").

Scope. A recogniser fires for a *sentence* (a line cut at ``.``, ``!``, ``?`` or ``;`` followed by a
space) that also names the entity or holds the value -- one of ``keys``, matched by
:func:`eval.benchmarks.meme.matching.line_holds` -- or, when the sentence refers back with "it",
"that", "this", "those" or "them", whose previous sentence does ("My staging URL is X. Please drop
that from memory.").
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from functools import cache
from pathlib import Path

from eval.benchmarks.meme.judges.rule import normalize
from eval.benchmarks.meme.matching import line_holds

#: The phrase lists' file.
PHRASES_PATH = Path(__file__).with_name("data") / "phrases.json"
#: The lists the file must hold (see the module docstring for what each means).
KINDS = ("deletion", "change", "conditional", "dependency", "uncertainty")

_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+")
_ANAPHOR = re.compile(r"\b(it|that|this|those|them)\b")
_GAP = r"\s+(?:\S+\s+){0,6}?"


def _word(word: str) -> str:
    if word.endswith("*"):
        return re.escape(word[:-1]) + r"[\w'-]*"
    return re.escape(word)


def _compile(phrase: str) -> re.Pattern[str]:
    text = normalize(phrase)
    parts = [r"\s+".join(_word(w) for w in segment.split()) for segment in text.split(" ... ")]
    body = _GAP.join(parts)
    left = r"(?<!\w)" if text[0].isalnum() else ""
    right = "" if text.endswith("*") or not text[-1].isalnum() else r"(?!\w)"
    return re.compile(left + body + right)


@cache
def phrase_lists(path: Path = PHRASES_PATH) -> dict[str, tuple[tuple[str, re.Pattern[str]], ...]]:
    """The phrase lists of ``path``, compiled once per path.

    Raises:
        ValueError: The file lacks one of :data:`KINDS`, or a list is not a list of non-empty strings
            (the message names the file and the list).
    """
    data = json.loads(path.read_text(encoding="utf-8"))
    out = {}
    for kind in KINDS:
        phrases = data.get(kind) if isinstance(data, dict) else None
        if not isinstance(phrases, list) or not all(isinstance(p, str) and p.strip() for p in phrases):
            raise ValueError(f"{path}: '{kind}' must be a list of non-empty strings")
        out[kind] = tuple((p, _compile(p)) for p in phrases)
    return out


def phrase_in(kind: str, text: str) -> str | None:
    """The first phrase of list ``kind`` found in ``text`` (a ``change`` never in a conditional), or None."""
    norm = normalize(text)
    lists = phrase_lists()
    if kind not in lists:
        raise ValueError(f"unknown phrase list {kind!r}; expected one of {KINDS}")
    if kind == "change" and any(p.search(norm) for _, p in lists["conditional"]):
        return None
    return next((phrase for phrase, pattern in lists[kind] if pattern.search(norm)), None)


def sentences(text: str) -> list[str]:
    """The sentences of ``text``: each non-blank line cut after ``.``/``!``/``?``/``;`` and a space."""
    return [s for line in text.splitlines() for s in _SENTENCE_END.split(line.strip()) if s.strip()]


def sentences_about(text: str, keys: Iterable[str]) -> list[str]:
    """Sentences that name one of ``keys`` (or refer back, by a pronoun, to the sentence before that does)."""
    keys = [k for k in keys if k and normalize(k)]
    out = []
    previous_in_scope = False
    for sentence in sentences(text):
        in_scope = any(line_holds(sentence, k) for k in keys)
        if in_scope or (previous_in_scope and _ANAPHOR.search(normalize(sentence))):
            out.append(sentence)
        previous_in_scope = in_scope
    return out


def stated(kind: str, text: str, keys: Iterable[str]) -> str | None:
    """The first sentence of ``text`` in the scope of ``keys`` that holds a ``kind`` phrase, or None."""
    return next((s for s in sentences_about(text, keys) if phrase_in(kind, s)), None)


def deletion_requested(text: str, keys: Iterable[str]) -> str | None:
    """The sentence asking to forget (or recording the forgetting of) the entity or value, or None."""
    return stated("deletion", text, keys)


def change_stated(text: str, keys: Iterable[str]) -> str | None:
    """The sentence stating that the entity changed (not a rule or a hypothetical), or None."""
    return stated("change", text, keys)


def dependency_stated(text: str, keys: Iterable[str]) -> str | None:
    """The sentence stating a dependency of the entity, or None."""
    return stated("dependency", text, keys)


def uncertainty_stated(text: str, keys: Iterable[str]) -> str | None:
    """The sentence stating a doubt about the entity's value, or None."""
    return stated("uncertainty", text, keys)
