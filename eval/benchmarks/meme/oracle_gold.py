"""MEME's gold for the oracle endpoint (eval/oracle/): each session's gold facts, each question's gold.

An episode's evidence sessions carry their planted facts (``gold_facts``), typed as the native oracle
types them (:func:`memsuite.baselines.gold_facts.oracle_facts`); filler sessions carry none. Questions are
keyed by their text and the phase's question date, which the answer prompt states (a question asked
before and after the changes has two golds).
"""

from __future__ import annotations

from typing import Any

from memsuite.baselines.gold_facts import oracle_facts
from memsuite.eval.oracle.gold import QuestionGold, SessionGold, UnitGold, normalise
from memsuite.memory_systems.records import Session


def unit_gold(benchmark: Any, unit_id: str) -> UnitGold:
    """The gold of episode ``unit_id`` of a built MEME benchmark.

    Raises:
        KeyError: The benchmark has no such episode.
    """
    episode = benchmark.episodes[unit_id]
    sessions, questions = [], []
    for phase in ("before", "after"):
        for source in episode.phase_sessions(phase):
            metadata: dict[str, Any] = {"type": source.session_type}
            if source.gold_facts is not None:
                metadata["gold_facts"] = [fact.to_dict() for fact in source.gold_facts]
            elif source.session_type != "filler" and not source.is_evidence:
                metadata["type"] = "filler"  # a session without facts states nothing to remember
            session = Session(source.session_id, source.timestamp, source.conversation, metadata)
            sessions.append(
                SessionGold(
                    session_id=source.session_id,
                    timestamp=source.timestamp,
                    turns=tuple(
                        normalise(turn.content) for turn in source.conversation if turn.content.strip()
                    ),
                    facts=tuple(oracle_facts(session)),
                )
            )
        question_set = episode.question_set(phase)
        date = normalise(question_set.timestamp) if question_set.timestamp else None
        for question in question_set.questions:
            questions.append(
                QuestionGold(normalise(question.question), question.gold, date, tuple(question.entities))
            )
    return UnitGold(unit_id, tuple(sessions), tuple(questions))
