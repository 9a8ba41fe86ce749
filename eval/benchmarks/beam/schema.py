"""BEAM records as the release holds them, and the documents a conversation is ingested as.

A conversation folder holds ``chat.json`` (a list of batches ``{batch_number, time_anchor, turns}``;
``turns`` a list of turns, each a list of messages ``{role, id, content, index?, time_anchor?,
question_type?}``) and ``probing_questions/probing_questions.json`` (``{ability: [question, ...]}``, two
per ability). A 10M conversation splits its chat into ``plan-<k>/chat.json`` parts, read in k order.
A message's ``id`` is unique in its conversation; ``source_chat_ids`` names evidence messages by id.

Documents (:func:`documents`), in conversation order, at one of three granularities:

- ``message`` (default): one document per message, id ``str(id)``, text the content exactly as released;
- ``turn``: a user message with the assistant reply that follows it, id the user message's id, text
  ``"user: <content>\\n\\nassistant: <content>"``; a message with no partner (an assistant message that
  follows no user message) is a document of its own under its own id;
- ``batch``: every message of a batch, ``"<role>: <content>"`` joined by a blank line, id
  ``batch-<batch_number>``.

A question's relevant documents are those holding one of its evidence messages (:func:`evidence_ids`:
``source_chat_ids`` flattened at any depth, as strings), each mapped to its document's id.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

#: The ten memory abilities, as the release names them (``probing_questions.json`` keys).
ABILITIES = (
    "abstention",
    "contradiction_resolution",
    "event_ordering",
    "information_extraction",
    "instruction_following",
    "knowledge_update",
    "multi_session_reasoning",
    "preference_following",
    "summarization",
    "temporal_reasoning",
)
#: Where each ability keeps its gold text.
GOLD_FIELDS = {
    "abstention": "ideal_response",
    "contradiction_resolution": "ideal_answer",
    "summarization": "ideal_summary",
    "instruction_following": "expected_compliance",
    "preference_following": "expected_compliance",
}
GOLD_FIELD_DEFAULT = "answer"
GRANULARITIES = ("message", "turn", "batch")
#: Scale folders of the release (``100K`` is the paper's 128K scale).
SCALES = ("100K", "500K", "1M", "10M")


def gold_field(ability: str) -> str:
    """The field holding ``ability``'s gold text."""
    return GOLD_FIELDS.get(ability, GOLD_FIELD_DEFAULT)


@dataclass(frozen=True)
class Message:
    """One message of a conversation, with where it sits."""

    id: str
    """``str`` of the release's id."""
    role: str
    content: str
    batch: int
    """The batch's ``batch_number``."""
    time_anchor: str | None
    """The latest time anchor at or before this message (its own, else its batch's, else an earlier
    message's): the date the conversation had reached; None before the first."""


@dataclass(frozen=True)
class BeamQuestion:
    """One probing question, as released (``record`` keeps every field)."""

    conversation: str
    """The conversation's id (``<scale>/<n>``)."""
    ability: str
    index: int
    """Its position in its ability's list (0-based)."""
    record: dict[str, Any]

    @property
    def question_id(self) -> str:
        return f"{self.ability}:{self.index}"

    @property
    def question(self) -> str:
        return str(self.record["question"])

    @property
    def gold(self) -> str:
        return str(self.record.get(gold_field(self.ability)) or "")

    @property
    def rubric(self) -> tuple[str, ...]:
        return tuple(self.record.get("rubric") or ())

    @property
    def evidence(self) -> tuple[str, ...]:
        """The evidence message ids, flattened, in first-seen order."""
        return evidence_ids(self.record.get("source_chat_ids"))


@dataclass(frozen=True)
class Document:
    """One document of a conversation at a granularity."""

    doc_id: str
    text: str
    role: str
    """``user``, ``assistant``, ``turn`` (a user message and its reply) or ``batch``."""
    batch: int
    time_anchor: str | None
    message_ids: tuple[str, ...]
    """The messages it holds."""


def evidence_ids(source: Any) -> tuple[str, ...]:
    """``source_chat_ids`` flattened at any depth (lists, dicts of lists), as strings, first-seen order."""
    out: dict[str, None] = {}

    def walk(value: Any) -> None:
        if value is None:
            return
        if isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list | tuple):
            for item in value:
                walk(item)
        else:
            out[str(value)] = None

    walk(source)
    return tuple(out)


def documents(messages: Iterable[Message], granularity: str) -> Iterator[Document]:
    """The conversation's documents at ``granularity``, in order (module docstring); streams."""
    if granularity not in GRANULARITIES:
        raise ValueError(f"granularity must be one of {GRANULARITIES}, got {granularity!r}")
    if granularity == "message":
        for m in messages:
            yield Document(m.id, m.content, m.role, m.batch, m.time_anchor, (m.id,))
        return
    if granularity == "turn":
        pending: Message | None = None
        for m in messages:
            if pending is not None and m.role == "assistant":
                text = f"user: {pending.content}\n\nassistant: {m.content}"
                yield Document(
                    pending.id, text, "turn", pending.batch, pending.time_anchor, (pending.id, m.id)
                )
                pending = None
                continue
            if pending is not None:
                yield _alone(pending)
                pending = None
            if m.role == "user":
                pending = m
            else:
                yield _alone(m)
        if pending is not None:
            yield _alone(pending)
        return
    batch: list[Message] = []
    for m in messages:
        if batch and m.batch != batch[0].batch:
            yield _batch(batch)
            batch = []
        batch.append(m)
    if batch:
        yield _batch(batch)


def _alone(m: Message) -> Document:
    return Document(m.id, f"{m.role}: {m.content}", m.role, m.batch, m.time_anchor, (m.id,))


def _batch(messages: list[Message]) -> Document:
    text = "\n\n".join(f"{m.role}: {m.content}" for m in messages)
    first = messages[0]
    return Document(
        f"batch-{first.batch}", text, "batch", first.batch, first.time_anchor, tuple(m.id for m in messages)
    )
