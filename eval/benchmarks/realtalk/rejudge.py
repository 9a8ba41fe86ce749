"""REALTALK's questions for ``memsuite rejudge`` (:mod:`memsuite.eval.rejudge.questions`): the answer
judges read only the question, its category and its gold, so rejudged rows line up with a run's rows
(unit = the chat's file stem, id ``q<index>``)."""

from __future__ import annotations

from pathlib import Path

from memsuite.eval.benchmarks.realtalk.judges import RealtalkCase
from memsuite.eval.benchmarks.realtalk.loader import load_chats
from memsuite.eval.benchmarks.realtalk.protocol import default_data_path
from memsuite.eval.data.shared import data_path
from memsuite.eval.rejudge.questions import RejudgeQuestion


def realtalk_questions(data: Path | None) -> list[RejudgeQuestion]:
    """Every question of every chat, chats by number."""
    path = data_path(data, benchmark="realtalk") if data is not None else default_data_path()
    out = []
    for index, chat in enumerate(load_chats(path)):
        for question in chat.questions:
            case = RealtalkCase(
                question, question.relevant, None, 0, "message", "rejudged answers: no ranking"
            )
            metadata = {
                "category": question.category,
                "category_name": question.category_name,
                "relevant": list(question.relevant),
                "dangling": list(question.dangling),
            }
            out.append(
                RejudgeQuestion(
                    chat.chat_id,
                    question.question_id,
                    question.question,
                    question.category_name,
                    question.answer,
                    case,
                    index,
                    metadata,
                )
            )
    return out
