"""REALTALK records: a chat (sessions of messages) and its memory-probing questions, as released.

Category numbers are the released file's; the release scores them with LoCoMo's per-category rules
(danny911kr/REALTALK ``eval_memory/qa_tool.py``) and LoCoMo's numbering, so their names are LoCoMo's
(:data:`memsuite.eval.retrieval_qa.categories.CATEGORY_NAMES`): 1 multi-hop, 2 temporal, 3
open-domain (commonsense or world knowledge with the chat). The release holds no category 4 or 5.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

#: Released category number -> name (module docstring).
CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain"}
#: Column order of the report's tables.
CATEGORY_ORDER = (1, 2, 3)


@dataclass(frozen=True)
class Message:
    """One message of a chat."""

    dia_id: str
    """``D<session>:<i>`` as released (the id evidence cites; not always the session it lies in)."""
    speaker: str
    text: str
    """``clean_text`` exactly as released."""
    sent: datetime
    """``date_time`` parsed (``29.12.2023, 22:42:04``)."""
    blip_caption: str | None = None
    """Caption of the image the speaker shared, where the release has one."""


@dataclass(frozen=True)
class Session:
    """One session (a day of the chat)."""

    number: int
    """N of ``session_N``."""
    date_time: str
    """``session_N_date_time`` as written (the first message's time when the key is absent)."""
    messages: tuple[Message, ...]


@dataclass(frozen=True)
class Question:
    """One memory-probing question, its evidence resolved by :mod:`.evidence`."""

    index: int
    """Position in the chat's ``qa`` list."""
    question: str
    answer: str
    category: int
    raw_evidence: tuple[str, ...]
    """The ``evidence`` strings as released."""
    relevant: tuple[str, ...]
    """Cited ids the chat holds, in citation order (the ids retrieval is scored against)."""
    dangling: tuple[str, ...]
    """Cited ids the chat does not hold (counted, never scored)."""

    @property
    def category_name(self) -> str:
        return CATEGORY_NAMES.get(self.category, f"category-{self.category}")

    @property
    def question_id(self) -> str:
        return f"q{self.index:03d}"


@dataclass(frozen=True)
class Chat:
    """One released file: its two speakers, sessions in numeric order, questions in released order."""

    chat_id: str
    """The file's stem, ``Chat_<n>_<A>_<B>``."""
    number: int
    """n of the file name."""
    speakers: tuple[str, str]
    sessions: tuple[Session, ...]
    questions: tuple[Question, ...]

    @property
    def messages(self) -> list[Message]:
        """Every message in chat order (sessions by number, messages as released)."""
        return [m for session in self.sessions for m in session.messages]
