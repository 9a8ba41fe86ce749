"""Read WMB-100K files into the records of :mod:`memsuite.eval.benchmarks.wmb.schema`, validating every field.

Released layout (public repository wontopos/WMB-100K, commit 436cba8, read through the code index):

- ``datasets/{category}.jsonl``: one turn per line, ``{turn_id, category, speaker, text,
  embedded_facts, fact_type}``, for the ten categories of ``datasets/meta.json`` (daily_life,
  relationships, work_career, health_fitness, travel_places, media_taste, finance_goals,
  education_skills, pets_hobbies, beliefs_values); ~10.5K lines each, 105,591 in all. The README's
  example line lacks ``category`` and ``fact_type``, and the reference Rust types (src/types.rs)
  default ``embedded_facts`` to [] and ``fact_type`` to null, so only ``turn_id``, ``speaker`` and
  ``text`` are required here; ``category`` defaults to the file's category.
- ``datasets/all_questions.json``: one JSON array of 2,708 questions (Part A 1,200 with ids
  ``{domain}.DOC.{qtype}.NNN``, Part B 1,508; 400 FalseMemory probes, 200 of them in each part).
- ``datasets/meta.json``: version, categories, document domains, counts, judge models.
- ``documents/{domain}.txt``: Part A, one plain-text file per domain (daily_life, economics,
  history, law, literature, medicine, philosophy, psychology, science, technology), Wikipedia
  articles concatenated, each under a banner ``"\\n" + "=" * 60 + "\\n{Title}\\n" + "=" * 60 + "\\n\\n"``
  (scripts/fetch_docs.py). The release fixes no chunking and ships no Part A adapter (every
  reference adapter runs Part B only), so :func:`load_documents` returns whole articles and the
  chunking is left to the caller.

Real-data quirk: ``turn_id`` is not unique within a category file -- blocks overlap and restart ids
(..., 101, 102, 103, 101, 102, ...). Turns are therefore keyed by their line number, and a gold turn
id matches every line that carries it (:meth:`Conversation.lines_of`).

Every error is a :class:`~memsuite.memory_systems.errors.DatasetError` of the form
``<file>:<line>: field '<name>': <problem>``. Paths are always given by the caller; the helpers
:func:`find_turn_file` and :func:`find_questions_file` look only inside the folder they are handed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from memsuite.eval.benchmarks.wmb.schema import QTYPES, Conversation, Document, Question, Turn
from memsuite.memory_systems.errors import DatasetError

#: The article banner of a Part A document file (scripts/fetch_docs.py writes 60 "=").
_BANNER = re.compile(r"^={20,}\n(?P<title>[^\n]+)\n={20,}\n", re.MULTILINE)


# -- field checks ----------------------------------------------------------------------------------
def _fail(path: Path, line: int | None, field: str | None, problem: str) -> DatasetError:
    where = f"{path}:{line}" if line is not None else str(path)
    what = f" field '{field}':" if field else ""
    return DatasetError(f"{where}:{what} {problem}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


_REQUIRED = object()


def _get(
    record: Mapping[str, Any],
    name: str,
    check: Callable[[Any], Any],
    expected: str,
    path: Path,
    line: int,
    default: Any = _REQUIRED,
) -> Any:
    """``record[name]`` after ``check``; a missing field takes ``default`` unless it is required."""
    if name not in record:
        if default is _REQUIRED:
            raise _fail(path, line, name, "missing")
        return default
    value = record[name]
    if not check(value):
        raise _fail(path, line, name, f"expected {expected}, got {value!r}")
    return value


def _non_empty(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _int_list(value: Any) -> bool:
    return isinstance(value, list) and all(_is_int(v) for v in value)


# -- turns -----------------------------------------------------------------------------------------
def load_turns(path: str | Path, *, category: str | None = None, limit: int | None = None) -> Conversation:
    """Read a category file (``{category}.jsonl``, or a prefix of it such as ``daily_life.prefix.jsonl``).

    Args:
        path: The JSONL file, one turn per line. Blank lines are skipped (line numbers stay physical).
        category: The file's category; default the ``category`` field of its first turn. Every turn
            must belong to it.
        limit: Read at most this many turns (a prefix of the file), or all when None.

    Returns:
        The turns, keyed by line number.

    Raises:
        DatasetError: The file is missing, a line is not a JSON object, a field is missing or has the
            wrong type, or turns of two categories are mixed; the message names file, line and field.
    """
    path = Path(path)
    if limit is not None and (not _is_int(limit) or limit < 0):
        raise DatasetError(f"{path}: limit must be a non-negative integer, got {limit!r}")
    turns: list[Turn] = []
    try:
        handle = path.open(encoding="utf-8")
    except FileNotFoundError:
        raise _fail(path, None, None, "file not found") from None
    with handle:
        for line_no, raw in enumerate(handle, 1):
            if limit is not None and len(turns) >= limit:
                break
            if not raw.strip():
                continue
            turn = _parse_turn(raw, path, line_no, category)
            category = category or turn.category
            turns.append(turn)
    if not turns:
        raise _fail(path, None, None, "holds no turns")
    return Conversation(category or turns[0].category, tuple(turns), path)


def _parse_turn(raw: str, path: Path, line: int, category: str | None) -> Turn:
    try:
        record = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise _fail(path, line, None, f"not valid JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(record, dict):
        raise _fail(path, line, None, f"expected a JSON object, got {type(record).__name__}")
    turn_id = _get(record, "turn_id", _is_int, "an integer", path, line)
    speaker = _get(record, "speaker", _non_empty, "a non-empty string", path, line)
    text = _get(record, "text", lambda v: isinstance(v, str), "a string", path, line)
    own = _get(record, "category", _non_empty, "a non-empty string", path, line, default=category)
    if own is None:
        raise _fail(path, line, "category", "missing, and no category was given for the file")
    if category is not None and own != category:
        raise _fail(path, line, "category", f"{own!r} in a file of category {category!r}")
    facts = _get(record, "embedded_facts", _str_list, "a list of strings", path, line, default=[])
    fact_type = _get(
        record,
        "fact_type",
        lambda v: v is None or isinstance(v, str),
        "a string or null",
        path,
        line,
        default=None,
    )
    return Turn(line, turn_id, own, speaker, text, tuple(facts), fact_type)


# -- questions -------------------------------------------------------------------------------------
def load_questions(path: str | Path) -> tuple[Question, ...]:
    """Read ``all_questions.json`` (a JSON array of question objects), or a subset in the same format.

    Args:
        path: The JSON file.

    Returns:
        The questions in file order.

    Raises:
        DatasetError: Invalid JSON, a record that is not an object, a missing or mistyped field, an
            unknown ``qtype`` or a duplicate ``id``; the message names file, the record's line and field.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise _fail(path, None, None, "file not found") from None
    questions: list[Question] = []
    seen: dict[str, int] = {}
    for line, record in _array_records(text, path):
        question = _parse_question(record, path, line)
        if question.id in seen:
            raise _fail(path, line, "id", f"duplicate id {question.id!r} (first on line {seen[question.id]})")
        seen[question.id] = line
        questions.append(question)
    return tuple(questions)


def _array_records(text: str, path: Path) -> Iterable[tuple[int, Any]]:
    """Yield (line of the record's start, record) for each element of a top-level JSON array.

    ``json.loads`` gives no positions for elements, and a validation error must name a line, so the
    array is walked element by element with ``raw_decode``.
    """
    decoder = json.JSONDecoder()
    ws = re.compile(r"\s*")
    pos = ws.match(text, 0).end()
    if not text.startswith("[", pos):
        raise _fail(path, text.count("\n", 0, pos) + 1, None, "expected a JSON array of questions")
    pos = ws.match(text, pos + 1).end()
    if text.startswith("]", pos):
        return
    while True:
        line = text.count("\n", 0, pos) + 1
        try:
            record, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            raise _fail(path, exc.lineno, None, f"not valid JSON ({exc.msg} at column {exc.colno})") from None
        yield line, record
        pos = ws.match(text, pos).end()
        if text.startswith(",", pos):
            pos = ws.match(text, pos + 1).end()
            continue
        if text.startswith("]", pos):
            rest = text[pos + 1 :].strip()
            if rest:
                raise _fail(path, text.count("\n", 0, pos) + 1, None, "unexpected data after the array")
            return
        raise _fail(path, text.count("\n", 0, pos) + 1, None, "expected ',' or ']' in the array")


def _parse_question(record: Any, path: Path, line: int) -> Question:
    if not isinstance(record, dict):
        raise _fail(path, line, None, f"expected a question object, got {type(record).__name__}")

    qid = _get(record, "id", _non_empty, "a non-empty string", path, line)
    category = _get(record, "category", _non_empty, "a non-empty string", path, line)
    qtype = _get(record, "qtype", lambda v: v in QTYPES, f"one of {', '.join(QTYPES)}", path, line)
    text = _get(record, "text", _non_empty, "a non-empty string", path, line)
    gold = _get(record, "gold_answer", lambda v: isinstance(v, str), "a string", path, line)
    required = _get(record, "required_memories", _str_list, "a list of strings", path, line)
    # Part A questions of the release carry no gold_turn_ids (scripts/generate_v2_parta.py).
    gold_ids = _get(record, "gold_turn_ids", _int_list, "a list of integers", path, line, default=[])
    points = _get(record, "points", _is_number, "a number", path, line)
    penalty = _get(record, "false_penalty", _is_number, "a number", path, line)
    category2 = _get(
        record,
        "category2",
        lambda v: v is None or _non_empty(v),
        "a non-empty string",
        path,
        line,
        default=None,
    )
    return Question(
        qid,
        category,
        qtype,
        text,
        gold,
        tuple(required),
        tuple(gold_ids),
        float(points),
        float(penalty),
        category2,
    )


# -- Part A documents ------------------------------------------------------------------------------
def load_documents(path: str | Path, *, domain: str | None = None) -> tuple[Document, ...]:
    """Split a Part A domain file (``documents/{domain}.txt``) into its articles.

    Args:
        path: The text file.
        domain: Its domain; default the file name without suffix.

    Returns:
        The articles in file order (whole; chunking is the caller's choice).

    Raises:
        DatasetError: The file is missing or holds no article banner.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise _fail(path, None, None, "file not found") from None
    domain = domain or path.stem
    banners = list(_BANNER.finditer(text))
    if not banners:
        raise _fail(path, 1, None, "no article banner ('=' line, title, '=' line) found")
    documents = []
    for i, banner in enumerate(banners):
        end = banners[i + 1].start() if i + 1 < len(banners) else len(text)
        documents.append(Document(domain, banner["title"].strip(), text[banner.end() : end].strip(), i))
    return tuple(documents)


# -- finding files and selecting questions ---------------------------------------------------------
def _first_existing(candidates: Sequence[Path], what: str) -> Path:
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    tried = ", ".join(str(c) for c in candidates)
    raise DatasetError(f"{what} not found (tried {tried})")


def find_turn_file(data_dir: str | Path, category: str) -> Path:
    """The category file inside ``data_dir``: a clone of the repository or its ``datasets/`` folder.

    Raises:
        DatasetError: Neither ``datasets/{category}.jsonl`` nor ``{category}.jsonl`` exists.
    """
    root = Path(data_dir)
    return _first_existing(
        [root / "datasets" / f"{category}.jsonl", root / f"{category}.jsonl"], f"turns of {category!r}"
    )


def find_questions_file(data_dir: str | Path) -> Path:
    """``all_questions.json`` inside ``data_dir`` (a clone of the repository or its ``datasets/``).

    Raises:
        DatasetError: The file is in neither place.
    """
    root = Path(data_dir)
    candidates = [root / "datasets" / "all_questions.json", root / "all_questions.json"]
    return _first_existing(candidates, "questions")


def gold_turns_loaded(question: Question, conversation: Conversation) -> bool:
    """True when the question has gold turn ids and every one is carried by a loaded line.

    With a prefix of a category file, only such questions can be answered from the loaded turns.
    """
    return bool(question.gold_turn_ids) and conversation.has_turn_ids(question.gold_turn_ids)


def select_within_turns(
    questions: Iterable[Question], conversations: Mapping[str, Conversation]
) -> list[Question]:
    """The Part B questions that can be run on the loaded turns (e.g. on a prefix of a category file).

    Kept: false-memory probes of a loaded category (no turn holds their fact, however many turns are
    loaded), and questions whose every gold turn id is in their category's loaded turns. Dropped:
    Part A questions, questions of categories not loaded, and questions without gold turn ids (S3
    cross-category questions, whose evidence the release does not locate).

    Args:
        questions: Candidate questions.
        conversations: Loaded turns per category.

    Returns:
        The kept questions, in input order.
    """
    kept = []
    for question in questions:
        conversation = conversations.get(question.category)
        if question.is_part_a or conversation is None:
            continue
        if question.is_false_memory or gold_turns_loaded(question, conversation):
            kept.append(question)
    return kept
