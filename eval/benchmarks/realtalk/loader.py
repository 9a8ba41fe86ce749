"""Read REALTALK's released chat files (danny911kr/REALTALK ``data/Chat_<n>_<A>_<B>.json``).

A file holds ``name`` (``speaker_1``, ``speaker_2``), per session N ``session_N`` (a list of messages
``{clean_text, speaker, date_time, dia_id, img_file, img_url, blip_caption?}``),
``session_N_date_time`` and ``events_session_N`` (unused here), and ``qa`` (``question``, ``answer``,
``evidence``, ``category``). Sessions are ordered by N as a number, messages kept in released order;
``date_time`` (``29.12.2023, 22:42:04``) is parsed. Evidence strings are read by :mod:`.evidence`.

Data is named as the release's folder (every ``Chat_<n>_*.json`` in it, by n) or file by file.
Anything malformed is a :class:`~memsuite.memory_systems.errors.DatasetError` naming the file, the
message (session and index) or question (index) and the field, raised before any work.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from memsuite.eval.benchmarks.realtalk.evidence import resolve
from memsuite.eval.benchmarks.realtalk.schema import Chat, Message, Question, Session
from memsuite.memory_systems.errors import DatasetError

#: How ``date_time`` is written in the release.
DATE_FORMAT = "%d.%m.%Y, %H:%M:%S"
_FILE = re.compile(r"Chat_(\d+)_.*\.json")
_SESSION = re.compile(r"session_(\d+)")
_DIA_ID = re.compile(r"D\d+:\d+")


def _fail(path: Path, where: str, field: str, problem: str) -> DatasetError:
    return DatasetError(f"{path}: {where}: field '{field}': {problem}")


def chat_files(path: str | Path | Sequence[str | Path]) -> list[Path]:
    """The chat files ``path`` names: a folder's ``Chat_<n>_*.json`` by n, or the files given.

    Raises:
        DatasetError: A missing path, or a folder without chat files.
    """
    if not isinstance(path, str | Path):
        return [p for one in path for p in chat_files(one)]
    path = Path(path)
    if path.is_dir():
        found = sorted(
            (int(m[1]), p) for p in path.iterdir() if (m := _FILE.fullmatch(p.name)) and p.is_file()
        )
        if not found:
            raise DatasetError(f"{path}: no REALTALK chat file (Chat_<n>_<A>_<B>.json) in this folder")
        return [p for _, p in found]
    if not path.is_file():
        raise DatasetError(f"{path}: REALTALK chat file not found")
    return [path]


def _text(value: Any) -> bool:
    return isinstance(value, str)


def _message(path: Path, key: str, index: int, raw: Any) -> Message:
    where = f"{key}[{index}]"
    if not isinstance(raw, dict):
        raise DatasetError(f"{path}: {where}: expected a message object, got {raw!r:.80}")
    for name in ("clean_text", "speaker", "dia_id", "date_time"):
        if not _text(raw.get(name)):
            raise _fail(path, where, name, f"missing or not a string: {raw.get(name)!r:.80}")
    if not _DIA_ID.fullmatch(raw["dia_id"]):
        raise _fail(path, where, "dia_id", f"expected D<session>:<i>, got {raw['dia_id']!r}")
    try:
        sent = datetime.strptime(raw["date_time"], DATE_FORMAT)  # noqa: DTZ007 - released without a zone
    except ValueError:
        raise _fail(
            path, where, "date_time", f"expected DD.MM.YYYY, HH:MM:SS, got {raw['date_time']!r}"
        ) from None
    caption = raw.get("blip_caption")
    if caption is not None and not _text(caption):
        raise _fail(path, where, "blip_caption", f"expected a string, got {caption!r:.80}")
    return Message(raw["dia_id"], raw["speaker"], raw["clean_text"], sent, caption or None)


def _sessions(path: Path, data: dict[str, Any]) -> tuple[Session, ...]:
    numbers = sorted(int(m[1]) for key in data if (m := _SESSION.fullmatch(key)))
    sessions, seen = [], {}
    for number in numbers:
        key = f"session_{number}"
        raw = data[key]
        if not isinstance(raw, list):
            raise _fail(path, key, key, f"expected a list of messages, got {raw!r:.80}")
        messages = tuple(_message(path, key, i, m) for i, m in enumerate(raw))
        for i, message in enumerate(messages):
            if message.dia_id in seen:
                raise _fail(path, f"{key}[{i}]", "dia_id", f"{message.dia_id} repeats {seen[message.dia_id]}")
            seen[message.dia_id] = f"{key}[{i}]"
        if not messages:
            continue  # an empty session holds nothing to ingest or cite
        date_time = data.get(f"{key}_date_time", raw[0]["date_time"])
        if not _text(date_time):
            raise _fail(path, key, f"{key}_date_time", f"expected a string, got {date_time!r:.80}")
        sessions.append(Session(number, date_time, messages))
    if not sessions:
        raise _fail(path, "chat", "session_N", "no non-empty session")
    return tuple(sessions)


def _question(path: Path, index: int, raw: Any, held: set[str]) -> Question:
    where = f"qa[{index}]"
    if not isinstance(raw, dict):
        raise DatasetError(f"{path}: {where}: expected a question object, got {raw!r:.80}")
    question, answer, category = raw.get("question"), raw.get("answer"), raw.get("category")
    if not _text(question) or not question.strip():
        raise _fail(path, where, "question", f"missing or not a string: {question!r:.80}")
    if isinstance(answer, bool) or not isinstance(answer, str | int | float):
        raise _fail(path, where, "answer", f"expected a string or a number, got {answer!r:.80}")
    if isinstance(category, bool) or not isinstance(category, int) or category < 1:
        raise _fail(path, where, "category", f"expected a positive integer, got {category!r:.80}")
    evidence = raw.get("evidence")
    if not isinstance(evidence, list) or not all(_text(e) for e in evidence):
        raise _fail(path, where, "evidence", f"expected a list of strings, got {evidence!r:.80}")
    relevant, dangling = resolve(evidence, held)
    return Question(index, question, str(answer), category, tuple(evidence), relevant, dangling)


def load_chat(path: str | Path) -> Chat:
    """One released chat file.

    Raises:
        DatasetError: Missing, not JSON, or a malformed field (file, message or question, field named).
    """
    path = Path(path)
    match = _FILE.fullmatch(path.name)
    if match is None:
        raise DatasetError(f"{path}: not a REALTALK chat file name (Chat_<n>_<A>_<B>.json)")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DatasetError(f"{path}: REALTALK chat file not found") from None
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{path}: not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise DatasetError(f"{path}: expected a JSON object (one chat), got {type(data).__name__}")
    names = data.get("name")
    if not isinstance(names, dict) or not all(_text(names.get(k)) for k in ("speaker_1", "speaker_2")):
        raise _fail(path, "chat", "name", f"expected {{speaker_1, speaker_2}} strings, got {names!r:.80}")
    sessions = _sessions(path, data)
    held = {m.dia_id for s in sessions for m in s.messages}
    qa = data.get("qa")
    if not isinstance(qa, list):
        raise _fail(path, "chat", "qa", f"missing or not a list: {qa!r:.80}")
    questions = tuple(_question(path, i, q, held) for i, q in enumerate(qa))
    return Chat(path.stem, int(match[1]), (names["speaker_1"], names["speaker_2"]), sessions, questions)


def load_chats(path: str | Path | Sequence[str | Path]) -> list[Chat]:
    """Every chat ``path`` names (:func:`chat_files`), each file read whole before any work.

    Raises:
        DatasetError: As :func:`load_chat`, or two files of the same chat number.
    """
    chats, seen = [], {}
    for file in chat_files(path):
        chat = load_chat(file)
        if chat.number in seen:
            raise DatasetError(f"{file}: chat {chat.number} is also {seen[chat.number]}")
        seen[chat.number] = file
        chats.append(chat)
    return chats
