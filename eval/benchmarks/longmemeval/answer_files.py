"""LongMemEval's published answer files for ``memsuite rejudge``: the format ``longmemeval_jsonl``.

LongMemEval's hypothesis file, one JSON object per line with ``question_id`` and ``hypothesis``; the
output of its ``src/evaluation/evaluate_qa.py`` adds ``autoeval_label`` ``{model, label}``, read as the
published verdict and judge.
"""

from __future__ import annotations

import json
from pathlib import Path

from memsuite.eval.rejudge.formats import (
    Format,
    SourceAnswer,
    first_json_line,
    text_field,
    verdict_field,
)
from memsuite.memory_systems.errors import DatasetError


def _is_hypothesis_file(path: Path) -> bool:
    first = first_json_line(path) if path.is_file() else None
    return isinstance(first, dict) and "question_id" in first and "hypothesis" in first


def read_hypothesis_jsonl(path: Path) -> list[SourceAnswer]:
    """LongMemEval hypotheses, with ``autoeval_label`` as the published verdict when present."""
    answers = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            where = f"{path}:{number}"
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DatasetError(f"{where}: not JSON ({exc})") from None
            if not isinstance(record, dict):
                raise DatasetError(f"{where}: a line must be a JSON object")
            for field in ("question_id", "hypothesis"):
                if field not in record:
                    raise DatasetError(f"{where}: missing field {field!r}")
            label = record.get("autoeval_label")
            if label is not None and not (isinstance(label, dict) and "label" in label):
                raise DatasetError(f"{where}: field 'autoeval_label' must be an object with 'label'")
            answers.append(
                SourceAnswer(
                    text_field(record["hypothesis"], where, "hypothesis"),
                    where,
                    question_id=text_field(record["question_id"], where, "question_id"),
                    published_verdict=verdict_field(label["label"], where, "autoeval_label.label")
                    if label
                    else None,
                    published_judge=str(label.get("model") or "evaluate_qa") if label else None,
                )
            )
    return answers


#: The formats of published answer files, by name.
FORMATS = {
    "longmemeval_jsonl": Format(read_hypothesis_jsonl, _is_hypothesis_file),
}
