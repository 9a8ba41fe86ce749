"""LifeBench records: a user's phone records and the questions asked about them, as released."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: The dated record files of ``phone_data/``, each a list of records that evidence cites by
#: ``(type, phone_id)``.
DATED_TYPES = ("sms", "call", "calendar", "note", "photo", "push", "agent_chat")
#: The per-person tables of ``phone_data/``: not dated records (:mod:`.documents` says how each is used).
TABLE_TYPES = ("contact", "fitness_health")
RECORD_TYPES = (*DATED_TYPES, *TABLE_TYPES)
#: Question types as released, in the report's order.
QUESTION_TYPES = (
    "Information Extraction",
    "Multi-hop reasoning",
    "Temporal and Knowledge Updating",
    "Nondeclarative",
    "Unanswerable",
)


@dataclass(frozen=True)
class Record:
    """One record of a ``phone_data/<type>.json`` file."""

    type: str
    """The file's type (``sms``, ``photo``, ...)."""
    phone_id: str
    """``phone_id`` read as a string (released as an int or a string of digits; not unique in a type)."""
    index: int
    """Position in its file."""
    day: str | None
    """``YYYY-MM-DD``: the first 10 characters of ``datetime``, else of ``date``; None when timeless."""
    when: str | None
    """``datetime`` (else ``date``) as released: the order within a day."""
    raw: dict[str, Any] = field(compare=False, hash=False)
    """The record as released."""

    @property
    def key(self) -> str:
        """``type:phone_id``, the id rows rank and evidence cites."""
        return f"{self.type}:{self.phone_id}"


@dataclass(frozen=True)
class Dangling:
    """One evidence entry that cites no record."""

    cited: str
    """``type:id`` when the entry names both, else the entry itself (cut to 80 characters)."""
    why: str
    """``not an object``, ``error field``, ``no type or id``, ``file absent`` or ``no such id``."""

    def to_dict(self) -> dict[str, str]:
        return {"cited": self.cited, "why": self.why}


@dataclass(frozen=True)
class Question:
    """One question of ``QA/QA_clean.json``, its evidence resolved by :mod:`.evidence`."""

    index: int
    """Position in the file."""
    question: str
    answer: str
    question_type: str
    ask_time: str
    """``YYYY-MM`` or ``YYYY-MM-DD`` as released."""
    asked: str
    """The question's time, ``YYYY-MM-DD``: the last day of its ``ask_time`` month, or its day."""
    options: tuple[tuple[str, str], ...]
    """``(letter, content)`` of a multiple-choice question; empty for an open one."""
    score_points: tuple[tuple[str, float], ...]
    """``(description, score)`` of the open answer's rubric."""
    raw_evidence: tuple[Any, ...]
    relevant: tuple[str, ...] = ()
    """Cited ``type:phone_id`` with a record in time, in citation order."""
    future: tuple[str, ...] = ()
    """Cited ``type:phone_id`` whose records are all dated after :attr:`asked`."""
    dangling: tuple[Dangling, ...] = ()
    """Evidence entries citing no record (one per entry)."""
    relevant_days: tuple[str, ...] = ()
    """The days of the relevant ids' records in time (``timeless`` for a record without a date)."""

    @property
    def question_id(self) -> str:
        return f"q{self.index:03d}"

    @property
    def choice(self) -> bool:
        """A multiple-choice question (its answer a letter)."""
        return bool(self.options)

    @property
    def cited_types(self) -> tuple[str, ...]:
        """The record types of its relevant ids, each once, sorted."""
        return tuple(sorted({key.split(":", 1)[0] for key in self.relevant}))


@dataclass(frozen=True)
class User:
    """One user's folder: records in time order, questions as released, what was absent or skipped."""

    name: str
    records: tuple[Record, ...]
    """Every dated record, by (day, time, type order, file position); timeless records first."""
    contacts: tuple[Record, ...]
    """``contact.json``'s rows (its ``phone_id`` or position as id; never dated)."""
    questions: tuple[Question, ...]
    absent: tuple[str, ...] = ()
    """``phone_data/<type>.json`` files this folder lacks."""
    skipped: tuple[str, ...] = ()
    """Bad records and questions left out (``skip_bad``), each as ``file: where: field: problem``."""
