"""BEAM's questions for ``memsuite rejudge`` (:mod:`memsuite.eval.rejudge.questions`)."""

from __future__ import annotations

from pathlib import Path

from memsuite.eval.benchmarks.beam.judges import BeamCase
from memsuite.eval.benchmarks.beam.loader import BeamData
from memsuite.eval.benchmarks.beam.protocol import default_data_path
from memsuite.eval.data.shared import data_path
from memsuite.eval.rejudge.questions import RejudgeQuestion


def beam_questions(data: Path | None) -> list[RejudgeQuestion]:
    """Every question of a BEAM folder (the answer judges read only the question and its rubric)."""
    found = BeamData(data_path(data, benchmark="beam") if data is not None else default_data_path())
    out = []
    for unit_index, conversation in enumerate(found.conversations.values()):
        for question in conversation.questions:
            case = BeamCase(question, None, (), 0, "message", "rejudged answers: no ranking")
            metadata = {"ability": question.ability, "scale": conversation.scale}
            out.append(
                RejudgeQuestion(
                    conversation.conversation_id,
                    question.question_id,
                    question.question,
                    question.ability,
                    question.gold,
                    case,
                    unit_index,
                    metadata,
                )
            )
    return out
