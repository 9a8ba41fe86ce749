"""Filler chat: varied everyday and technical conversations that carry no episode facts.

A filler session is composed from topic templates (openers, answer sentences, follow-ups) whose slots
are filled from shared pools, so sessions vary in topic, wording, length and order; a session
sometimes drifts into a second topic. :func:`filler_sessions` assembles sessions up to a cl100k token
budget, counting each turn once as it is made (never re-tokenising the episode).

Filler never names an entity of the MEME domains nor uses their invented values: it is noise a
memory system has to ignore, not a source of conflicting facts.

The templates are data: ``data/filler_pools.json`` (slot name -> values), ``data/filler_topics.json``
(per topic: openers, replies, follow-ups, and details, ``details[i]`` answering ``followups[i]``) and
``data/filler_phrases.json`` (leads, closers, reactions, codas, drift lines, anecdote parts).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from memsuite.eval.benchmarks.meme.generator.tables import load_table
from memsuite.memory_systems.tokens import count_tokens

_POOLS: dict[str, tuple[str, ...]] = load_table("filler_pools")
_PHRASES: dict[str, tuple] = load_table("filler_phrases")
# Leads before an assistant's first answer, and a closing exchange some sessions end with.
_LEADS: tuple[str, ...] = _PHRASES["leads"]
_CLOSERS: tuple[tuple[str, str], ...] = _PHRASES["closers"]
# Short reactions before a follow-up, leads before its answer, and generic codas: composed with the
# topic sentences they make exact repeats of whole turns rare.
_REACTIONS: tuple[str, ...] = _PHRASES["reactions"]
_ANSWER_LEADS: tuple[str, ...] = _PHRASES["answer_leads"]
_CODAS: tuple[str, ...] = _PHRASES["codas"]
_DRIFT: tuple[str, ...] = _PHRASES["drift"]
# A user sometimes adds a line of personal context before asking: composed from independent parts,
# so these lines rarely repeat exactly.
_ANECDOTE_WHEN: tuple[str, ...] = _PHRASES["anecdote_when"]
_ANECDOTE_WHAT: tuple[str, ...] = _PHRASES["anecdote_what"]
_ANECDOTE_HOW: tuple[str, ...] = _PHRASES["anecdote_how"]


@dataclass(frozen=True)
class _Topic:
    name: str
    openers: tuple[str, ...]
    replies: tuple[str, ...]
    followups: tuple[str, ...]
    details: tuple[str, ...]
    """``details[i]`` answers ``followups[i]``; the sentences after those are extra remarks."""


_TOPICS: tuple[_Topic, ...] = tuple(_Topic(**topic) for topic in load_table("filler_topics"))


class _Slots(dict):
    """Template slots drawn lazily from the pools, the same value for a name within a session."""

    def __init__(self, rng: random.Random) -> None:
        super().__init__()
        self.rng = rng

    def __missing__(self, key: str) -> str:
        if key.startswith("num_"):
            low, high = (int(x) for x in key[4:].split("_"))
            value = str(self.rng.randint(low, high))
        else:
            pool = _POOLS[key.rstrip("0123456789")]
            taken = set(self.values())
            choices = [v for v in pool if v not in taken] or list(pool)  # "dish2" differs from "dish"
            value = self.rng.choice(choices)
        self[key] = value
        return value


def _fill(template: str, slots: _Slots) -> str:
    return template.format_map(slots)


def _capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]


def _topic_turns(rng: random.Random, topic: _Topic, slots: _Slots, *, drift: bool) -> list[dict[str, str]]:
    opener = _fill(rng.choice(topic.openers), slots)
    if rng.random() < 0.4:
        when, what, how = rng.choice(_ANECDOTE_WHEN), rng.choice(_ANECDOTE_WHAT), rng.choice(_ANECDOTE_HOW)
        opener = _fill(f"{when} {what}, {how} ", slots) + opener
    if drift:
        opener = f"{rng.choice(_DRIFT)} {opener}"
    reply = rng.choice(_LEADS) + " ".join(
        _fill(s, slots) for s in rng.sample(topic.replies, rng.randint(4, 6))
    )
    turns = [{"role": "user", "content": opener}, {"role": "assistant", "content": reply}]
    n = len(topic.followups)
    extras = list(topic.details[n:])
    rng.shuffle(extras)
    for i in rng.sample(range(n), rng.randint(2, n)):
        answer = [_fill(topic.details[i], slots)]
        if extras and rng.random() < 0.6:
            answer.append(_fill(extras.pop(), slots))
        if rng.random() < 0.4:
            answer.append(_fill(rng.choice(_CODAS), slots))
        turns += [
            {"role": "user", "content": rng.choice(_REACTIONS) + _fill(topic.followups[i], slots)},
            {
                "role": "assistant",
                "content": rng.choice(_ANSWER_LEADS) + " ".join(_capitalise(a) for a in answer),
            },
        ]
    return turns


def filler_conversation(rng: random.Random) -> list[dict[str, str]]:
    """One filler session's conversation: one topic, sometimes drifting into a second or third.

    Args:
        rng: Random generator (consumed).

    Returns:
        Turns as ``{"role", "content"}`` dicts, alternating user/assistant, starting with the user.
    """
    slots = _Slots(rng)
    first, second, third = rng.sample(_TOPICS, 3)
    turns = _topic_turns(rng, first, slots, drift=False)
    # Sessions of several hundred tokens keep the session count (one ingest call each for LLM-based
    # systems) moderate: ~70 sessions for 32K tokens.
    if rng.random() < 0.8:
        turns += _topic_turns(rng, second, slots, drift=True)
        if rng.random() < 0.45:
            turns += _topic_turns(rng, third, slots, drift=True)
    if rng.random() < 0.5:
        user, assistant = rng.choice(_CLOSERS)
        turns += [{"role": "user", "content": user}, {"role": "assistant", "content": assistant}]
    return turns


def conversation_tokens(conversation: list[dict[str, str]]) -> int:
    """cl100k tokens of a conversation: the sum over turns of their content (roles not counted).

    Args:
        conversation: Turns as ``{"role", "content"}`` dicts.

    Returns:
        The token count.
    """
    return sum(count_tokens(turn["content"]) for turn in conversation)


def filler_sessions(rng: random.Random, budget_tokens: int) -> list[tuple[list[dict[str, str]], int]]:
    """Filler conversations whose token total lands as close to ``budget_tokens`` as one turn pair allows.

    Sessions are added until the total reaches the budget; then trailing turn pairs of the last
    session are dropped while that brings the total closer (never below one exchange). The result is
    within about one turn pair (a few hundred tokens) of the budget.

    Args:
        rng: Random generator (consumed).
        budget_tokens: Target cl100k tokens over all filler turns; 0 gives no sessions.

    Returns:
        ``[(conversation, tokens), ...]`` in order.
    """
    sessions: list[tuple[list[dict[str, str]], int]] = []
    total = 0
    while total < budget_tokens:
        conversation = filler_conversation(rng)
        tokens = [count_tokens(turn["content"]) for turn in conversation]
        crosses = total + sum(tokens) >= budget_tokens
        if crosses:
            # Trim the session that crosses the budget, a turn pair at a time, while that gets closer.
            while len(conversation) > 2 and abs(total + sum(tokens[:-2]) - budget_tokens) < abs(
                total + sum(tokens) - budget_tokens
            ):
                conversation, tokens = conversation[:-2], tokens[:-2]
        sessions.append((conversation, sum(tokens)))
        total += sum(tokens)
        if crosses:
            break
    return sessions
