"""Rejudging the toy: its questions, and its own answer file format (one JSON object a line:
``{"country": ..., "answer": ...}``)."""

from __future__ import annotations

import json
from pathlib import Path

from memsuite.eval.rejudge.formats import Format, SourceAnswer
from memsuite.eval.rejudge.questions import RejudgeQuestion
from toy_bench.data import CAPITALS


def questions(data: Path | None) -> list[RejudgeQuestion]:
    return [
        RejudgeQuestion(c, "q", f"What is the capital of {c}?", "capitals", CAPITALS[c], CAPITALS[c], i)
        for i, c in enumerate(CAPITALS)
    ]


def _is_toy_answers(path: Path) -> bool:
    return path.suffix == ".jsonl" and path.name.startswith("toy")


def read_toy_answers(path: Path) -> list[SourceAnswer]:
    answers = []
    for line_no, line in enumerate(path.read_text().splitlines(), 1):
        item = json.loads(line)
        answers.append(
            SourceAnswer(item["answer"], f"{path}:{line_no}", question_id="q", unit_id=item["country"])
        )
    return answers


ANSWERS = Format(read_toy_answers, _is_toy_answers)
