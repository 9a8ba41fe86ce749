"""Read BEAM conversations as released (``chats/<scale>/<n>/``; ``.json`` or ``.json.gz``), checked whole
before any work, the chats streamed batch by batch.

``data`` is a folder laid out as the release's ``chats/`` (scale folders holding numbered conversation
folders), one scale folder, or one conversation folder. A conversation folder holds ``chat.json`` (or
``chat.json.gz``), or, at the 10M scale, ``plan-<k>/chat.json`` parts read in k order, and
``probing_questions/probing_questions.json``.

Every selected conversation is checked when the data is opened, and a malformed one is refused naming
the file, the batch / turn / message or the question (ability and index), and the field: truncated
JSON (a cut gzip stream too), a message without ``role``, ``id`` or ``content``, an id seen twice, an
unknown ability, a question without ``question`` or ``rubric``, a ``source_chat_ids`` of the wrong
shape or naming no message of the conversation. The check streams each chat file once (one batch in
memory at a time, :func:`memsuite.eval.data.json_stream.iter_raw_records`) and keeps
only the ids; :meth:`Conversation.messages` streams it again when the unit runs, so a 10M-token
conversation never sits in memory whole.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memsuite.eval.benchmarks.beam.schema import ABILITIES, SCALES, BeamQuestion, Message, gold_field
from memsuite.eval.data.json_stream import iter_raw_records
from memsuite.memory_systems.errors import ConfigError, DatasetError

QUESTIONS_FILE = Path("probing_questions") / "probing_questions.json"
_CHAT_NAMES = ("chat.json", "chat.json.gz")
_PLAN = re.compile(r"plan-(\d+)$")
#: The paper calls the smallest scale 128K; the release's folder is ``100K``.
SCALE_ALIASES = {"128K": "100K"}


@dataclass(frozen=True)
class Conversation:
    """One checked conversation: where its files are, its size and its selected questions."""

    conversation_id: str
    """``<scale>/<n>`` (the folder's name alone for a folder outside a scale folder)."""
    scale: str
    chat_files: tuple[Path, ...]
    """``chat.json`` or its ``plan-<k>`` parts, in order."""
    questions_file: Path
    message_count: int
    questions: tuple[BeamQuestion, ...]
    """The selected questions, abilities in release order, each ability's in file order."""
    questions_in_file: int

    def messages(self) -> Iterator[Message]:
        """The messages in conversation order, streamed (one batch parsed at a time)."""
        anchor: str | None = None
        for path in self.chat_files:
            for _, _, _, batch in _batches(path):
                number = int(batch["batch_number"])
                anchor = batch.get("time_anchor") or anchor
                for turn in batch["turns"]:
                    for m in turn:
                        anchor = m.get("time_anchor") or anchor
                        yield Message(str(m["id"]), m["role"], m["content"], number, anchor)


def _batches(path: Path) -> Iterator[tuple[int, int, bytes, Any]]:
    try:
        yield from iter_raw_records(path)
    except DatasetError as exc:
        raise DatasetError(f"{exc} (a BEAM chat: a JSON array of batches; 'record' = batch)") from exc


def _natural(name: str) -> tuple[int, str]:
    return (int(name), "") if name.isdigit() else (1 << 30, name)


def chat_files(folder: Path) -> tuple[Path, ...]:
    """The chat of a conversation folder: ``chat.json(.gz)``, else its ``plan-<k>`` parts in k order.

    Raises:
        DatasetError: Neither is there.
    """
    for name in _CHAT_NAMES:
        if (folder / name).is_file():
            return (folder / name,)
    parts = sorted(
        (int(found.group(1)), p) for p in folder.iterdir() if p.is_dir() and (found := _PLAN.match(p.name))
    )
    files = []
    for k, part in parts:
        chat = next((part / n for n in _CHAT_NAMES if (part / n).is_file()), None)
        if chat is None:
            raise DatasetError(f"{part}: plan part {k} holds no chat.json or chat.json.gz")
        files.append(chat)
    if not files:
        raise DatasetError(f"{folder}: no chat.json, chat.json.gz or plan-<k>/chat.json")
    return tuple(files)


def is_conversation(folder: Path) -> bool:
    """Whether ``folder`` is one conversation (it holds probing questions or a chat)."""
    return (folder / QUESTIONS_FILE).is_file() or any((folder / n).is_file() for n in _CHAT_NAMES)


def scale_name(folder: str) -> str:
    """The scale a folder holds: a release scale folder's name (``100K``; ``128K`` names it too), or a
    data catalogue folder's (``beam_500k`` is ``500K``); any other name is kept."""
    name = folder.upper().removeprefix("BEAM_").removeprefix("BEAM-")
    name = SCALE_ALIASES.get(name, name)
    return name if name in SCALES else folder


def _holds_conversation(folder: Path) -> bool:
    return is_conversation(folder) or any(_PLAN.match(p.name) for p in folder.iterdir() if p.is_dir())


def discover(data: Path) -> list[tuple[str, str, Path]]:
    """``(conversation id, scale, folder)`` of every conversation under ``data``, scales in release
    order, conversations in number order.

    Raises:
        DatasetError: ``data`` is missing, or holds no conversation.
    """
    if not data.is_dir():
        raise DatasetError(f"{data}: not a folder (BEAM data is a chats/ folder or one conversation folder)")
    if is_conversation(data):
        scale = scale_name(data.parent.name) if scale_name(data.parent.name) in SCALES else ""
        return [(f"{scale}/{data.name}" if scale else data.name, scale, data)]
    found = []
    children = [p for p in data.iterdir() if p.is_dir()]
    # A scale folder (``chats/100K``) holds conversations; a ``chats/`` folder holds scale folders.
    scales = [data] if any(_holds_conversation(p) for p in children) else children
    order = {s: i for i, s in enumerate(SCALES)}
    for scale in sorted(scales, key=lambda p: (order.get(scale_name(p.name), len(order)), p.name)):
        name = scale_name(scale.name)
        for folder in sorted((p for p in scale.iterdir() if p.is_dir()), key=lambda p: _natural(p.name)):
            if _holds_conversation(folder):
                found.append((f"{name}/{folder.name}", name, folder))
    if not found:
        raise DatasetError(f"{data}: no BEAM conversation (expected <scale>/<n>/chat.json[.gz] folders)")
    return found


def check_chat(path: Path, seen: set[str]) -> int:
    """Check one chat file, adding its message ids to ``seen``; returns its message count.

    Raises:
        DatasetError: Naming the file, batch, turn and message, and the field.
    """
    count = 0
    for b, _, _, batch in _batches(path):
        where = f"{path}: batch {b}"
        if not isinstance(batch, dict):
            raise DatasetError(f"{where}: not a JSON object")
        if not isinstance(batch.get("batch_number"), int) or isinstance(batch.get("batch_number"), bool):
            raise DatasetError(f"{where}: field batch_number: missing or not an integer")
        if not isinstance(batch.get("turns"), list):
            raise DatasetError(f"{where}: field turns: missing or not a list")
        for t, turn in enumerate(batch["turns"]):
            if not isinstance(turn, list):
                raise DatasetError(f"{where} turn {t}: not a list of messages")
            for m, message in enumerate(turn):
                at = f"{where} turn {t} message {m}"
                if not isinstance(message, dict):
                    raise DatasetError(f"{at}: not a JSON object")
                for field in ("role", "content"):
                    if not isinstance(message.get(field), str):
                        raise DatasetError(f"{at}: field {field}: missing or not a string")
                identifier = message.get("id")
                if isinstance(identifier, bool) or not isinstance(identifier, int | str):
                    raise DatasetError(f"{at}: field id: missing or not an integer or string")
                key = str(identifier)
                if key in seen:
                    raise DatasetError(f"{at}: field id: {identifier!r} appears twice in the conversation")
                seen.add(key)
                count += 1
    return count


def _check_ids(value: Any, where: str) -> None:
    """``source_chat_ids`` holds ids (integers or strings) in lists, possibly nested, or a dict of those."""
    if value is None:
        return
    if isinstance(value, dict):
        for key, item in value.items():
            _check_ids(item, f"{where}.{key}")
        return
    if isinstance(value, list):
        for i, item in enumerate(value):
            _check_ids(item, f"{where}[{i}]")
        return
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise DatasetError(f"{where}: {value!r} is not a message id")


def read_questions(path: Path, conversation: str, ids: set[str]) -> list[BeamQuestion]:
    """Every question of a ``probing_questions.json``, checked against the conversation's message ids.

    Raises:
        DatasetError: Naming the file, the ability and index, and the field.
    """
    if not path.is_file():
        raise DatasetError(f"{path}: probing questions not found")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{path}: invalid JSON ({exc.msg} at line {exc.lineno})") from exc
    if not isinstance(data, dict):
        raise DatasetError(f"{path}: not a JSON object of abilities")
    out = []
    for ability, questions in data.items():
        if ability not in ABILITIES:
            raise DatasetError(f"{path}: ability {ability!r}: unknown; known: {', '.join(ABILITIES)}")
        if not isinstance(questions, list):
            raise DatasetError(f"{path}: {ability}: not a list of questions")
        for index, record in enumerate(questions):
            where = f"{path}: {ability} question {index}"
            if not isinstance(record, dict):
                raise DatasetError(f"{where}: not a JSON object")
            if not isinstance(record.get("question"), str):
                raise DatasetError(f"{where}: field question: missing or not a string")
            rubric = record.get("rubric")
            if not isinstance(rubric, list) or not all(isinstance(r, str) for r in rubric):
                raise DatasetError(f"{where}: field rubric: missing or not a list of strings")
            gold = gold_field(ability)
            if not isinstance(record.get(gold), str | int | float):
                raise DatasetError(f"{where}: field {gold}: missing or not a string")
            _check_ids(record.get("source_chat_ids"), f"{where}: field source_chat_ids")
            question = BeamQuestion(conversation, ability, index, record)
            unknown = [i for i in question.evidence if i not in ids]
            if unknown:
                raise DatasetError(
                    f"{where}: field source_chat_ids: {', '.join(unknown)} names no message of the "
                    f"conversation ({len(ids)} messages)"
                )
            out.append(question)
    order = {a: i for i, a in enumerate(ABILITIES)}
    return sorted(out, key=lambda q: (order[q.ability], q.index))


def _canonical_chat(name: str) -> str:
    scale, _, number = name.replace("-", "/").partition("/")
    return f"{SCALE_ALIASES.get(scale, scale)}/{number}" if number else name


class BeamData:
    """The selected conversations of a BEAM folder, every one checked (module docstring).

    Args:
        data: A ``chats/``-shaped folder or one conversation folder.
        scales: Only these scale folders (``128K`` names ``100K``).
        chats: Only these conversations (``"100K/1"``), in this order.
        abilities: Only questions of these abilities.
        per_ability: At most this many questions of each ability per conversation, the first in file
            order.

    Raises:
        ConfigError: An unknown scale, conversation or ability, or a bad ``per_ability``.
        DatasetError: A missing or malformed file (file, place and field named).
    """

    def __init__(
        self,
        data: str | Path,
        *,
        scales: Sequence[str] | None = None,
        chats: Sequence[str] | None = None,
        abilities: Sequence[str] | None = None,
        per_ability: int | None = None,
    ) -> None:
        self.path = Path(data)
        for ability in abilities or ():
            if ability not in ABILITIES:
                raise ConfigError(f"beam: unknown ability {ability!r}; known: {', '.join(ABILITIES)}")
        if per_ability is not None and (
            isinstance(per_ability, bool) or not isinstance(per_ability, int) or per_ability < 1
        ):
            raise ConfigError(f"beam per_ability must be a positive integer or null, got {per_ability!r}")
        found = discover(self.path)
        known_scales = list(dict.fromkeys(s for _, s, _ in found))
        wanted_scales = [SCALE_ALIASES.get(s, s) for s in scales or ()]
        for scale in wanted_scales:
            if scale not in known_scales:
                raise ConfigError(
                    f"beam: no scale {scale!r} in {self.path}; found: {', '.join(known_scales)}"
                )
        selected = [f for f in found if not wanted_scales or f[1] in wanted_scales]
        if chats:
            by_id = {f[0]: f for f in selected}
            wanted = [_canonical_chat(c) for c in chats]
            missing = [c for c in wanted if c not in by_id]
            if missing:
                raise ConfigError(
                    f"beam: conversations not in {self.path}: {', '.join(missing)} "
                    f"(known: {', '.join(by_id) or 'none'})"
                )
            selected = [by_id[c] for c in dict.fromkeys(wanted)]
        self.conversations: dict[str, Conversation] = {}
        for conversation_id, scale, folder in selected:
            files = chat_files(folder)
            ids: set[str] = set()
            count = sum(check_chat(path, ids) for path in files)
            questions = read_questions(folder / QUESTIONS_FILE, conversation_id, ids)
            kept = [q for q in questions if not abilities or q.ability in abilities]
            if per_ability is not None:
                kept = [q for q in kept if q.index < per_ability]
            self.conversations[conversation_id] = Conversation(
                conversation_id, scale, files, folder / QUESTIONS_FILE, count, tuple(kept), len(questions)
            )

    @property
    def ids(self) -> list[str]:
        """Selected conversation ids, in order."""
        return list(self.conversations)
