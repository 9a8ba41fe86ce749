"""Read LifeBench's released user folders (1754955896/LifeBench ``life_bench_data/data_en/<user>/``).

A user folder holds ``QA/QA_clean.json`` (a list of questions ``{question, answer, question_type,
ask_time, evidence, score_points, options?}``) and ``phone_data/<type>.json`` (a list of records per
type, :data:`~.schema.RECORD_TYPES`); ``persona.json`` and the generator's outlines are not read (a
phone does not hold them). Data is named as a folder of user folders (every sub-folder holding ``QA/``
or ``phone_data/``, by name) or as one user folder.

A ``phone_data`` file the folder lacks is absent: its records are not there and citations of them
dangle (what a partial download looks like); the user records which. Anything malformed -- a folder
without ``QA/QA_clean.json``, a dated record without ``phone_id``, a record whose ``type`` is not its
file's, a ``datetime`` that does not start with a day, an ``ask_time`` that is neither ``YYYY-MM`` nor
``YYYY-MM-DD`` -- is a :class:`~memsuite.memory_systems.errors.DatasetError` naming the file, the index
and the field, raised before any work; with ``skip_bad`` the record or question is left out instead and
counted (:attr:`~.schema.User.skipped`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from memsuite.eval.benchmarks.lifebench.clock import question_time, record_day
from memsuite.eval.benchmarks.lifebench.evidence import index_records, resolve
from memsuite.eval.benchmarks.lifebench.schema import DATED_TYPES, RECORD_TYPES, Question, Record, User
from memsuite.memory_systems.errors import DatasetError

QA_FILE = "QA/QA_clean.json"


class _Bad(Exception):
    """One malformed record or question: skipped with ``skip_bad``, else raised as a DatasetError."""


def _fail(path: Path, where: str, field: str, problem: str) -> _Bad:
    return _Bad(f"{path}: {where}: field '{field}': {problem}")


def _read_list(path: Path) -> list[Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{path}: not valid JSON: {exc}") from exc
    if not isinstance(data, list):
        raise DatasetError(f"{path}: expected a JSON list, got {type(data).__name__}")
    return data


def _record(path: Path, kind: str, index: int, raw: Any) -> Record:
    where = f"[{index}]"
    if not isinstance(raw, dict):
        raise _Bad(f"{path}: {where}: expected a record object, got {raw!r:.80}")
    declared = raw.get("type", kind)
    if declared != kind:
        raise _fail(path, where, "type", f"unknown record type {declared!r} in {kind}.json")
    phone_id = raw.get("phone_id")
    if isinstance(phone_id, bool) or not isinstance(phone_id, int | str) or phone_id == "":
        if kind in DATED_TYPES:
            raise _fail(path, where, "phone_id", f"missing or not an int or string: {phone_id!r:.80}")
        phone_id = index  # a contact without an id is known by its place
    day, when = record_day(raw)
    if when is not None and day is None:
        field = "datetime" if isinstance(raw.get("datetime"), str) and raw["datetime"] else "date"
        raise _fail(path, where, field, f"expected YYYY-MM-DD..., got {when!r:.80}")
    return Record(kind, str(phone_id), index, day, when, raw)


def _pairs(path: Path, where: str, raw: Any, name: str, keys: tuple[str, str]) -> list[tuple[Any, Any]]:
    if raw is None:
        return []
    if not isinstance(raw, list) or not all(isinstance(x, dict) and keys[0] in x for x in raw):
        raise _fail(path, where, name, f"expected a list of {{{', '.join(keys)}}}, got {raw!r:.80}")
    return [(x.get(keys[0]), x.get(keys[1])) for x in raw]


def _question(path: Path, index: int, raw: Any) -> Question:
    where = f"[{index}]"
    if not isinstance(raw, dict):
        raise _Bad(f"{path}: {where}: expected a question object, got {raw!r:.80}")
    for name in ("question", "question_type", "ask_time"):
        if not isinstance(raw.get(name), str) or not raw[name].strip():
            raise _fail(path, where, name, f"missing or not a string: {raw.get(name)!r:.80}")
    answer = raw.get("answer")
    if isinstance(answer, bool) or not isinstance(answer, str | int | float):
        raise _fail(path, where, "answer", f"expected a string or a number, got {answer!r:.80}")
    asked = question_time(raw["ask_time"])
    if asked is None:
        raise _fail(path, where, "ask_time", f"expected YYYY-MM or YYYY-MM-DD, got {raw['ask_time']!r}")
    evidence = raw.get("evidence", [])
    if not isinstance(evidence, list):
        raise _fail(path, where, "evidence", f"expected a list, got {evidence!r:.80}")
    options = _pairs(path, where, raw.get("options"), "options", ("option", "content"))
    points = _pairs(path, where, raw.get("score_points"), "score_points", ("description", "score"))
    for _, score in points:
        if isinstance(score, bool) or not isinstance(score, int | float) or score < 0:
            raise _fail(path, where, "score_points", f"a score must be a number >= 0, got {score!r:.80}")
    return Question(
        index=index,
        question=raw["question"],
        answer=str(answer),
        question_type=raw["question_type"],
        ask_time=raw["ask_time"],
        asked=asked,
        options=tuple((str(letter), str(content)) for letter, content in options),
        score_points=tuple((str(text), float(score)) for text, score in points),
        raw_evidence=tuple(evidence),
    )


def _each(path: Path, items: list[Any], read: Any, skip_bad: bool, skipped: list[str]) -> list[Any]:
    out = []
    for index, raw in enumerate(items):
        try:
            out.append(read(index, raw))
        except _Bad as exc:
            if not skip_bad:
                raise DatasetError(str(exc)) from None
            skipped.append(str(exc))
    return out


def load_user(folder: str | Path, *, skip_bad: bool = False) -> User:
    """One user folder (module docstring).

    Raises:
        DatasetError: No such folder, no ``QA/QA_clean.json``, or a malformed file, record or question
            (file, index and field named) unless ``skip_bad``.
    """
    folder = Path(folder)
    qa = folder / QA_FILE
    if not qa.is_file():
        raise DatasetError(f"{qa}: LifeBench question file not found (a user folder holds {QA_FILE})")
    skipped: list[str] = []
    records: list[Record] = []
    contacts: list[Record] = []
    absent = []
    for kind in RECORD_TYPES:
        path = folder / "phone_data" / f"{kind}.json"
        if not path.is_file():
            absent.append(f"phone_data/{kind}.json")
            continue
        if kind == "fitness_health":
            _read_list(path)  # read for its shape only: a table of daily figures, not ingested
            continue
        items = _read_list(path)
        read = _each(path, items, lambda i, r, p=path, k=kind: _record(p, k, i, r), skip_bad, skipped)
        (contacts if kind == "contact" else records).extend(read)
    order = {kind: i for i, kind in enumerate(DATED_TYPES)}
    records.sort(key=lambda r: (r.day is not None, r.day or "", r.when or "", order[r.type], r.index))
    questions = _each(qa, _read_list(qa), lambda i, r: _question(qa, i, r), skip_bad, skipped)
    held = index_records(records)
    present = [k for k in DATED_TYPES if f"phone_data/{k}.json" not in absent]
    resolved = []
    for question in questions:
        found = resolve(question.raw_evidence, held, present, question.asked)
        resolved.append(
            Question(
                **{
                    **question.__dict__,
                    "relevant": found.relevant,
                    "future": found.future,
                    "dangling": found.dangling,
                    "relevant_days": found.relevant_days,
                }
            )
        )
    return User(folder.name, tuple(records), tuple(contacts), tuple(resolved), tuple(absent), tuple(skipped))


def user_folders(path: str | Path) -> list[Path]:
    """The user folders ``path`` names: itself when it holds ``QA/`` or ``phone_data/``, else its
    sub-folders that do, by name.

    Raises:
        DatasetError: A missing path, or a folder holding no user folder.
    """
    path = Path(path)
    if not path.is_dir():
        raise DatasetError(f"{path}: LifeBench data folder not found")

    def is_user(p: Path) -> bool:
        return (p / "QA").is_dir() or (p / "phone_data").is_dir()

    if is_user(path):
        return [path]
    found = sorted(p for p in path.iterdir() if p.is_dir() and is_user(p))
    if not found:
        raise DatasetError(f"{path}: no LifeBench user folder (<user>/QA/, <user>/phone_data/) here")
    return found


def load_users(path: str | Path, *, skip_bad: bool = False) -> list[User]:
    """Every user ``path`` names (:func:`user_folders`), each read whole before any work."""
    return [load_user(folder, skip_bad=skip_bad) for folder in user_folders(path)]
