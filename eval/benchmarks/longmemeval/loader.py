"""Read LongMemEval files as released (oracle, S, M; ``.json`` or ``.json.gz``) in bounded memory.

The files are one JSON array of question records; M is about 2.7 GB. :class:`LmeFile` streams the
array once, record by record (never the whole file in memory; :mod:`memsuite.eval.data.json_stream`), checks
every record, and keeps only an index: for each selected question its type and where its record lies.
A question is parsed again when its unit runs (:meth:`LmeFile.question`), so memory holds one haystack
at a time. A plain file is read in place; the records of a gzip file are first copied, uncompressed and
selected ones only, to a temporary file that lives as long as the index.

Every record is checked before any work starts, and a malformed file is refused naming the file, the
record's index and the field: truncated JSON, a missing field, ``haystack_dates`` /
``haystack_session_ids`` / ``haystack_sessions`` of different lengths, a session that is not a list
of ``{role, content}`` turns, an unknown question type.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import weakref
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from memsuite.eval.benchmarks.longmemeval.schema import QUESTION_TYPES, HaystackSession, LmeQuestion, Turn
from memsuite.eval.data.json_stream import iter_raw_records
from memsuite.memory_systems.errors import ConfigError, DatasetError

_REQUIRED = (
    "question_id",
    "question_type",
    "question",
    "answer",
    "question_date",
    "haystack_dates",
    "haystack_session_ids",
    "haystack_sessions",
)


@dataclass(frozen=True)
class _Entry:
    question_type: str
    offset: int
    length: int


def check_record(record: Any, index: int, path: Path) -> str:
    """The record's question type; raises naming file, record and field when the record is malformed."""

    def bad(field: str, problem: str) -> DatasetError:
        return DatasetError(f"{path}: record {index}: field {field}: {problem}")

    if not isinstance(record, dict):
        raise DatasetError(f"{path}: record {index}: not a JSON object")
    for field in _REQUIRED:
        if field not in record:
            raise bad(field, "missing")
    qtype = record["question_type"]
    if qtype not in QUESTION_TYPES:
        raise bad("question_type", f"unknown type {qtype!r}; known: {', '.join(QUESTION_TYPES)}")
    for field in ("question_id", "question", "question_date"):
        if not isinstance(record[field], str):
            raise bad(field, "not a string")
    if not isinstance(record["answer"], str | int | float):
        raise bad("answer", "not a string or number")
    lists = {f: record[f] for f in ("haystack_dates", "haystack_session_ids", "haystack_sessions")}
    for field, value in lists.items():
        if not isinstance(value, list):
            raise bad(field, "not a list")
    lengths = {f: len(v) for f, v in lists.items()}
    if len(set(lengths.values())) != 1:
        raise bad("haystack_sessions", f"haystack lists differ in length ({lengths})")
    for s, session in enumerate(record["haystack_sessions"]):
        if not isinstance(session, list):
            raise bad(f"haystack_sessions[{s}]", "not a list of turns")
        for t, turn in enumerate(session):
            if not (isinstance(turn, dict) and isinstance(turn.get("role"), str)):
                raise bad(f"haystack_sessions[{s}][{t}]", "not a {role, content} turn")
            if not isinstance(turn.get("content"), str):
                raise bad(f"haystack_sessions[{s}][{t}].content", "missing or not a string")
    return qtype


def to_question(record: dict[str, Any]) -> LmeQuestion:
    """A checked record (:func:`check_record`) as a :class:`LmeQuestion`."""
    sessions = tuple(
        HaystackSession(
            str(session_id),
            str(date),
            tuple(Turn(t["role"], t["content"], bool(t.get("has_answer", False))) for t in turns),
        )
        for session_id, date, turns in zip(
            record["haystack_session_ids"], record["haystack_dates"], record["haystack_sessions"], strict=True
        )
    )
    return LmeQuestion(
        record["question_id"],
        record["question_type"],
        record["question"],
        str(record["answer"]),
        record["question_date"],
        sessions,
        tuple(str(s) for s in record.get("answer_session_ids") or ()),
    )


class LmeFile:
    """A released file, checked whole and indexed by question id; records parsed one at a time.

    Args:
        path: The file (``.json`` or ``.json.gz``), unchanged from the release.
        question_types: Only questions of these types (abstention questions count as their type).
        question_ids: Only these questions, in file order.
        per_type: At most this many questions of each type, the first in file order (a stratified
            subset).

    Raises:
        ConfigError: Unknown type, unknown question id, or a bad ``per_type``.
        DatasetError: The file is missing or malformed (file, record index and field named).
    """

    def __init__(
        self,
        path: str | Path,
        *,
        question_types: Sequence[str] | None = None,
        question_ids: Sequence[str] | None = None,
        per_type: int | None = None,
    ) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise DatasetError(f"{self.path}: file not found")
        for qtype in question_types or ():
            if qtype not in QUESTION_TYPES:
                raise ConfigError(
                    f"longmemeval: unknown question type {qtype!r}; known: {', '.join(QUESTION_TYPES)}"
                )
        if per_type is not None and (
            isinstance(per_type, bool) or not isinstance(per_type, int) or per_type < 1
        ):
            raise ConfigError(f"longmemeval per_type must be a positive integer or null, got {per_type!r}")
        wanted_ids = set(question_ids or ())
        self._entries: dict[str, _Entry] = {}
        self.counts: Counter[str] = Counter()
        """Question types of the whole file."""
        taken: Counter[str] = Counter()
        self._records_path = self.path
        spill = self._spill_file() if self.path.suffix == ".gz" else None
        for index, offset, raw, record in iter_raw_records(self.path):
            qtype = check_record(record, index, self.path)
            self.counts[qtype] += 1
            qid = record["question_id"]
            if qid in self._entries:
                raise DatasetError(f"{self.path}: record {index}: field question_id: {qid!r} appears twice")
            keep = (
                (not question_types or qtype in question_types)
                and (not wanted_ids or qid in wanted_ids)
                and (per_type is None or taken[qtype] < per_type)
            )
            if keep:
                taken[qtype] += 1
                if spill is not None:
                    self._entries[qid] = _Entry(qtype, spill.tell(), len(raw))
                    spill.write(raw)
                else:
                    self._entries[qid] = _Entry(qtype, offset, len(raw))
        if spill is not None:
            spill.close()
        missing = wanted_ids - set(self._entries)
        if missing:
            raise ConfigError(f"longmemeval: question ids not in {self.path}: {', '.join(sorted(missing))}")

    def _spill_file(self) -> IO[bytes]:
        folder = tempfile.mkdtemp(prefix="memsuite-longmemeval-")
        weakref.finalize(self, shutil.rmtree, folder, ignore_errors=True)
        self._records_path = Path(folder) / "records.json"
        return self._records_path.open("wb")

    @property
    def ids(self) -> list[str]:
        """Selected question ids, in file order."""
        return list(self._entries)

    def question_type(self, question_id: str) -> str:
        return self._entries[question_id].question_type

    def question(self, question_id: str) -> LmeQuestion:
        """The question's record, read and parsed now (one haystack in memory at a time)."""
        entry = self._entries[question_id]
        with self._records_path.open("rb") as handle:
            handle.seek(entry.offset)
            return to_question(json.loads(handle.read(entry.length)))
