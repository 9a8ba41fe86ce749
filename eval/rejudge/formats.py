"""Readers of stored answers, one function per format (a new format is one function).

Each reader takes a path and gives :class:`SourceAnswer` records in file order; a malformed file is a
:class:`~memsuite.memory_systems.errors.DatasetError` naming the file, the line or key, and the field.
:func:`detect` picks the format of a path for a benchmark (or ``--format`` names it); the records and
:class:`Format` are :mod:`memsuite.eval.hooks`'s, which a definition names.

Formats: ``memsuite_run`` (any benchmark: a memsuite run folder, ``run.json``; its rows, whole) here; a
benchmark's definition lists the formats of its published answer files (``answer_formats``: LongMemEval's
and LoCoMo's ``answer_files.py``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memsuite.eval.definition import BenchmarkDefinition
from memsuite.eval.hooks import Format, SourceAnswer
from memsuite.eval.run.config_errors import unknown_key_message
from memsuite.eval.run.folder import load_run
from memsuite.memory_systems.errors import ConfigError, DatasetError


def formats_of(found: BenchmarkDefinition) -> dict[str, Format]:
    """Format name -> reader of every format that holds the answers of the benchmark ``found`` defines:
    a memsuite run folder (any benchmark) and the formats its definition declares (``answer_formats``)."""
    return {**GENERIC, **found.answer_formats}


def detect(path: Path, found: BenchmarkDefinition) -> str:
    """The name of the first format serving the benchmark ``found`` defines that recognises ``path``.

    Raises:
        ConfigError: No format recognises it (the message lists the formats for the benchmark).
    """
    if not path.exists():
        raise ConfigError(f"{path}: no such file or folder")
    benchmark = found.name
    serving = formats_of(found)
    for name, reader in serving.items():
        if reader.detect(path):
            return name
    raise ConfigError(f"{path}: not an answer file of a known {benchmark} format ({', '.join(serving)})")


def read_answers(
    path: Path,
    found: BenchmarkDefinition,
    format_name: str | None = None,
    others: Mapping[str, BenchmarkDefinition] | None = None,
) -> tuple[str, list[SourceAnswer]]:
    """``(format name, answers)`` of ``path``, answers of the benchmark ``found`` defines; the format
    detected unless named. ``others`` (every benchmark's definition) lets a format of another
    benchmark be named as such in the error.

    Raises:
        ConfigError: Unknown format, one that does not serve the benchmark, or none recognised.
        DatasetError: The file is malformed (file, line or key and field named).
    """
    benchmark = found.name
    name = format_name or detect(path, found)
    serving = formats_of(found)
    if name not in serving:
        holders = [b for b, d in (others or {}).items() if name in d.answer_formats]
        if holders:
            raise ConfigError(f"format {name!r} holds {', '.join(holders)} answers, not {benchmark}")
        raise ConfigError(
            unknown_key_message(name, sorted(serving), "answer format", f" of benchmark {benchmark!r}")
        )
    return name, serving[name].read(path)


def json_file(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DatasetError(f"{path}: not a JSON file ({exc})") from None


def first_json_line(path: Path) -> Any:
    try:
        with path.open(encoding="utf-8") as handle:
            for line in handle:
                if line.strip():
                    return json.loads(line)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    return None


def text_field(value: Any, where: str, field: str, *, optional: bool = False) -> str | None:
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise DatasetError(f"{where}: field {field!r} must be text, got {type(value).__name__}")
    return str(value)


def verdict_field(value: Any, where: str, field: str) -> bool | None:
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


#: The formats of any benchmark's answers.
GENERIC = {"memsuite_run": Format(read_run_folder, lambda path: (path / "run.json").is_file())}
