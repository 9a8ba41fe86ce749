"""The document a LifeBench record is ingested as: one document per record, by one rule.

The text opens with a line ``<Label>, <time>`` (the record's ``datetime``, else ``date``; the label
per type below), then one line ``<field>: <value>`` per field of the type, in this order, for each
field the record has and is not empty (values as released; a number or list written as JSON):

- ``sms`` (SMS): contactName, phoneNumber (else contact_phone_number), message_type, message_content;
- ``call`` (Call): contactName, phoneNumber (else contact_phone_number), direction, call_result,
  datetime_end;
- ``calendar`` (Calendar): title, description, start_time, end_time;
- ``note`` (Note): title, content;
- ``photo`` (Photo): title, caption, location, faceRecognition, ocrText, imageTag; ``location`` is
  written as its ``poi, streetNumber streetName, district, city, province``, empty parts left out;
- ``push`` (Notification): source, title, content;
- ``agent_chat`` (Assistant chat): no field lines; each turn, by its number, as ``User: <content>``
  then ``Assistant: <content>``;
- ``contact`` (Contact, no time): every field but ``phone_id``, in released order.

``summarized_info`` (the generator's one-line summary: a phone does not hold it) enters only with the
``summaries`` option, as a last line ``summary: <text>``. ``fitness_health`` (a per-day table of
figures, keyed in Chinese even in the English release, cited by no question) is not ingested.
Each document's metadata keeps ``record`` (``type:phone_id``), ``type``, ``phone_id``, ``day`` and
``datetime``.
"""

from __future__ import annotations

import json
from typing import Any

from memsuite.eval.benchmarks.lifebench.schema import Record

LABELS = {
    "sms": "SMS",
    "call": "Call",
    "calendar": "Calendar",
    "note": "Note",
    "photo": "Photo",
    "push": "Notification",
    "agent_chat": "Assistant chat",
    "contact": "Contact",
}
#: Per type, the fields written, in order; a tuple of names is the first present of them.
FIELDS: dict[str, tuple[str | tuple[str, ...], ...]] = {
    "sms": ("contactName", ("phoneNumber", "contact_phone_number"), "message_type", "message_content"),
    "call": (
        "contactName",
        ("phoneNumber", "contact_phone_number"),
        "direction",
        "call_result",
        "datetime_end",
    ),
    "calendar": ("title", "description", "start_time", "end_time"),
    "note": ("title", "content"),
    "photo": ("title", "caption", "location", "faceRecognition", "ocrText", "imageTag"),
    "push": ("source", "title", "content"),
    "agent_chat": (),
}
_LOCATION = ("poi", "streetNumber streetName", "district", "city", "province")


def _value(value: Any) -> str:
    if value is None or value == [] or value == {}:
        return ""
    return value.strip() if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def location_text(location: Any) -> str:
    """A photo's ``location`` as ``poi, streetNumber streetName, district, city, province``."""
    if not isinstance(location, dict):
        return _value(location)
    parts = (" ".join(_value(location.get(k)) for k in group.split()).strip() for group in _LOCATION)
    return ", ".join(p for p in parts if p)


def _turns(conversation: Any) -> list[str]:
    if not isinstance(conversation, dict):
        return [_value(conversation)] if conversation else []

    def number(key: str) -> tuple[int, str]:
        digits = "".join(c for c in key if c.isdigit())
        return (int(digits) if digits else 0, key)

    lines = []
    for key in sorted(conversation, key=number):
        turn = conversation[key] if isinstance(conversation[key], dict) else {}
        for role, name in (("user", "User"), ("assistant", "Assistant")):
            said = turn.get(role)
            content = said.get("content") if isinstance(said, dict) else said
            if _value(content):
                lines.append(f"{name}: {_value(content)}")
    return lines


def _field(raw: dict[str, Any], names: str | tuple[str, ...]) -> tuple[str, str] | None:
    for name in (names,) if isinstance(names, str) else names:
        text = location_text(raw.get(name)) if name == "location" else _value(raw.get(name))
        if text:
            return name, text
    return None


def record_text(record: Record, *, summaries: bool = False) -> str:
    """The record's document text (module docstring)."""
    raw = record.raw
    head = LABELS.get(record.type, record.type)
    lines = [f"{head}, {record.when}" if record.when else head]
    if record.type == "contact":
        lines += [f"{k}: {_value(v)}" for k, v in raw.items() if k != "phone_id" and _value(v)]
    else:
        found = (_field(raw, names) for names in FIELDS.get(record.type, ()))
        lines += [f"{name}: {text}" for name, text in (f for f in found if f is not None)]
        if record.type == "agent_chat":
            lines += _turns(raw.get("conversation"))
    if summaries and _value(raw.get("summarized_info")):
        lines.append(f"summary: {_value(raw['summarized_info'])}")
    return "\n".join(lines)


def record_metadata(record: Record) -> dict[str, Any]:
    """The document's metadata (module docstring)."""
    return {
        "record": record.key,
        "type": record.type,
        "phone_id": record.phone_id,
        "day": record.day,
        "datetime": record.when,
    }
