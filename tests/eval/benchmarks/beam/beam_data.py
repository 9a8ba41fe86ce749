"""Write small BEAM conversations in the release's layout (for loader and protocol tests)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any


def chat(pairs: list[tuple[str, str]], *, per_batch: int = 2, anchors: dict[int, str] | None = None) -> list:
    """A chat.json: user/assistant pairs, ``per_batch`` pairs per batch, ids 0..N-1."""
    batches, next_id = [], 0
    for start in range(0, len(pairs), per_batch):
        turns = []
        for user, assistant in pairs[start : start + per_batch]:
            u = {"role": "user", "id": next_id, "content": user}
            if anchors and next_id in anchors:
                u["time_anchor"] = anchors[next_id]
            turns.append([u, {"role": "assistant", "id": next_id + 1, "content": assistant}])
            next_id += 2
        batches.append({"batch_number": start // per_batch + 1, "time_anchor": None, "turns": turns})
    return batches


def question(text: str, source: Any, rubric: list[str] | None = None, **fields: Any) -> dict:
    record = {
        "question": text,
        "answer": "gold",
        "difficulty": "easy",
        "rubric": rubric or ["LLM response should state: gold"],
    }
    if source is not None:
        record["source_chat_ids"] = source
    return {**record, **fields}


def write_conversation(folder: Path, batches: list, questions: dict, *, gz: bool = True) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    text = json.dumps(batches)
    if gz:
        (folder / "chat.json.gz").write_bytes(gzip.compress(text.encode()))
    else:
        (folder / "chat.json").write_text(text)
    (folder / "probing_questions").mkdir(exist_ok=True)
    (folder / "probing_questions" / "probing_questions.json").write_text(json.dumps(questions))
    return folder
