"""Finding a prompt's session and facts in a unit's gold: what the prompt kinds share.

A native paradigm sends a session in chunks, each under its header (``[Session: <timestamp>]``). A
session is found in a chunk by that header and its turns; its facts are replied on the chunk holding
its first turn (a later chunk of the same session, and filler, give nothing). A memory, line or page
is tied to a gold entity by its text (a gold fact's sentence, or its ``facts``-mode wording), so what
the prompt does not show a perfect model cannot edit either: the loss is the paradigm's own view's.

A library sends what it chunked itself, with no header (cognee's and Hindsight's chunks, A-MEM's
notes): :func:`facts_of_chunk` finds the sessions by their turns and :func:`states` whether a chunk
shows a fact's value.
"""

from __future__ import annotations

import re

from memsuite.baselines.gold_facts import OracleFact, worded
from memsuite.eval.oracle.gold import SessionGold, UnitGold, normalise
from memsuite.eval.oracle.kinds import OracleRequest, Unservable

_HEADER = re.compile(r"\[Session: (?P<timestamp>[^\]\n]+)\]")
#: How a paradigm marks a text it clipped for display.
CLIPPED = " […]"
#: Characters of a turn that identify it when the chunker clipped the rest.
_TURN_PREFIX = 60


def _holds(flat: str, turn: str) -> bool:
    return bool(turn) and (turn in flat or (len(turn) > _TURN_PREFIX and turn[:_TURN_PREFIX] in flat))


def chunk_session(unit: UnitGold, text: str) -> tuple[SessionGold, bool]:
    """The session a prompt's chunk comes from, and whether the chunk holds its first turn.

    The chunk header names the session's timestamp; among the sessions with it, the one most of
    whose turns the chunk holds (a turn the chunker clipped is found by its start). A chunk holding
    none of them (a session's last chunk can be only the assistant's reply, which gold does not keep)
    is the one session its header names, and not that session's first chunk.

    Raises:
        Unservable: No session of the unit is in the text.
    """
    flat = normalise(text)
    stamps = {normalise(m["timestamp"]) for m in _HEADER.finditer(text)}
    best, best_found = None, 0
    named = [s for s in unit.sessions if normalise(s.timestamp) in stamps]
    for session in named if stamps else unit.sessions:
        found = sum(1 for turn in session.turns if _holds(flat, turn))
        if found > best_found:
            best, best_found = session, found
    if best is None and len(named) == 1:
        return named[0], False
    if best is None:
        raise Unservable(f"the prompt's session is no session of unit {unit.unit_id!r}")
    return best, _holds(flat, best.turns[0])


def states(fact: OracleFact, flat: str) -> bool:
    """Whether the normalised text ``flat`` shows ``fact``: its value (its name when it has none),
    compared with runs of whitespace as one space and case folded, as ``flat`` is: a multi-line value
    (a recipe card, an error log) is found in the chunk that quotes it."""
    return normalise(fact.value or fact.name).lower() in flat.lower()


def facts_of_chunk(unit: UnitGold, chunk: str, library: str) -> list[OracleFact]:
    """The gold facts a library's chunk of the unit's sessions states.

    A chunk that holds sessions whole (each of their turns) states all of their gold facts, whatever
    their wording (a DynamicMem day's facts are values in memsuite's words, its turns raw event JSON),
    and no other session's: a value it repeats from an earlier session (the old value of a change) is
    that session's fact. A chunk that holds no session whole (a longer session cut into chunks) states
    the facts of the sessions it holds a part of whose value it shows (:func:`states`), and the chunk
    holding a session's first turn also those of its facts that no turn of the session shows in so
    many words, so each fact is stated by some chunk.

    Raises:
        Unservable: The chunk is from no session of the unit.
    """
    flat = normalise(chunk)
    whole: list[SessionGold] = []
    parts: list[tuple[SessionGold, list[str]]] = []  # with the session's non-empty turns
    for session in unit.sessions:
        turns = [turn for turn in session.turns if turn]
        held = [turn in flat for turn in turns]
        if turns and all(held):
            whole.append(session)
        elif any(held) or any(flat in turn for turn in turns):
            parts.append((session, turns))
    if whole:
        return list(dict.fromkeys(fact for session in whole for fact in session.facts))
    if not parts:
        raise Unservable(f"{library}: the chunk {flat[:80]!r} is from no session of unit {unit.unit_id!r}")
    found = []
    for session, turns in parts:
        first, everything = _holds(flat, turns[0]), " ".join(turns)
        found += [f for f in session.facts if states(f, flat) or (first and not states(f, everything))]
    return list(dict.fromkeys(found))


def session_facts(request: OracleRequest, text: str) -> tuple[OracleFact, ...]:
    """The gold facts to reply for the chunk in ``text``: its session's, on the session's first chunk."""
    session, first = chunk_session(request.need_unit(), text)
    return session.facts if first else ()


def fact_index(unit: UnitGold) -> dict[str, OracleFact]:
    """Every gold fact of the unit by its normalised sentence and its ``facts``-mode wording."""
    out: dict[str, OracleFact] = {}
    for session in unit.sessions:
        for fact in session.facts:
            out[normalise(fact.text)] = fact
            out[normalise(worded(fact))] = fact
    return out


def fact_of(index: dict[str, OracleFact], text: str) -> OracleFact | None:
    """The gold fact a stored text states (a text clipped for display by its start), or None."""
    flat = normalise(text)
    if flat in index:
        return index[flat]
    if flat.endswith(CLIPPED.strip()):
        head = flat[: -len(CLIPPED.strip())].rstrip()
        return next((fact for key, fact in index.items() if head and key.startswith(head)), None)
    return None


def section(text: str, start: str, end: str | None) -> str:
    at = text.find(start)
    if at < 0:
        raise Unservable(f"prompt without its {start.strip()!r} section")
    at += len(start)
    stop = text.find(end, at) if end else -1
    return text[at:] if stop < 0 else text[at:stop]


def later_round(request: OracleRequest) -> bool:
    """Whether the request continues an action loop (it holds the model's or a tool's earlier turns)."""
    return any(m.get("role") in ("assistant", "tool") for m in request.messages)
