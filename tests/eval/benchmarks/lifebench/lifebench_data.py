"""A small LifeBench user folder in the release's layout, for the tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def sms(phone_id: Any, when: str, text: str, contact: str = "Zhang Wei") -> dict:
    return {
        "type": "sms",
        "event_id": 1,
        "message_content": text,
        "contactName": contact,
        "phoneNumber": "+8613800000000",
        "datetime": when,
        "message_type": "Receive",
        "phone_id": phone_id,
        "summarized_info": f"summary of {text}",
    }


def photo(phone_id: Any, when: str, caption: str) -> dict:
    location = {
        "province": "Shanghai",
        "city": "Shanghai",
        "district": "Pudong",
        "streetName": "Pudong Avenue",
        "streetNumber": "No. 12",
        "poi": "Riverside Cafe",
    }
    return {
        "type": "photo",
        "event_id": 2,
        "title": "IMG_1",
        "caption": caption,
        "datetime": when,
        "location": location,
        "faceRecognition": [],
        "phone_id": phone_id,
    }


def question(
    text: str, evidence: list, ask_time: str = "2025-02", answer: str = "an answer", **extra: Any
) -> dict:
    return {
        "question": text,
        "answer": answer,
        "question_type": "Information Extraction",
        "ask_time": ask_time,
        "evidence": evidence,
        "score_points": [{"description": "names it", "score": 5}],
        **extra,
    }


def write_user(root: Path, phone: dict[str, list], questions: list[dict], name: str = "annuser") -> Path:
    """A user folder ``root/name`` with ``phone_data/<type>.json`` for each of ``phone`` and its questions."""
    folder = root / name
    (folder / "phone_data").mkdir(parents=True, exist_ok=True)
    (folder / "QA").mkdir(exist_ok=True)
    for kind, records in phone.items():
        (folder / "phone_data" / f"{kind}.json").write_text(json.dumps(records), encoding="utf-8")
    (folder / "QA" / "QA_clean.json").write_text(json.dumps(questions), encoding="utf-8")
    return folder


def small_user(root: Path) -> Path:
    """Three days of records and four questions: one open, one multiple choice, one Unanswerable, one
    citing a record dated after it."""
    phone = {
        "sms": [
            sms(0, "2025-01-05 09:00:00", "Dinner at the Riverside Cafe on Friday?"),
            sms("1", "2025-02-10 10:00:00", "The dentist moved your appointment to March 3."),
            sms(2, "2025-03-01 08:00:00", "Your parcel from Hangzhou arrives today."),
        ],
        "photo": [photo(0, "2025-01-10 19:30:00", "A bowl of ramen at the Riverside Cafe")],
        "contact": [{"name": "Zhang Wei", "relation": "Friend", "phone_id": "1"}],
        "fitness_health": [{"日期": "2025-01-01", "城市": "Shanghai"}],
    }
    choice = [{"option": "A", "content": "Riverside Cafe"}, {"option": "B", "content": "Home"}]
    questions = [
        question(
            "Where did Zhang Wei suggest dinner?", [{"type": "sms", "id": 0}, {"type": "photo", "id": "0"}]
        ),
        question(
            "Where was the ramen eaten?",
            [{"type": "photo", "id": 0}],
            answer="A",
            options=choice,
            question_type="Multi-hop reasoning",
            score_points=None,
        ),
        question(
            "What is my passport number?",
            [],
            answer="Unable to answer",
            question_type="Unanswerable",
            score_points=[],
        ),
        question(
            "When does the parcel arrive?",
            [
                {"type": "sms", "id": 2},
                {"type": "agent_chat", "id": 4},
                {"type": "sms", "id": 99},
                {"error": "no match"},
                "sms 3",
            ],
            ask_time="2025-02",
        ),
    ]
    return write_user(root, phone, questions)
