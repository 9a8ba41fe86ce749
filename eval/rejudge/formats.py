"""Readers of stored answers, one registered function per format (a new format is one function).

Each reader takes a path and gives :class:`SourceAnswer` records in file order; a malformed file is a
:class:`~memsuite.memory_systems.errors.DatasetError` naming the file, the line or key, and the field.
:func:`detect` picks the format of a path for a benchmark (or ``--format`` names it).

Formats:

- ``memsuite_run`` (any benchmark): a memsuite run folder (``run.json``); its rows, whole.
- ``longmemeval_jsonl`` (longmemeval): LongMemEval's hypothesis file, one JSON object per line with
  ``question_id`` and ``hypothesis``; the output of its ``src/evaluation/evaluate_qa.py`` adds
  ``autoeval_label`` ``{model, label}``, read as the published verdict and judge.
- ``zep_locomo`` (locomo): Zep's LoCoMo grades or responses (getzep/zep-papers ``locomo_eval``):
  ``{"locomo_experiment_user_<i>": [{question, answer, golden_answer, category, grade?}]}``, user i =
  the i-th conversation of ``locomo10.json``; ``grade`` (gpt-4o-mini, mem0's J prompt) is the published
  verdict.
- ``mem0_locomo`` (locomo): mem0's LoCoMo evaluation output (mem0ai/mem0 ``evaluation/evals.py``):
  ``{"<i>": [{question, answer (the gold), response, category, bleu_score, f1_score, llm_score}]}``,
  key i = the i-th conversation; ``llm_score`` (1/0, mem0's J judge) is the published verdict. The
  search output that feeds it (same layout, no scores) reads too, without verdicts.
- ``eval_results`` (locomo): the EverMemOS evaluation output the LoCoMo audit (dial481/locomo-audit)
  publishes its answer sets in: ``{total_questions, correct, accuracy, detailed_results:
  {"locomo_exp_user_<i>": [{question_id, question, golden_answer, generated_answer, llm_judgments:
  {judgment_1, ...}, category}]}, metadata?}``; user i = the i-th conversation, ``question_id`` =
  ``locomo_<i>_qa<index in that conversation's qa list>``. Every judgment is kept
  (``published_judgments``); their majority is the published verdict (a tie is none), and
  ``metadata.judge_model`` names the judge.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memsuite.eval.protocol import Row
from memsuite.eval.runlog import load_run
from memsuite.memory_systems.errors import ConfigError, DatasetError
from memsuite.memory_systems.registry import Registry


@dataclass(frozen=True)
class SourceAnswer:
    """One stored answer, with whatever its format says about the question it answers."""

    answer: str | None
    where: str
    """File and line or key, for messages."""
    question_id: str | None = None
    unit_id: str | None = None
    question: str | None = None
    category: str | None = None
    unit_index: int | None = None
    """Position of the answer's conversation in the benchmark file (formats without ids)."""
    published_verdict: bool | None = None
    published_judge: str | None = None
    published_judgments: tuple[bool, ...] = ()
    """Every call of the published judge, when the file keeps them (the verdict is their majority)."""
    row: Row | None = None
    """The whole row (a memsuite run folder)."""


@dataclass(frozen=True)
class Format:
    """A registered reader: which benchmarks it serves and how to recognise its files."""

    read: Callable[[Path], list[SourceAnswer]]
    benchmarks: tuple[str, ...] | None
    """None: any benchmark."""
    detect: Callable[[Path], bool]


FORMATS: Registry[Format] = Registry("answer format")


def register_format(
    name: str, *, benchmarks: tuple[str, ...] | None, detect: Callable[[Path], bool]
) -> Callable[[Callable[[Path], list[SourceAnswer]]], Callable[[Path], list[SourceAnswer]]]:
    """Decorator: register a reader function as the format ``name``."""

    def decorate(read: Callable[[Path], list[SourceAnswer]]) -> Callable[[Path], list[SourceAnswer]]:
        FORMATS.register(name)(Format(read, benchmarks, detect))
        return read

    return decorate


def detect(path: Path, benchmark: str) -> str:
    """The name of the first format serving ``benchmark`` that recognises ``path``.

    Raises:
        ConfigError: No format recognises it (the message lists the formats for the benchmark).
    """
    if not path.exists():
        raise ConfigError(f"{path}: no such file or folder")
    serving = [n for n in FORMATS.names() if (b := FORMATS.get(n).benchmarks) is None or benchmark in b]
    for name in serving:
        if FORMATS.get(name).detect(path):
            return name
    raise ConfigError(f"{path}: not an answer file of a known {benchmark} format ({', '.join(serving)})")


def read_answers(
    path: Path, benchmark: str, format_name: str | None = None
) -> tuple[str, list[SourceAnswer]]:
    """``(format name, answers)`` of ``path``; the format detected unless named.

    Raises:
        ConfigError: Unknown format, one that does not serve the benchmark, or none recognised.
        DatasetError: The file is malformed (file, line or key and field named).
    """
    name = format_name or detect(path, benchmark)
    spec = FORMATS.get(name)
    if spec.benchmarks is not None and benchmark not in spec.benchmarks:
        raise ConfigError(f"format {name!r} holds {', '.join(spec.benchmarks)} answers, not {benchmark}")
    return name, spec.read(path)


def _json_file(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DatasetError(f"{path}: not a JSON file ({exc})") from None


def _first_json_line(path: Path) -> Any:
    try:
        with path.open(encoding="utf-8") as handle:
            for line in handle:
                if line.strip():
                    return json.loads(line)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    return None


def _text(value: Any, where: str, field: str, *, optional: bool = False) -> str | None:
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise DatasetError(f"{where}: field {field!r} must be text, got {type(value).__name__}")
    return str(value)


def _verdict(value: Any, where: str, field: str) -> bool | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().upper() in ("CORRECT", "WRONG"):
        return value.strip().upper() == "CORRECT"
    raise DatasetError(f"{where}: field {field!r} must be true/false, 1/0 or CORRECT/WRONG, got {value!r}")


# -- memsuite run folder ----------------------------------------------------------------------------


@register_format("memsuite_run", benchmarks=None, detect=lambda path: (path / "run.json").is_file())
def read_run_folder(path: Path) -> list[SourceAnswer]:
    """Every row of a run folder, whole."""
    rows = load_run(path).rows()
    return [
        SourceAnswer(
            row.answer,
            f"{path}: {row.system}/{row.unit_id}/{row.question_id}",
            question_id=row.question_id,
            unit_id=row.unit_id,
            question=row.question,
            row=row,
        )
        for row in rows
    ]


# -- LongMemEval hypothesis / evaluate_qa JSONL ------------------------------------------------------


def _is_hypothesis_file(path: Path) -> bool:
    first = _first_json_line(path) if path.is_file() else None
    return isinstance(first, dict) and "question_id" in first and "hypothesis" in first


@register_format("longmemeval_jsonl", benchmarks=("longmemeval",), detect=_is_hypothesis_file)
def read_hypothesis_jsonl(path: Path) -> list[SourceAnswer]:
    """LongMemEval hypotheses, with ``autoeval_label`` as the published verdict when present."""
    answers = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            where = f"{path}:{number}"
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DatasetError(f"{where}: not JSON ({exc})") from None
            if not isinstance(record, dict):
                raise DatasetError(f"{where}: a line must be a JSON object")
            for field in ("question_id", "hypothesis"):
                if field not in record:
                    raise DatasetError(f"{where}: missing field {field!r}")
            label = record.get("autoeval_label")
            if label is not None and not (isinstance(label, dict) and "label" in label):
                raise DatasetError(f"{where}: field 'autoeval_label' must be an object with 'label'")
            answers.append(
                SourceAnswer(
                    _text(record["hypothesis"], where, "hypothesis"),
                    where,
                    question_id=_text(record["question_id"], where, "question_id"),
                    published_verdict=_verdict(label["label"], where, "autoeval_label.label")
                    if label
                    else None,
                    published_judge=str(label.get("model") or "evaluate_qa") if label else None,
                )
            )
    return answers


# -- LoCoMo: Zep and mem0 -----------------------------------------------------------------------------

_ZEP_KEY = re.compile(r"^locomo_experiment_user_(\d+)$")


def _is_zep(path: Path) -> bool:
    if not path.is_file() or path.suffix != ".json":
        return False
    data = _json_file(path)
    return isinstance(data, dict) and bool(data) and all(_ZEP_KEY.match(str(k)) for k in data)


def _is_mem0(path: Path) -> bool:
    if not path.is_file() or path.suffix != ".json":
        return False
    data = _json_file(path)
    if not isinstance(data, dict) or not data or not all(str(k).isdigit() for k in data):
        return False
    first = next((items[0] for items in data.values() if isinstance(items, list) and items), None)
    return isinstance(first, dict) and "response" in first


def _conversation_lists(data: Any, path: Path, key: re.Pattern[str]) -> list[tuple[int, str, list[Any]]]:
    if not isinstance(data, dict):
        raise DatasetError(f"{path}: the top level must be an object of conversations")
    out = []
    for name, items in data.items():
        found = key.match(str(name))
        if found is None:
            raise DatasetError(f"{path}: key {name!r} does not name a conversation")
        if not isinstance(items, list):
            raise DatasetError(f"{path}: {name}: must be a list of answers")
        out.append((int(found.group(1)), str(name), items))
    return out


def _locomo_answers(
    path: Path, data: Any, key: re.Pattern[str], fields: dict[str, str], verdict: str, judge: str
) -> list[SourceAnswer]:
    answers = []
    for index, name, items in _conversation_lists(data, path, key):
        for position, item in enumerate(items):
            where = f"{path}: {name}[{position}]"
            if not isinstance(item, dict):
                raise DatasetError(f"{where}: an answer must be an object")
            for field in (fields["question"], fields["answer"], "category"):
                if field not in item:
                    raise DatasetError(f"{where}: missing field {field!r}")
            answers.append(
                SourceAnswer(
                    _text(item[fields["answer"]], where, fields["answer"], optional=True),
                    where,
                    question=_text(item[fields["question"]], where, fields["question"]),
                    category=_text(item["category"], where, "category"),
                    unit_index=index,
                    published_verdict=_verdict(item.get(verdict), where, verdict),
                    published_judge=judge if item.get(verdict) is not None else None,
                )
            )
    return answers


@register_format("zep_locomo", benchmarks=("locomo",), detect=_is_zep)
def read_zep_locomo(path: Path) -> list[SourceAnswer]:
    """Zep's LoCoMo grades (or responses, without ``grade``)."""
    fields = {"question": "question", "answer": "answer"}
    return _locomo_answers(path, _json_file(path), _ZEP_KEY, fields, "grade", "gpt-4o-mini (mem0 J prompt)")


@register_format("mem0_locomo", benchmarks=("locomo",), detect=_is_mem0)
def read_mem0_locomo(path: Path) -> list[SourceAnswer]:
    """mem0's LoCoMo evaluation output (or its search output, without ``llm_score``)."""
    fields = {"question": "question", "answer": "response"}
    key = re.compile(r"^(\d+)$")
    return _locomo_answers(path, _json_file(path), key, fields, "llm_score", "gpt-4o-mini (mem0 J prompt)")


# -- LoCoMo: EverMemOS eval_results (the LoCoMo audit's answer sets) ----------------------------------

_EVAL_RESULTS_KEY = re.compile(r"^locomo_exp_user_(\d+)$")
_EVAL_RESULTS_ID = re.compile(r"^locomo_(\d+)_qa(\d+)$")


def _is_eval_results(path: Path) -> bool:
    if not path.is_file() or path.suffix != ".json":
        return False
    data = _json_file(path)
    return isinstance(data, dict) and isinstance(data.get("detailed_results"), dict)


def _judgments(value: Any, where: str) -> tuple[bool, ...]:
    if not isinstance(value, dict) or not value:
        raise DatasetError(f"{where}: field 'llm_judgments' must be a non-empty object of judgments")
    found = []
    for name, verdict in value.items():
        judged = _verdict(verdict, where, f"llm_judgments.{name}")
        if judged is None:
            raise DatasetError(f"{where}: field 'llm_judgments.{name}' must be true or false, got null")
        found.append(judged)
    return tuple(found)


def majority(judgments: tuple[bool, ...]) -> bool | None:
    """The majority of ``judgments``; None for none or a tie."""
    yes = sum(judgments)
    no = len(judgments) - yes
    return None if yes == no else yes > no


@register_format("eval_results", benchmarks=("locomo",), detect=_is_eval_results)
def read_eval_results(path: Path) -> list[SourceAnswer]:
    """The audit's ``eval_results`` answer sets, every published judgment kept."""
    data = _json_file(path)
    if not isinstance(data, dict) or not isinstance(data.get("detailed_results"), dict):
        raise DatasetError(f"{path}: field 'detailed_results' must be an object of conversations")
    meta = data.get("metadata")
    if meta is not None and not isinstance(meta, dict):
        raise DatasetError(f"{path}: field 'metadata' must be an object")
    model = str((meta or {}).get("judge_model") or "gpt-4o-mini")
    answers = []
    for index, name, items in _conversation_lists(data["detailed_results"], path, _EVAL_RESULTS_KEY):
        for position, item in enumerate(items):
            where = f"{path}: detailed_results.{name}[{position}]"
            if not isinstance(item, dict):
                raise DatasetError(f"{where}: an answer must be an object")
            for field in ("question_id", "question", "generated_answer", "llm_judgments", "category"):
                if field not in item:
                    raise DatasetError(f"{where}: missing field {field!r}")
            ident = _EVAL_RESULTS_ID.match(str(item["question_id"]))
            if ident is None:
                raise DatasetError(
                    f"{where}: field 'question_id' must be locomo_<conversation>_qa<index>, "
                    f"got {item['question_id']!r}"
                )
            if int(ident.group(1)) != index:
                raise DatasetError(
                    f"{where}: field 'question_id' {item['question_id']!r} names conversation "
                    f"{ident.group(1)}, but the answer is filed under {name}"
                )
            judgments = _judgments(item["llm_judgments"], where)
            answers.append(
                SourceAnswer(
                    _text(item["generated_answer"], where, "generated_answer", optional=True),
                    where,
                    question_id=f"q{int(ident.group(2)):03d}",
                    question=_text(item["question"], where, "question"),
                    category=_text(item["category"], where, "category"),
                    unit_index=index,
                    published_verdict=majority(judgments),
                    published_judge=f"{model} (J prompt, majority of {len(judgments)})",
                    published_judgments=judgments,
                )
            )
    return answers
