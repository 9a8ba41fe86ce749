"""What the oracle endpoint knows about one unit: its sessions' gold facts and its questions' gold answers.

A benchmark serves the oracle by naming a function ``unit_gold(benchmark, unit_id) -> UnitGold`` (a
:data:`~memsuite.eval.hooks.GoldReader`) in its definition (``BenchmarkDefinition.oracle_gold``, by
convention in ``eval/benchmarks/<name>/oracle_gold.py``); a benchmark without one has no gold per
session and is refused before any unit (:func:`memsuite.eval.oracle.run.gold_source`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from memsuite.baselines.gold_facts import OracleFact

_SPACE = re.compile(r"\s+")


def normalise(text: str) -> str:
    """``text`` with runs of whitespace as one space, stripped: how a prompt and gold are compared."""
    return _SPACE.sub(" ", text).strip()


@dataclass(frozen=True)
class SessionGold:
    """One session as the oracle recognises it in a prompt, and the facts it states."""

    session_id: str
    timestamp: str
    turns: tuple[str, ...]
    """The session's turn contents (normalised): how a prompt's copy of the session is found."""
    facts: tuple[OracleFact, ...]
    """The gold facts the session states (empty for filler)."""


@dataclass(frozen=True)
class QuestionGold:
    """One question the unit asks and its gold answer."""

    question: str
    """The question text as the answer prompt carries it (normalised)."""
    gold: Any
    """The gold answer, as the oracle replies it (a str, or a JSON value for a JSON answer prompt)."""
    date: str | None = None
    """The question date the answer prompt states, where one question is asked at several dates."""
    entities: tuple[str, ...] = ()
    """Ids of the entities the question is about (``OracleFact.entity``): what a query-time call that
    picks memories to read should pick."""


@dataclass(frozen=True)
class UnitGold:
    """Everything the oracle knows of one unit."""

    unit_id: str
    sessions: tuple[SessionGold, ...]
    questions: tuple[QuestionGold, ...]

    def session_in(self, text: str) -> SessionGold | None:
        """The session whose turns ``text`` holds most of (at least half of them), or None.

        Filler and evidence sessions are told apart by their turns, so a prompt that quotes one
        session finds that one; ties go to the later session (a prompt quoting earlier messages as
        context names the new ones too).
        """
        flat = normalise(text)
        best, best_share = None, 0.0
        for session in self.sessions:
            if not session.turns:
                continue
            found = sum(1 for turn in session.turns if turn and turn in flat)
            share = found / len(session.turns)
            if share >= 0.5 and share >= best_share:
                best, best_share = session, share
        return best

    def answer_to(
        self, question: str, *, date: str | None = None, occurrence: int = 0
    ) -> QuestionGold | None:
        """The question whose text is ``question``: the one asked at ``date`` when the prompt states
        one, else the ``occurrence``-th (0-based) of those with that text, in the order the protocol
        asks them (a DynamicMem key is asked once per checkpoint, in order, with the same words)."""
        wanted = normalise(question)
        matches = [q for q in self.questions if q.question == wanted]
        if date is not None and any(q.date is not None for q in matches):
            matches = [q for q in matches if q.date == normalise(date)]
        if not matches:
            return None
        return matches[min(occurrence, len(matches) - 1)]
