"""LongMemEval records as the released files hold them, and the official retrieval corpus of one.

A record is one question with its own haystack: ``haystack_sessions`` (each a list of ``{role,
content}`` turns; evidence turns carry ``has_answer: true``), ``haystack_session_ids`` and
``haystack_dates`` aligned with it, ``answer_session_ids``, ``question_date``, ``question_type`` and
``answer`` (a string, or an integer in some records; for single-session-preference a rubric).
Abstention questions end their id in ``_abs``. The oracle, S and M files differ only in the haystack.

The corpus (:func:`corpus`) follows LongMemEval's retrieval code: user turns only. At granularity
``session`` one document per session, its user turns joined by a space; at ``turn`` one document per
user turn, id ``<session_id>_<n>`` with n counting every turn of the session from 1. A document of an
evidence session (its id contains ``answer``) keeps that id only when it holds an answer -- a session
with a user turn marked ``has_answer``, a turn so marked -- else every ``answer`` in its id becomes
``noans``; the relevant documents are those whose id still contains ``answer``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

#: Question types of the release (an ``_abs`` id is an abstention question of its type).
QUESTION_TYPES = (
    "single-session-user",
    "single-session-assistant",
    "single-session-preference",
    "multi-session",
    "knowledge-update",
    "temporal-reasoning",
)
GRANULARITIES = ("session", "turn")
#: Dates as the release writes them: "2023/04/10 (Mon) 23:07".
DATE_FORMAT = "%Y/%m/%d (%a) %H:%M"


@dataclass(frozen=True)
class Turn:
    """One turn of a haystack session."""

    role: str
    content: str
    has_answer: bool = False
    """The release's evidence mark (absent in the file reads as False)."""


@dataclass(frozen=True)
class HaystackSession:
    """One session of a question's haystack: its id, its date as the release writes it, its turns."""

    session_id: str
    date: str
    turns: tuple[Turn, ...]


@dataclass(frozen=True)
class LmeQuestion:
    """One LongMemEval question with its haystack, in the file's order."""

    question_id: str
    question_type: str
    question: str
    answer: str
    question_date: str
    sessions: tuple[HaystackSession, ...]
    answer_session_ids: tuple[str, ...]

    @property
    def abstention(self) -> bool:
        """An abstention question (its id ends in ``_abs``): the answer explains why none exists."""
        return self.question_id.endswith("_abs")

    def date_order(self) -> list[int]:
        """Haystack positions in date order (stable: sessions of the same minute keep the file's order)."""
        return sorted(range(len(self.sessions)), key=lambda i: parse_date(self.sessions[i].date))


@dataclass(frozen=True)
class CorpusDocument:
    """One document of a question's retrieval corpus."""

    corpus_id: str
    """The official id (``noans`` in place of ``answer`` when it holds no answer)."""
    text: str
    session_id: str
    date: str
    turn: int | None = None
    """Index of the turn in its session (0-based) at granularity ``turn``."""

    @property
    def relevant(self) -> bool:
        return "answer" in self.corpus_id


def parse_date(text: str) -> datetime:
    """A release date; an unreadable one sorts first rather than failing a run."""
    try:
        return datetime.strptime(text, DATE_FORMAT)  # noqa: DTZ007 -- the release's dates carry no zone
    except ValueError:
        return datetime.min  # noqa: DTZ901 -- compared only with the release's zone-less dates


def corpus(question: LmeQuestion, granularity: str) -> list[CorpusDocument]:
    """The question's retrieval corpus at ``granularity``, in haystack (file) order (module docstring)."""
    return [d for session in question.sessions for d in session_documents(session, granularity)]


def session_documents(session: HaystackSession, granularity: str) -> list[CorpusDocument]:
    """One session's part of the corpus (module docstring)."""
    if granularity not in GRANULARITIES:
        raise ValueError(f"granularity must be one of {GRANULARITIES}, got {granularity!r}")
    user = [(i, t) for i, t in enumerate(session.turns) if t.role == "user"]
    evidence = "answer" in session.session_id
    if granularity == "session":
        holds = not evidence or any(t.has_answer for _, t in user)
        corpus_id = session.session_id if holds else session.session_id.replace("answer", "noans")
        return [
            CorpusDocument(corpus_id, " ".join(t.content for _, t in user), session.session_id, session.date)
        ]
    documents = []
    for index, turn in user:
        corpus_id = f"{session.session_id}_{index + 1}"
        if evidence and not turn.has_answer:
            corpus_id = corpus_id.replace("answer", "noans")
        documents.append(CorpusDocument(corpus_id, turn.content, session.session_id, session.date, index))
    return documents
