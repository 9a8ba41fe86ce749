"""Read LoCoMo's released ``locomo10.json`` (or a subset of its items) into :mod:`.schema` records.

Released layout (snap-research/LoCoMo ``data/locomo10.json``): a JSON array of items with
``sample_id``, ``conversation``, ``qa`` (and ``event_summary``, ``observation``, ``session_summary``,
unused here). ``conversation`` holds ``speaker_a``, ``speaker_b`` and, per session N, ``session_N`` (a
list of turns ``{speaker, dia_id, text}`` plus ``blip_caption``/``img_url``/``query`` for shared
images) and ``session_N_date_time``. Sessions are ordered by N as a number (``session_10`` after
``session_9``). A QA item has ``question``, ``category`` (1-5), ``evidence`` (dia_ids), ``answer`` (a
string or a number) and, in category 5, ``adversarial_answer`` (usually instead of ``answer``).

Malformed evidence ids are repaired where one reading is unambiguous and names a turn of the
conversation, else dropped; either way they are counted (:class:`~.schema.EvidenceRepairs`), never
fatal. Seen in the release: ``"D8:6; D9:17"`` (two ids in one string: split), ``"D:11:26"`` (a stray
colon: ``D11:26``), a bare ``"D"`` (dropped). Parentheses are stripped as the released
``evaluation_stats.py`` does. A well-formed id naming no turn is kept (it counts as not retrieved, as
in LoCoMo's recall) and counted as ``unknown``.

Anything else malformed is a :class:`~memsuite.memory_systems.errors.DatasetError` naming the file, the
conversation (index and ``sample_id``), the question index and the field, raised before any work.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from memsuite.eval.benchmarks.locomo.schema import (
    ADVERSARIAL,
    CATEGORY_NAMES,
    Conversation,
    EvidenceRepairs,
    Question,
    Session,
    Turn,
)
from memsuite.memory_systems.errors import DatasetError

_WELL_FORMED = re.compile(r"D(\d+):(\d+)")
_LENIENT = re.compile(r"D\s*:?\s*(\d+)\s*:\s*(\d+)")
_SESSION_KEY = re.compile(r"session_(\d+)")


def _fail(path: Path, where: str, field: str, problem: str) -> DatasetError:
    return DatasetError(f"{path}: {where}: field '{field}': {problem}")


def _text(value: Any) -> bool:
    return isinstance(value, str)


def repair_evidence(
    raw: list[str], known: set[str], repairs: EvidenceRepairs, *, sample_id: str, question: int
) -> tuple[str, ...]:
    """The well-formed evidence ids of one question, repairing or dropping malformed entries.

    Args:
        raw: The released evidence list.
        known: Every dia_id of the conversation.
        repairs: Counts updated in place.
        sample_id: For the repair log.
        question: Question index, for the repair log.
    """
    ids: list[str] = []
    for entry in raw:
        match = _WELL_FORMED.fullmatch(entry)
        if match:
            canonical = f"D{int(match[1])}:{int(match[2])}"
            if canonical != entry:  # leading zeros: one reading
                repairs.repaired += 1
                repairs.examples.append(_log(sample_id, question, entry, "repaired", [canonical]))
            elif canonical not in known:
                repairs.unknown += 1
                repairs.examples.append(_log(sample_id, question, entry, "unknown", [canonical]))
            ids.append(canonical)
            continue
        found = []
        for part in re.split(r"[;,\s]+(?=D)", entry.replace("(", "").replace(")", "").strip()):
            lenient = _LENIENT.fullmatch(part.strip())
            if lenient and f"D{int(lenient[1])}:{int(lenient[2])}" in known:
                found.append(f"D{int(lenient[1])}:{int(lenient[2])}")
        if found:
            repairs.repaired += 1
            ids.extend(found)
        else:
            repairs.dropped += 1
        repairs.examples.append(_log(sample_id, question, entry, "repaired" if found else "dropped", found))
    return tuple(dict.fromkeys(ids))


def _log(sample_id: str, question: int, raw: str, action: str, ids: list[str]) -> dict[str, Any]:
    return {"sample_id": sample_id, "question": question, "raw": raw, "action": action, "ids": ids}


def _sessions(path: Path, where: str, conversation: dict[str, Any]) -> tuple[Session, ...]:
    numbers = sorted(int(m[1]) for key in conversation if (m := _SESSION_KEY.fullmatch(key)))
    sessions = []
    for number in numbers:
        key = f"session_{number}"
        turns_raw = conversation[key]
        if not isinstance(turns_raw, list):
            raise _fail(
                path, where, f"conversation.{key}", f"expected a list of turns, got {turns_raw!r:.80}"
            )
        if not turns_raw:
            continue  # an empty session carries nothing to ingest
        date_time = conversation.get(f"{key}_date_time")
        if not _text(date_time) or not date_time.strip():
            raise _fail(
                path, where, f"conversation.{key}_date_time", f"missing or not a string: {date_time!r}"
            )
        turns = []
        for t, turn in enumerate(turns_raw):
            at = f"conversation.{key}[{t}]"
            if not isinstance(turn, dict):
                raise _fail(path, where, at, f"expected an object, got {turn!r:.80}")
            for name in ("speaker", "dia_id", "text"):
                if not _text(turn.get(name)):
                    raise _fail(
                        path, where, f"{at}.{name}", f"missing or not a string: {turn.get(name)!r:.80}"
                    )
            caption = turn.get("blip_caption")
            if caption is not None and not _text(caption):
                raise _fail(path, where, f"{at}.blip_caption", f"expected a string, got {caption!r:.80}")
            turns.append(Turn(turn["dia_id"], turn["speaker"], turn["text"], caption or None))
        sessions.append(Session(number, date_time, tuple(turns)))
    if not sessions:
        raise _fail(path, where, "conversation", "no non-empty session_N")
    return tuple(sessions)


def _question(path: Path, where: str, index: int, item: Any) -> tuple[str, int, Any, Any, list[str]]:
    at = f"{where}: qa[{index}]"
    if not isinstance(item, dict):
        raise DatasetError(f"{path}: {at}: expected an object, got {item!r:.80}")
    question, category = item.get("question"), item.get("category")
    if not _text(question) or not question.strip():
        raise _fail(path, at, "question", f"missing or not a string: {question!r:.80}")
    if isinstance(category, bool) or category not in CATEGORY_NAMES:
        raise _fail(path, at, "category", f"expected 1-5, got {category!r}")
    evidence = item.get("evidence", [])
    if not isinstance(evidence, list) or not all(_text(e) for e in evidence):
        raise _fail(path, at, "evidence", f"expected a list of strings, got {evidence!r:.80}")
    answer = item.get("answer")
    if answer is None and category != ADVERSARIAL:
        raise _fail(path, at, "answer", "missing (only category 5 items may lack it)")
    if answer is not None and (isinstance(answer, bool) or not isinstance(answer, str | int | float)):
        raise _fail(path, at, "answer", f"expected a string or a number, got {answer!r:.80}")
    adversarial = item.get("adversarial_answer")
    if adversarial is not None and (
        isinstance(adversarial, bool) or not isinstance(adversarial, str | int | float)
    ):
        raise _fail(path, at, "adversarial_answer", f"expected a string, got {adversarial!r:.80}")
    return question, category, answer, adversarial, evidence


def load_conversations(path: str | Path) -> tuple[list[Conversation], EvidenceRepairs]:
    """Read a released LoCoMo file (all of ``locomo10.json`` or a subset of its items, unchanged).

    Returns:
        The conversations in file order, and what was done to malformed evidence ids.

    Raises:
        DatasetError: The file is missing, not JSON, or a field is malformed (file, conversation,
            question index and field named).
    """
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DatasetError(f"{path}: LoCoMo file not found") from None
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{path}: not valid JSON: {exc}") from exc
    if not isinstance(data, list) or not data:
        raise DatasetError(f"{path}: expected a non-empty JSON array of conversations (locomo10.json)")
    repairs = EvidenceRepairs()
    conversations, seen = [], set()
    for c, item in enumerate(data):
        where = f"conversation {c}"
        if not isinstance(item, dict):
            raise DatasetError(f"{path}: {where}: expected an object, got {type(item).__name__}")
        sample_id = item.get("sample_id")
        if not _text(sample_id) or not sample_id:
            raise _fail(path, where, "sample_id", f"missing or not a string: {sample_id!r}")
        where = f"conversation {c} ({sample_id})"
        if sample_id in seen:
            raise _fail(path, where, "sample_id", "duplicate")
        seen.add(sample_id)
        conversation = item.get("conversation")
        if not isinstance(conversation, dict):
            raise _fail(path, where, "conversation", "missing or not an object")
        for name in ("speaker_a", "speaker_b"):
            if not _text(conversation.get(name)):
                raise _fail(
                    path,
                    where,
                    f"conversation.{name}",
                    f"missing or not a string: {conversation.get(name)!r}",
                )
        sessions = _sessions(path, where, conversation)
        known = {turn.dia_id for session in sessions for turn in session.turns}
        qa = item.get("qa")
        if not isinstance(qa, list):
            raise _fail(path, where, "qa", "missing or not a list")
        questions = []
        for q, entry in enumerate(qa):
            text, category, answer, adversarial, evidence = _question(path, where, q, entry)
            ids = repair_evidence(evidence, known, repairs, sample_id=sample_id, question=q)
            questions.append(
                Question(
                    index=q,
                    question=text,
                    category=category,
                    answer=None if answer is None else str(answer),
                    adversarial_answer=None if adversarial is None else str(adversarial),
                    evidence=ids,
                    raw_evidence=tuple(evidence),
                )
            )
        conversations.append(
            Conversation(
                sample_id, conversation["speaker_a"], conversation["speaker_b"], sessions, tuple(questions)
            )
        )
    return conversations, repairs
