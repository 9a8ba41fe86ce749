"""LoCoMo's published answer files for ``memsuite rejudge``: the formats ``zep_locomo``, ``mem0_locomo``
and ``eval_results``.

- ``zep_locomo``: Zep's LoCoMo grades or responses (getzep/zep-papers ``locomo_eval``):
  ``{"locomo_experiment_user_<i>": [{question, answer, golden_answer, category, grade?}]}``, user i =
  the i-th conversation of ``locomo10.json``; ``grade`` (gpt-4o-mini, mem0's J prompt) is the published
  verdict.
- ``mem0_locomo``: mem0's LoCoMo evaluation output (mem0ai/mem0 ``evaluation/evals.py``):
  ``{"<i>": [{question, answer (the gold), response, category, bleu_score, f1_score, llm_score}]}``,
  key i = the i-th conversation; ``llm_score`` (1/0, mem0's J judge) is the published verdict. The
  search output that feeds it (same layout, no scores) reads too, without verdicts.
- ``eval_results``: the EverMemOS evaluation output the LoCoMo audit (dial481/locomo-audit) publishes
  its answer sets in: ``{total_questions, correct, accuracy, detailed_results:
  {"locomo_exp_user_<i>": [{question_id, question, golden_answer, generated_answer, llm_judgments:
  {judgment_1, ...}, category}]}, metadata?}``; user i = the i-th conversation, ``question_id`` =
  ``locomo_<i>_qa<index in that conversation's qa list>``. Every judgment is kept
  (``published_judgments``); their majority is the published verdict (a tie is none), and
  ``metadata.judge_model`` names the judge.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from memsuite.eval.rejudge.formats import Format, SourceAnswer, json_file, text_field, verdict_field
from memsuite.memory_systems.errors import DatasetError

_ZEP_KEY = re.compile(r"^locomo_experiment_user_(\d+)$")


def _is_zep(path: Path) -> bool:
    if not path.is_file() or path.suffix != ".json":
        return False
    data = json_file(path)
    return isinstance(data, dict) and bool(data) and all(_ZEP_KEY.match(str(k)) for k in data)


def _is_mem0(path: Path) -> bool:
    if not path.is_file() or path.suffix != ".json":
        return False
    data = json_file(path)
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
                    text_field(item[fields["answer"]], where, fields["answer"], optional=True),
                    where,
                    question=text_field(item[fields["question"]], where, fields["question"]),
                    category=text_field(item["category"], where, "category"),
                    unit_index=index,
                    published_verdict=verdict_field(item.get(verdict), where, verdict),
                    published_judge=judge if item.get(verdict) is not None else None,
                )
            )
    return answers


def read_zep_locomo(path: Path) -> list[SourceAnswer]:
    """Zep's LoCoMo grades (or responses, without ``grade``)."""
    fields = {"question": "question", "answer": "answer"}
    return _locomo_answers(path, json_file(path), _ZEP_KEY, fields, "grade", "gpt-4o-mini (mem0 J prompt)")


def read_mem0_locomo(path: Path) -> list[SourceAnswer]:
    """mem0's LoCoMo evaluation output (or its search output, without ``llm_score``)."""
    fields = {"question": "question", "answer": "response"}
    key = re.compile(r"^(\d+)$")
    return _locomo_answers(path, json_file(path), key, fields, "llm_score", "gpt-4o-mini (mem0 J prompt)")


# -- LoCoMo: EverMemOS eval_results (the LoCoMo audit's answer sets) ----------------------------------

_EVAL_RESULTS_KEY = re.compile(r"^locomo_exp_user_(\d+)$")
_EVAL_RESULTS_ID = re.compile(r"^locomo_(\d+)_qa(\d+)$")


def _is_eval_results(path: Path) -> bool:
    if not path.is_file() or path.suffix != ".json":
        return False
    data = json_file(path)
    return isinstance(data, dict) and isinstance(data.get("detailed_results"), dict)


def _judgments(value: Any, where: str) -> tuple[bool, ...]:
    if not isinstance(value, dict) or not value:
        raise DatasetError(f"{where}: field 'llm_judgments' must be a non-empty object of judgments")
    found = []
    for name, verdict in value.items():
        judged = verdict_field(verdict, where, f"llm_judgments.{name}")
        if judged is None:
            raise DatasetError(f"{where}: field 'llm_judgments.{name}' must be true or false, got null")
        found.append(judged)
    return tuple(found)


def majority(judgments: tuple[bool, ...]) -> bool | None:
    """The majority of ``judgments``; None for none or a tie."""
    yes = sum(judgments)
    no = len(judgments) - yes
    return None if yes == no else yes > no


def read_eval_results(path: Path) -> list[SourceAnswer]:
    """The audit's ``eval_results`` answer sets, every published judgment kept."""
    data = json_file(path)
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
                    text_field(item["generated_answer"], where, "generated_answer", optional=True),
                    where,
                    question_id=f"q{int(ident.group(2)):03d}",
                    question=text_field(item["question"], where, "question"),
                    category=text_field(item["category"], where, "category"),
                    unit_index=index,
                    published_verdict=majority(judgments),
                    published_judge=f"{model} (J prompt, majority of {len(judgments)})",
                    published_judgments=judgments,
                )
            )
    return answers


#: The formats of published answer files, by name.
FORMATS = {
    "zep_locomo": Format(read_zep_locomo, _is_zep),
    "mem0_locomo": Format(read_mem0_locomo, _is_mem0),
    "eval_results": Format(read_eval_results, _is_eval_results),
}
