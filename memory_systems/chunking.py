"""The MEME reference chunker, reproduced exactly (MEME paper's BM25).

A session becomes a header line ``[Session: <timestamp>]`` and one line per turn (``User: ...`` for
role "user", ``Assistant: ...`` for anything else). Lines are packed greedily into chunks, each
starting with the header; the budget counts cl100k tokens of the header plus each line separately
(joining newlines are not counted). A line is never split: one that alone exceeds the budget becomes
a chunk of its own, and a chunk is flushed only when it holds at least one line. Done this way the
retrieved context is byte-identical to the reference implementation's.
"""

from __future__ import annotations

from memsuite.memory_systems.records import Document, Session, Turn
from memsuite.memory_systems.tokens import count_tokens, count_tokens_batch

#: Default chunk budget in cl100k tokens (MEME reference).
CHUNK_TOKENS = 4096


def session_header(session: Session) -> str:
    """The header line that starts every chunk of ``session``."""
    return f"[Session: {session.timestamp}]"


def turn_line(turn: Turn) -> str:
    """``User: <content>`` for role "user", ``Assistant: <content>`` otherwise."""
    speaker = "User" if turn.role == "user" else "Assistant"
    return f"{speaker}: {turn.content}"


def chunk_session(session: Session, *, max_tokens: int = CHUNK_TOKENS) -> list[str]:
    """Pack a session's lines into chunks of at most ``max_tokens`` (see module docstring).

    Args:
        session: The session to chunk.
        max_tokens: Token budget per chunk, header included.

    Returns:
        The chunk texts in order; empty for a session without turns.
    """
    header = session_header(session)
    lines = [turn_line(turn) for turn in session.turns]
    if not lines:
        return []
    header_tokens = count_tokens(header)
    chunks: list[str] = []
    current: list[str] = []
    used = header_tokens
    for line, tokens in zip(lines, count_tokens_batch(lines), strict=True):
        if current and used + tokens > max_tokens:
            chunks.append("\n".join([header, *current]))
            current, used = [], header_tokens
        current.append(line)
        used += tokens
    chunks.append("\n".join([header, *current]))
    return chunks


def chunk_documents(session: Session, *, max_tokens: int = CHUNK_TOKENS) -> tuple[Document, ...]:
    """The chunks of :func:`chunk_session` as a session's documents (:attr:`Session.documents`)."""
    return tuple(Document(chunk) for chunk in chunk_session(session, max_tokens=max_tokens))
