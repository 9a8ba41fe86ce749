"""The documents a REALTALK chat is ingested as, at one of two granularities, in chat order:

- ``message`` (default): one document per message, id its ``dia_id``, text its ``clean_text`` exactly
  (with ``captions``, a shared image's caption follows on a line ``[shares <caption>]``);
- ``session``: one document per session, id ``session_<N>``, text every message as
  ``<speaker>: <clean_text>`` (and its caption line) on its own line.

A question's relevant documents are those holding one of its relevant messages (at session
granularity: the session the message lies in, whatever session its ``dia_id`` names).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from memsuite.eval.benchmarks.realtalk.schema import Message, Session

GRANULARITIES = ("message", "session")


@dataclass(frozen=True)
class Document:
    """One document of a chat."""

    doc_id: str
    text: str
    session: int
    date_time: str
    """The message's time (message granularity) or the session's date (session granularity)."""
    speaker: str | None
    """The message's speaker; None for a session document."""
    message_ids: tuple[str, ...]
    """The ``dia_id`` of every message it holds."""


def _caption(message: Message, captions: bool) -> str:
    return f"\n[shares {message.blip_caption}]" if captions and message.blip_caption else ""


def session_documents(session: Session, granularity: str, *, captions: bool = False) -> list[Document]:
    """One session's documents (module docstring)."""
    if granularity == "message":
        return [
            Document(
                m.dia_id,
                m.text + _caption(m, captions),
                session.number,
                m.sent.strftime("%d.%m.%Y %H:%M"),
                m.speaker,
                (m.dia_id,),
            )
            for m in session.messages
        ]
    if granularity == "session":
        text = "\n".join(f"{m.speaker}: {m.text}{_caption(m, captions)}" for m in session.messages)
        ids = tuple(m.dia_id for m in session.messages)
        return [Document(f"session_{session.number}", text, session.number, session.date_time, None, ids)]
    raise ValueError(f"granularity must be one of {', '.join(GRANULARITIES)}, got {granularity!r}")


def holders(documents: Iterable[Document]) -> dict[str, str]:
    """Message ``dia_id`` -> the id of the document holding it."""
    return {m: d.doc_id for d in documents for m in d.message_ids}


def relevant_documents(relevant: Iterable[str], holder: dict[str, str]) -> tuple[str, ...]:
    """The ids of the documents holding the relevant messages (``holder``: :func:`holders`), each once,
    in citation order."""
    return tuple(dict.fromkeys(holder[m] for m in relevant if m in holder))


def render(document_text: str, speaker: str | None, date_time: str) -> str:
    """A document as the answer model sees it: its time and speaker, then its text."""
    if speaker is None:
        return f"DATE: {date_time}\n{document_text}"
    return f"[{date_time}] {speaker}: {document_text}"
