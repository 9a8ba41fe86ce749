"""LongMemEval's questions for ``memsuite rejudge`` (:mod:`memsuite.eval.rejudge.questions`)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from memsuite.eval.benchmarks.longmemeval.judges import LmeCase
from memsuite.eval.benchmarks.longmemeval.loader import LmeFile
from memsuite.eval.benchmarks.longmemeval.protocol import default_data_path
from memsuite.eval.rejudge.questions import RejudgeQuestion


def longmemeval_questions(data: Path | None) -> list[RejudgeQuestion]:
    """Every question of a released file (haystacks dropped: the answer judges never read them)."""
    file = LmeFile(Path(data) if data is not None else default_data_path())
    out = []
    for index, question_id in enumerate(file.ids):
        question = replace(file.question(question_id), sessions=())
        case = LmeCase(question, None, (), 0, None, "session", None)
        metadata = {"question_type": question.question_type, "abstention": question.abstention}
        out.append(
            RejudgeQuestion(
                question_id,
                question_id,
                question.question,
                question.question_type,
                question.answer,
                case,
                index,
                metadata,
            )
        )
    return out
