"""Small REALTALK chat files in the release's layout, for the tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def message(
    dia_id: str, text: str, speaker: str = "Ann", when: str = "29.12.2023, 22:42:04", **extra
) -> dict:
    return {
        "clean_text": text,
        "speaker": speaker,
        "date_time": when,
        "dia_id": dia_id,
        "img_file": "",
        "img_url": "",
        **extra,
    }


def qa(question: str, evidence: list[str], answer: str = "an answer", category: int = 1) -> dict:
    return {"question": question, "answer": answer, "evidence": evidence, "category": category}


def write_chat(
    folder: Path,
    sessions: dict[int, list[dict]],
    questions: list[dict],
    *,
    name: str = "Chat_1_Ann_Bob",
    **extra: Any,
) -> Path:
    """A chat file (keys in the release's order: name, session_N and events_session_N, dates, qa)."""
    data: dict[str, Any] = {"name": {"speaker_1": "Ann", "speaker_2": "Bob"}}
    for number, messages in sessions.items():
        data[f"session_{number}"] = messages
        data[f"events_session_{number}"] = {"agent_a": [], "agent_b": []}
    for number, messages in sessions.items():
        if messages:
            data[f"session_{number}_date_time"] = messages[0]["date_time"]
    data["qa"] = questions
    data.update(extra)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path
