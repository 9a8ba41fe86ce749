"""What REALTALK's evidence citations come to, per chat, from a run's rows (one system's).

Per chat: its questions, the dangling ids (cited ids naming no message of the chat, with the
question citing each) and their count, and the questions left unscored for retrieval (no cited id
the chat holds). Totals sum the chats. The rows carry ``metadata.relevant`` and ``metadata.dangling``
(:mod:`.evidence`), so a report reads the same figures from any run.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from memsuite.eval.protocol import Row


def evidence_diagnostics(rows: Iterable[Row]) -> dict[str, Any]:
    """``{"chats": {chat: {...}}, "dangling", "unscored", "questions"}`` (module docstring)."""
    chats: dict[str, dict[str, Any]] = {}
    for row in rows:
        chat = chats.setdefault(
            row.unit_id, {"questions": 0, "dangling": 0, "dangling_ids": [], "unscored": []}
        )
        chat["questions"] += 1
        dangling = list(row.metadata.get("dangling") or [])
        chat["dangling"] += len(dangling)
        chat["dangling_ids"] += [{"question": row.question_id, "id": d} for d in dangling]
        if not row.metadata.get("relevant"):
            chat["unscored"].append(row.question_id)
    return {
        "chats": chats,
        "questions": sum(c["questions"] for c in chats.values()),
        "dangling": sum(c["dangling"] for c in chats.values()),
        "unscored": sum(len(c["unscored"]) for c in chats.values()),
    }
