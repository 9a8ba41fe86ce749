"""Recognisers for what MEME evidence states: deletion requests, change events, dependencies, doubt.

The phrase lists are data (``data/phrases.json``, loaded once), so widening them needs no code. Each
list is matched case-insensitively on normalised text
(:func:`memsuite.eval.benchmarks.meme.judges.rule.normalize`):

``deletion``
    A request to forget a fact, or the record that it was forgotten, in any person and as verb or
    noun: "please forget", "drop that from memory", "don't keep", "scrap", "no longer want you to
    remember", "User asked to remove the staging URL", "deletion request", "removed at the user's
    request".
``change``
    A change event, verb or noun: "changed to", "switched to", "moved to", "is now", "replaced ...
    with", "migrated", "now uses", "updated to", "Lead changed to Dana Park", "X was swapped for Y".
``conditional``
    Markers of a hypothetical, a future or a stated rule ("if", "whenever", "once", "the day",
    "should", "would"/"'d", "will", "ought to", "depends on", ...): a sentence that holds one is never
    a change event, so "if the car changes, the mechanic will be X" or "once the car is different,
    move the mechanic to X" (Cascade rules) do not count as the car having changed.
``dependency``
    A dependency statement: "depends on", "relies on", "is tied to", "derived from", "built on",
    "follows", "if ... changes".
``uncertainty``
    A stated doubt about a value: "uncertain", "not sure", "may have changed", "to be confirmed"; not
    when the words before it settle it ("no longer undecided", "was up in the air").
``negation`` and ``retention``
    A negation ("don't", "no longer", "no need to", ...) followed within three words by a retention
    verb ("keep", "retain", "store", "hold on to", ...) is a deletion request too, whatever its verb
    of removal: "no need to keep it on file", "I no longer retain your work schedule".

Phrase syntax: words separated by single spaces; a word ending in ``*`` matches any word starting
with it ("remov*": remove, removed, removal); ``...`` stands for up to six words ("drop ... from
memory"). A phrase matches whole words only ("forget" is not in "forgetting"), but a content word
(three letters or more, not a function word) also matches its inflections: the regular ones ("wipe":
wipes, wiped, wiping; "scrap": scrapped; "bury": buried), or, for a verb in the file's
``irregular_verbs`` table, exactly the forms listed there ("strike ... from" matches "struck from",
"get rid of" "got rid of"; "forget" lists no "forgetting", which is rarely a request).

Scope. A recogniser fires for a *sentence* (a line cut at ``.``, ``!``, ``?`` or ``;`` followed by a
space) that also names the entity or holds the value -- one of ``keys``, matched by
:func:`memsuite.eval.benchmarks.meme.matching.line_holds` -- or that leans on a sentence that does:

- it refers back with "it", "that", "this", "those" or "them" to the sentence before ("My staging
  URL is X. Please drop that from memory.");
- it is elliptical (at most :data:`ELLIPSIS_WORDS` words) and stands next to such a sentence in the
  same line, before or after it ("Purged. Nothing about the work schedule is left.").

A longer sentence that names nothing never borrows its neighbour's scope, so "Our build cache is
Stashly. Please forget the staging URL." is no deletion request on the build cache.

Relations. :func:`dependency_stated` also takes ``related`` keys (the upstream entity's names and
values): a sentence that names the entity (or refers back to one of its line that does) *and* the upstream
entity states a relation between them, however it is worded ("the monitoring agent and the
orchestrator go hand in hand"), since MEME dialogue and memories name two entities in one sentence
only to link them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from functools import cache
from pathlib import Path

from memsuite.eval.benchmarks.meme.matching import line_holds, normalize

#: The phrase lists' file.
PHRASES_PATH = Path(__file__).with_name("data") / "phrases.json"
#: The lists the file must hold (see the module docstring for what each means).
KINDS = ("deletion", "change", "conditional", "dependency", "uncertainty", "negation", "retention")
#: A sentence of at most this many words may lean on the sentence next to it for its scope.
ELLIPSIS_WORDS = 4
#: Words never inflected (function words: "is" must not grow into "iss").
_FUNCTION_WORDS = (
    "a an the of and or with for to in on at by via per from is are was were be been it its not no now any "
    "all off out up as so do does did don't doesn't didn't has have had can"
)
_UNINFLECTED = frozenset(_FUNCTION_WORDS.split())

_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+")
_ANAPHOR = re.compile(r"\b(it|that|this|those|them)\b")
_GAP = r"\s+(?:\S+\s+){0,6}?"


def inflections(word: str, irregular: dict[str, tuple[str, ...]] | None = None) -> list[str]:
    """``word`` and its inflected forms: the forms ``irregular`` lists for it, else the regular
    -s/-es/-ed/-ing (e dropped, final consonant doubled, y to i); function words and short words stay."""
    if len(word) < 3 or word in _UNINFLECTED or not word.isalpha():
        return [word]
    if irregular and word in irregular:  # the table lists every form of its verbs
        return [word, *irregular[word]]
    forms = [word, word + "s", word + "es", word + "ed", word + "ing"]
    if word.endswith("e"):
        forms += [word + "d", word[:-1] + "ing"]
    if word.endswith("y") and word[-2] not in "aeiou":
        forms += [word[:-1] + "ies", word[:-1] + "ied"]
    if word[-1] not in "aeiouwxy" and word[-2] in "aeiou" and word[-3] not in "aeiou":
        forms += [word + word[-1] + "ed", word + word[-1] + "ing"]  # scrap: scrapped, scrapping
    return list(dict.fromkeys(forms))


def _word(word: str, irregular: dict[str, tuple[str, ...]]) -> str:
    if word.endswith("*"):
        return re.escape(word[:-1]) + r"[\w'-]*"
    forms = sorted(inflections(word, irregular), key=len, reverse=True)
    return "(?:" + "|".join(re.escape(f) for f in forms) + ")" if len(forms) > 1 else re.escape(word)


def _compile(phrase: str, irregular: dict[str, tuple[str, ...]]) -> re.Pattern[str]:
    text = normalize(phrase)
    parts = [r"\s+".join(_word(w, irregular) for w in segment.split()) for segment in text.split(" ... ")]
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
    table = data.get("irregular_verbs", {}) if isinstance(data, dict) else None
    if not isinstance(table, dict) or not all(
        isinstance(forms, list) and all(isinstance(f, str) and f for f in forms) for forms in table.values()
    ):
        raise ValueError(f"{path}: 'irregular_verbs' must map a verb to a list of its irregular forms")
    irregular = {normalize(verb): tuple(normalize(f) for f in forms) for verb, forms in table.items()}
    out = {}
    for kind in KINDS:
        phrases = data.get(kind) if isinstance(data, dict) else None
        if not isinstance(phrases, list) or not all(isinstance(p, str) and p.strip() for p in phrases):
            raise ValueError(f"{path}: '{kind}' must be a list of non-empty strings")
        out[kind] = tuple((p, _compile(p, irregular)) for p in phrases)
    return out


#: Words right before a doubt marker that settle it: "no longer undecided", "was up in the air".
_SETTLED = re.compile(r"(?:\bno longer|\bnot|n't|\bnever|\bno more|\bwas|\bwere)\s+(?:\S+\s+)?$")
_NEAR = r"\s+(?:\S+\s+){0,3}?"


@cache
def _negated_retention() -> re.Pattern[str]:
    """A negation followed, within three words, by a retention verb: "no need to keep", "I no longer
    retain", "don't hold on to" (lists ``negation`` and ``retention``)."""
    lists = phrase_lists()
    negation = "|".join(p.pattern for _, p in lists["negation"])
    retention = "|".join(p.pattern for _, p in lists["retention"])
    return re.compile(f"(?:{negation}){_NEAR}(?:{retention})")


def _doubts(norm: str) -> list[tuple[str, bool]]:
    """Every doubt phrase in ``norm``, with whether the words before it settle it."""
    out = []
    for phrase, pattern in phrase_lists()["uncertainty"]:
        for match in pattern.finditer(norm):
            out.append((phrase, _SETTLED.search(norm[: match.start()]) is not None))
    return out


def phrase_in(kind: str, text: str) -> str | None:
    """The first phrase of list ``kind`` found in ``text``, or None.

    Beyond the list: a ``change`` is never in a conditional, nor in a settled doubt ("is no longer
    undecided" reports a decision, not a change); an ``uncertainty`` phrase does not count when the
    words before it settle it ("no longer undecided", "was up in the air"); a ``deletion`` is also a
    negated retention verb (:func:`_negated_retention`).
    """
    norm = normalize(text)
    lists = phrase_lists()
    if kind not in lists:
        raise ValueError(f"unknown phrase list {kind!r}; expected one of {KINDS}")
    if kind == "change" and (
        any(p.search(norm) for _, p in lists["conditional"]) or any(settled for _, settled in _doubts(norm))
    ):
        return None
    if kind == "uncertainty":
        return next((phrase for phrase, settled in _doubts(norm) if not settled), None)
    found = next((phrase for phrase, pattern in lists[kind] if pattern.search(norm)), None)
    if found is None and kind == "deletion" and _negated_retention().search(norm):
        return "(negated retention)"
    return found


def _split(line: str) -> list[str]:
    return [s for s in _SENTENCE_END.split(line.strip()) if s.strip()]


def sentences(text: str) -> list[str]:
    """The sentences of ``text``: each non-blank line cut after ``.``/``!``/``?``/``;`` and a space."""
    return [s for line in text.splitlines() for s in _split(line)]


def _scoped(text: str, keys: list[str], *, lean: bool) -> Iterator[str]:
    """The sentences of ``text`` in the scope of ``keys``: naming one, or referring back by a pronoun
    to the sentence before that does. ``lean``: the pronoun may reach into the previous line, and an
    elliptical sentence may lean on its neighbour in the line; otherwise a pronoun stays in its line."""
    previous_in_scope = False
    for line in text.splitlines():
        parts = _split(line)
        named = [any(line_holds(s, k) for k in keys) for s in parts]
        if not lean:
            previous_in_scope = False
        for i, sentence in enumerate(parts):
            refers = previous_in_scope and _ANAPHOR.search(normalize(sentence)) is not None
            beside = (i > 0 and named[i - 1]) or (i + 1 < len(parts) and named[i + 1])
            elliptical = lean and beside and len(sentence.split()) <= ELLIPSIS_WORDS
            if named[i] or refers or elliptical:
                yield sentence
            previous_in_scope = named[i]


def sentences_about(text: str, keys: Iterable[str]) -> list[str]:
    """Sentences in the scope of ``keys``: naming one, or leaning on one that does (module docstring)."""
    return list(_scoped(text, [k for k in keys if k and normalize(k)], lean=True))


def stated(kind: str, text: str, keys: Iterable[str]) -> str | None:
    """The first sentence of ``text`` in the scope of ``keys`` that holds a ``kind`` phrase, or None."""
    return next((s for s in sentences_about(text, keys) if phrase_in(kind, s)), None)


def linked(text: str, keys: Iterable[str], related: Iterable[str]) -> str | None:
    """The first sentence of ``text`` that names one of ``keys`` (or refers back to one that does, in
    the same line) and, elsewhere in it, one of ``related``; or None ("car" inside "car insurer" is
    the entity, not its upstream car)."""
    keys = sorted((k for k in keys if k and normalize(k)), key=len, reverse=True)
    related = [r for r in related if r and normalize(r)]
    for sentence in _scoped(text, keys, lean=False):
        rest = normalize(sentence)
        for k in keys:
            rest = rest.replace(normalize(k), " ")
        if any(line_holds(rest, r) for r in related):
            return sentence
    return None


def deletion_requested(text: str, keys: Iterable[str]) -> str | None:
    """The sentence asking to forget (or recording the forgetting of) the entity or value, or None."""
    return stated("deletion", text, keys)


def change_stated(text: str, keys: Iterable[str]) -> str | None:
    """The sentence stating that the entity changed (not a rule or a hypothetical), or None."""
    return stated("change", text, keys)


def dependency_stated(text: str, keys: Iterable[str], related: Iterable[str] = ()) -> str | None:
    """The sentence stating a dependency of the entity (a dependency phrase, or naming ``related``)."""
    return stated("dependency", text, keys) or linked(text, keys, related)


def uncertainty_stated(text: str, keys: Iterable[str]) -> str | None:
    """The sentence stating a doubt about the entity's value, or None."""
    return stated("uncertainty", text, keys)
