"""Verbalise MEME facts as multi-turn user/assistant dialogues (several phrasings per fact kind).

Fact kinds (:class:`FactPlan`): ``state`` (a value is introduced), ``update`` (a Tracking value
changes), ``verbatim`` (an Exact Recall value to keep word for word), ``rule`` (Cascade: "X depends
on Y; if Y changes, X will be Z"), ``dependency`` (Absence: "X depends on Y", nothing more),
``change`` (the root changes) and ``delete`` (the user asks to forget a fact, without restating it,
so the value is not planted again by the very request that removes it).

Five phrasing families (:data:`PHRASINGS`), all read through :func:`templates`:

- ``dev``: the templates below, which the evidence rules and the rule judge were written against.
- ``dev2`` (``data/dialogue_dev2.json``): the first held-out family, written after those rules were
  frozen (other verbs, noun forms, passive voice, third person, paraphrased mentions of descriptive
  values). Its misses were read to improve the rules, so it is development data now; it is kept so its
  figure stays reproducible (the same seed gives the episodes it gave under its former name ``heldout``).
- ``dev3`` (``data/dialogue_dev3.json``): the second held-out family, written blind to the rules and
  measured once; its misses were then read to correct the rules, so it is development data too, kept
  reproducible (the same seed gives the episodes it gave under its former name ``heldout``).
- ``dev4`` (``data/dialogue_dev4.json``): the third held-out family, written blind to the rules and
  measured once; its misses were then read to correct the rules, so it is development data as well, kept
  reproducible (the same seed gives the episodes it gave under its former name ``heldout``).
- ``heldout`` (``data/dialogue_heldout.json``): the fourth held-out family, written blind to the rules
  by an author who did not read the verdict code or the phrase lists, and never used by a rule or a
  test fixture. It is measured once, after the rules were frozen
  (``perf/bench_meme_phrasing.py``): whether the verdicts hold on wording they were not
  written against.

A non-dev family is a JSON table with the dev table's keys plus ``value_paraphrases`` (a descriptive
value mentioned in other words; verbatim values never). Openings, closings and lead-ins are shared.

In the dev family, every phrasing of a rule contains the clauses "depends on" and "if ... changes, ...
will be" verbatim, and every dependency phrasing "depends on" with no new value, as the paper's generator
states them explicitly (docs/benchmarks/meme.md). A change never mentions the dependents: a
Cascade question tests whether the system applies the stated rule itself.
"""

# ruff: noqa: E501 -- one phrasing per line reads better than wrapped strings.
from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache
from typing import Any

from memsuite.eval.benchmarks.meme.generator.tables import load_table
from memsuite.memory_systems.errors import ConfigError

FACT_KINDS = ("state", "update", "verbatim", "rule", "dependency", "change", "delete")
#: Phrasing families: ``dev`` (the rules' own), ``dev2``, ``dev3`` and ``dev4`` (the retired first, second and
#: third held-out families, development data now) and ``heldout`` (for measuring them). A non-dev family ``f``
#: is ``data/dialogue_<f>.json``.
PHRASINGS = ("dev", "dev2", "dev3", "dev4", "heldout")


@dataclass(frozen=True)
class FactPlan:
    """One fact to verbalise in an evidence session."""

    kind: str
    """One of :data:`FACT_KINDS`."""
    entity: str
    """Entity id the fact is about."""
    name: str
    """Entity display name (noun phrase read after "my"/"our")."""
    value: str = ""
    """state/update/verbatim: the value; rule: the declared future value; change: the new value."""
    old: str = ""
    """update/change: the previous value."""
    source: str = ""
    """rule/dependency: id of the upstream entity."""
    source_name: str = ""
    """rule/dependency: display name of the upstream entity."""
    notes: str = ""
    """Copied into the gold fact's notes."""


# Templates. Slots: {own}/{Own} the user's possessive, {your} the assistant's, {name}, {value}, {old},
# {src} (upstream entity name). Each fact kind has several user phrasings and acknowledgements.
_STATE = (
    "Quick note so you have it: {own} {name} is {value}.",
    "For the record, {own} {name} is {value}.",
    "Just so you know, {value} is {own} {name}.",
    "Can you remember something for me? {Own} {name} is {value}.",
    "Settled it today: {own} {name} is {value}.",
    "One more thing to keep track of: {own} {name} -- it's {value}.",
    "Writing this down somewhere safe: {own} {name} is {value}.",
)
_STATE_TEASE = (
    "I finally sorted out {own} {name}.",
    "We made a decision about {own} {name} this week.",
    "There's news on {own} {name}.",
    "I keep forgetting to tell you about {own} {name}.",
)
_STATE_ASK = (
    "Nice! What did you end up with?",
    "Oh good -- which one is it?",
    "Great, tell me. What is it?",
    "Happy to note it down. What's the answer?",
)
_STATE_REVEAL = (
    "It's {value}.",
    "We picked {value}. Took a while to decide.",
    "We went with {value}.",
    "The answer is {value} -- happy with it so far.",
)
_STATE_ACK = (
    "Got it: {your} {name} is {value}.",
    "Noted -- {value} for {your} {name}.",
    "Thanks, I'll remember that {your} {name} is {value}.",
    "Okay, saved: {your} {name} is {value}.",
    "Understood. {Your} {name}: {value}.",
)
_UPDATE = (
    "Change of plans: {own} {name} is now {value} instead of {old}.",
    "Heads-up -- {own} {name} switched from {old} to {value}.",
    "Update: {own} {name} changed again; it's {value} now, no longer {old}.",
    "{Own} {name} moved from {old} to {value} this week.",
    "Small correction to your notes: {own} {name} is {value} now (it was {old}).",
)
_UPDATE_ACK = (
    "Updated: {your} {name} is now {value}.",
    "Thanks, noted the switch to {value}.",
    "Got it -- {value} replaces {old} as {your} {name}.",
    "Okay, I've recorded {value} as the current {name}.",
)
_VERBATIM = (
    "Here's {own} {name} exactly as it is -- please keep it verbatim:\n{value}",
    "Can you store {own} {name} word for word? It's:\n{value}",
    "Saving {own} {name} here so I don't lose it:\n{value}",
    "Please keep this exactly, it's {own} {name}:\n{value}",
)
_VERBATIM_ACK = (
    "Saved verbatim. I'll quote it exactly if you ask.",
    "Stored exactly as written.",
    "Got it, kept character for character.",
    "Done -- I have {your} {name} saved as-is.",
)
_RULE = (
    "Something to remember: {own} {name} depends on {own} {src}; if {own} {src} changes, {own} {name} will be {value}.",
    "There's a dependency you should know about. {Own} {name} depends on {own} {src} -- if {own} {src} changes, {own} {name} will be {value}.",
    "Rule for later: {own} {name} depends on {own} {src}. If {own} {src} changes, {own} {name} will be {value}, no question.",
    "Planning ahead: {own} {name} depends on {own} {src}, so if {own} {src} changes, {own} {name} will be {value}.",
    "We agreed on a fallback. {Own} {name} depends on {own} {src}; if {own} {src} changes, {own} {name} will be {value}.",
)
_RULE_ACK = (
    "Understood -- if {your} {src} changes, {your} {name} becomes {value}.",
    "Noted the rule: {name} follows {src}, and the switch would be to {value}.",
    "Got it. A change of {your} {src} means {your} {name} goes to {value}.",
    "Makes sense; I'll keep that dependency and its outcome in mind.",
)
_DEPENDENCY = (
    "Also worth knowing: {own} {name} depends on {own} {src}.",
    "{Own} {name} depends on {own} {src}, by the way.",
    "Keep in mind that {own} {name} depends on {own} {src}.",
    "Just flagging a link: {own} {name} depends on {own} {src}.",
    "One dependency to note -- {own} {name} depends on {own} {src}.",
)
_DEPENDENCY_ACK = (
    "Noted: {your} {name} depends on {your} {src}.",
    "Got it, {name} is tied to {src}.",
    "Thanks, I'll keep that dependency in mind.",
    "Understood -- {your} {name} hinges on {your} {src}.",
)
_CHANGE = (
    "Big news: {own} {name} changed -- it's {value} now, not {old}.",
    "We just switched {own} {name} from {old} to {value}.",
    "Update on {own} {name}: as of today it's {value}; it used to be {old}.",
    "It's official, {own} {name} is now {value}, and {old} is out.",
)
_CHANGE_ACK = (
    "Thanks for letting me know -- {your} {name} is now {value}.",
    "Noted: {your} {name} changed to {value}.",
    "Big change! I've updated {your} {name} to {value}.",
)
_DELETE = (
    "Please forget {own} {name} -- delete it from your memory, I don't want it stored.",
    "Could you remove what I told you about {own} {name}? Forget it entirely.",
    "I'd like you to erase {own} {name} from memory. Don't keep any record of it.",
    "Privacy request: forget {own} {name}, please. Delete every note about it.",
)
_DELETE_ACK = (
    "Done -- I've deleted {your} {name} and won't keep it.",
    "Understood, {your} {name} has been removed from memory.",
    "Okay, that's forgotten. I no longer have {your} {name} stored.",
)
_DEP_PREAMBLE = (
    ("I've been mapping out how things in {own} setup connect.", "Good idea -- what did you find?"),
    ("Let me explain how a few things hang together.", "Sure, go ahead."),
    ("Some of {own} choices are linked, and I want you to know how.", "Of course, I'm listening."),
)
# Lead-ins are whole sentences, so the template after them keeps its capital letter.
_TRANSITIONS = ("One more thing. ", "Next item. ", "And another thing. ", "Okay, next. ", "", "", "")
_OPENERS = {
    "personal_life": (
        ("Morning! A few things to jot down today.", "Good morning! Go ahead, I'm ready."),
        ("Hey, got a minute? I want to keep some details straight.", "Of course. What's on your mind?"),
        ("Hi again. Life admin time.", "Sounds good -- what do we need to note?"),
        ("Evening! Quick catch-up on some personal stuff.", "Hi! Happy to help keep track."),
    ),
    "software_project": (
        ("Hi -- a few project notes from today's standup.", "Sure, let's capture them."),
        ("Hey, updating you on the project setup.", "Great, what's new?"),
        ("Quick sync on our stack before I forget.", "Go ahead, I'm taking notes."),
        (
            "Morning. Some decisions came out of the architecture review.",
            "Good morning! What did you decide?",
        ),
    ),
}
_CLOSERS = (
    ("That's all for now, thanks.", "You're welcome -- talk soon!"),
    ("Thanks, that's everything.", "Anytime. Have a good one."),
    ("Great, that covers it.", "Glad to help!"),
)
_FACT_TEXT = {
    "state": "{Own} {name} is {value}.",
    "update": "{Own} {name} changed from {old} to {value}.",
    "verbatim": "{Own} {name} is:\n{value}",
    "rule": "{Own} {name} depends on {own} {src}; if {own} {src} changes, {own} {name} will be {value}.",
    "dependency": "{Own} {name} depends on {own} {src}.",
    "change": "{Own} {name} changed from {old} to {value}.",
    "delete": "The user asked to forget {own} {name}.",
}


def _slots(fact: FactPlan, owner: str) -> dict[str, str]:
    return {
        "own": owner,
        "Own": owner.capitalize(),
        "your": "your",
        "Your": "Your",
        "name": fact.name,
        "value": fact.value,
        "old": fact.old,
        "src": fact.source_name,
    }


def fact_text(fact: FactPlan, owner: str) -> str:
    """The fact as one plain sentence (the gold fact's ``fact_text``).

    Args:
        fact: The fact.
        owner: The user's possessive ("my" / "our").

    Returns:
        The sentence.
    """
    return _FACT_TEXT[fact.kind].format(**_slots(fact, owner))


_DEV = {
    "state": _STATE,
    "state_tease": _STATE_TEASE,
    "state_ask": _STATE_ASK,
    "state_reveal": _STATE_REVEAL,
    "state_ack": _STATE_ACK,
    "update": _UPDATE,
    "update_ack": _UPDATE_ACK,
    "verbatim": _VERBATIM,
    "verbatim_ack": _VERBATIM_ACK,
    "rule": _RULE,
    "rule_ack": _RULE_ACK,
    "dependency": _DEPENDENCY,
    "dependency_ack": _DEPENDENCY_ACK,
    "change": _CHANGE,
    "change_ack": _CHANGE_ACK,
    "delete": _DELETE,
    "delete_ack": _DELETE_ACK,
}


@cache
def templates(phrasing: str) -> dict[str, Any]:
    """The template lists of a phrasing family (keys of the dev table, plus ``value_paraphrases``).

    Raises:
        ConfigError: Unknown family, or a non-dev family's table lacks a list or holds an empty one.
    """
    if phrasing == "dev":
        return {**_DEV, "value_paraphrases": {}}
    if phrasing not in PHRASINGS:
        raise ConfigError(f"unknown MEME phrasing {phrasing!r}; expected one of {', '.join(PHRASINGS)}")
    table = load_table(f"dialogue_{phrasing}")
    bad = [k for k in _DEV if not isinstance(table.get(k), tuple) or not table[k]]
    if bad:
        raise ConfigError(f"generator/data/dialogue_{phrasing}.json: missing or empty template lists {bad}")
    return {**{k: table[k] for k in _DEV}, "value_paraphrases": dict(table.get("value_paraphrases", {}))}


def _exchange(
    rng: random.Random, fact: FactPlan, owner: str, *, follows: bool, phrasing: str = "dev"
) -> tuple[list[tuple[str, str]], int]:
    """Turns (role, text) verbalising ``fact`` and the index among them of the turn that conveys it.

    ``follows``: another fact came before in this session, so a lead-in ("Next item.") may open it.
    ``phrasing``: the family (:data:`PHRASINGS`); a non-dev one mentions a descriptive value by
    its paraphrase (verbatim values never).
    """
    t = templates(phrasing)
    s = _slots(fact, owner)
    if fact.kind != "verbatim":
        para = t["value_paraphrases"]
        s = {**s, "value": para.get(fact.value, fact.value), "old": para.get(fact.old, fact.old)}
    turns: list[tuple[str, str]] = []
    if fact.kind == "state" and rng.random() < 0.35:
        turns += [("user", rng.choice(t["state_tease"])), ("assistant", rng.choice(t["state_ask"]))]
        turns.append(("user", rng.choice(t["state_reveal"])))
        conveyed = 2
        turns.append(("assistant", rng.choice(t["state_ack"])))
    else:
        user, ack = t[fact.kind], t[f"{fact.kind}_ack"]
        text = rng.choice(user)
        # A verbatim value is introduced on its own; "One more thing." never precedes "One more thing...".
        if follows and fact.kind != "verbatim" and not text.startswith("One more thing"):
            text = rng.choice(_TRANSITIONS) + text
        turns += [("user", text), ("assistant", rng.choice(ack))]
        conveyed = 0
    filled = [(role, _fill(text, s)) for role, text in turns]
    if phrasing != "dev":  # a non-dev template may open on a lower-case value
        filled = [(role, text[:1].upper() + text[1:]) for role, text in filled]
    return filled, conveyed


def _fill(template: str, slots: dict[str, str]) -> str:
    return template.format(**slots)


def evidence_dialogue(
    rng: random.Random, facts: list[FactPlan], *, domain: str, owner: str, phrasing: str = "dev"
) -> tuple[list[dict[str, str]], list[dict[str, Any]]]:
    """One evidence session: an opening, a short exchange per fact, and sometimes a closing.

    Args:
        rng: The episode's random generator (consumed).
        facts: Facts to convey, in order.
        domain: Domain name (picks the opening lines).
        owner: The user's possessive ("my" / "our").
        phrasing: The phrasing family of the facts' turns (:data:`PHRASINGS`); gold facts' texts are
            the same in every family.

    Returns:
        ``(conversation, gold_facts)``: turns as ``{"role", "content"}`` dicts, and one gold fact dict
        per fact (``entity, value, fact_text, conveyed_in_turn, notes``, plus ``kind``, ``name``, and
        ``source`` / ``source_name`` for rules and dependencies, ``old`` for updates and changes).
    """
    conversation: list[dict[str, str]] = []
    gold: list[dict[str, Any]] = []
    opener = rng.choice(_OPENERS[domain])
    conversation += [{"role": "user", "content": opener[0]}, {"role": "assistant", "content": opener[1]}]
    first_link = next((i for i, f in enumerate(facts) if f.kind in ("rule", "dependency")), None)
    preamble = first_link is not None and rng.random() < 0.6
    for position, fact in enumerate(facts):
        if preamble and position == first_link:
            user, assistant = rng.choice(_DEP_PREAMBLE)
            conversation += [
                {"role": "user", "content": user.format(own=owner)},
                {"role": "assistant", "content": assistant},
            ]
        turns, conveyed = _exchange(rng, fact, owner, follows=position > 0, phrasing=phrasing)
        conveyed_at = len(conversation) + conveyed
        conversation += [{"role": role, "content": text} for role, text in turns]
        gold.append(
            {
                "entity": fact.entity,
                "value": fact.value if fact.kind not in ("dependency", "delete") else "",
                "fact_text": fact_text(fact, owner),
                "conveyed_in_turn": conveyed_at,
                "notes": fact.notes or fact.kind,
                # Machine-readable kind, display name and upstream entity: what an extraction oracle
                # (baselines/gold_facts.py) and failure attribution (eval/benchmarks/meme/diagnostics.py) read.
                "kind": fact.kind,
                "name": fact.name,
                **({"source": fact.source, "source_name": fact.source_name} if fact.source else {}),
                **({"old": fact.old} if fact.old else {}),
            }
        )
    if rng.random() < 0.6:
        user, assistant = rng.choice(_CLOSERS)
        conversation += [{"role": "user", "content": user}, {"role": "assistant", "content": assistant}]
    return conversation, gold
