"""The audited answer key: the public LoCoMo audit's findings (dial481/locomo-audit ``errors.json``,
CC BY-NC 4.0, never bundled: a data option, ``benchmark_options.audit``), read and tied to questions.

The file is a JSON array of findings, each ``{question_id, question, golden_answer, category,
error_type, cited_evidence, correct_evidence, reasoning, correct_answer}``. ``question_id`` is
``locomo_<c>_qa<i>``: conversation ``c`` of the released ``locomo10.json`` (file order, which
:data:`RELEASED_ORDER` names by ``sample_id``, so a subset such as the dev file maps too) and its
``qa`` item ``i`` (category-5 items counted). A finding whose question text differs from the loaded
question is refused: the file and the data are not the same release.

What a finding changes (:class:`Finding`):

- HALLUCINATION, TEMPORAL_ERROR, ATTRIBUTION_ERROR, INCOMPLETE: the gold is wrong; under the audited
  key the answer verdicts judge against ``correct_answer``;
- AMBIGUOUS: the gold is unclear; under the audited key the question is scored apart (left out of
  the audited rate, its count and its original-key score reported);
- WRONG_CITATION: only the evidence is wrong; the answer verdicts stand.

Wherever ``correct_evidence`` differs from the released evidence, the retrieval verdict (``evidence``)
is judged against it under the audited key.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from memsuite.eval.answer_rules.lists import fold
from memsuite.eval.benchmarks.locomo.loader import repair_evidence
from memsuite.eval.benchmarks.locomo.schema import Conversation, EvidenceRepairs, Question
from memsuite.eval.data.shared import SHARED_DATA_ENV
from memsuite.memory_systems.errors import ConfigError, DatasetError

#: ``sample_id`` of each conversation of the released locomo10.json, in file order.
RELEASED_ORDER = (
    "conv-26", "conv-30", "conv-41", "conv-42", "conv-43", "conv-44", "conv-47", "conv-48", "conv-49",
    "conv-50",
)  # fmt: skip
#: The audit's file under the shared data folder (the default beside the shared dev file).
SHARED_AUDIT = Path("published") / "locomo" / "audit" / "errors.json"
WRONG_GOLD = ("HALLUCINATION", "TEMPORAL_ERROR", "ATTRIBUTION_ERROR", "INCOMPLETE")
AMBIGUOUS = "AMBIGUOUS"
WRONG_CITATION = "WRONG_CITATION"
ERROR_TYPES = (*WRONG_GOLD, AMBIGUOUS, WRONG_CITATION)
ANSWER_KEYS = ("original", "audited", "both")
_ID = re.compile(r"locomo_(\d+)_qa(\d+)")


@dataclass(frozen=True)
class Finding:
    """One audit finding on one question."""

    question_id: str
    """The audit's id, ``locomo_<c>_qa<i>``."""
    error_type: str
    correct_answer: str
    correct_evidence: tuple[str, ...]
    """Well-formed dia_ids (repaired as the loader repairs released evidence)."""
    evidence_changed: bool
    """``correct_evidence`` differs from the released evidence (as sets)."""

    @property
    def changes_answer(self) -> bool:
        """The gold is wrong: answer verdicts judge against ``correct_answer`` under the audited key."""
        return self.error_type in WRONG_GOLD

    @property
    def ambiguous(self) -> bool:
        return self.error_type == AMBIGUOUS

    @property
    def flags_gold(self) -> bool:
        """The gold is wrong or unclear (what the original key's ceiling counts)."""
        return self.changes_answer or self.ambiguous

    def audited(self, question: Question) -> Question:
        """``question`` as the audited key has it."""
        return replace(
            question,
            answer=self.correct_answer if self.changes_answer else question.answer,
            evidence=self.correct_evidence if self.evidence_changed else question.evidence,
        )

    def to_metadata(self) -> dict[str, Any]:
        """What a row records of the finding (``metadata["audit"]``)."""
        return {
            "question_id": self.question_id,
            "error_type": self.error_type,
            "correct_answer": self.correct_answer,
            "correct_evidence": list(self.correct_evidence),
            "changes_answer": self.changes_answer,
            "evidence_changed": self.evidence_changed,
        }


def _field(path: Path, at: str, entry: dict[str, Any], name: str, kind: type | tuple[type, ...]) -> Any:
    value = entry.get(name)
    if not isinstance(value, kind) or isinstance(value, bool):
        raise DatasetError(f"{path}: {at}: field '{name}': missing or malformed: {value!r:.80}")
    return value


def read_findings(path: str | Path) -> list[dict[str, Any]]:
    """The audit file's findings, every field checked before any is used.

    Raises:
        DatasetError: The file is missing, not JSON, or a finding lacks a field or has a bad one (file,
            finding index and field named).
    """
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DatasetError(f"{path}: LoCoMo audit file not found (benchmark_options.audit)") from None
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{path}: not valid JSON: {exc}") from exc
    if not isinstance(data, list):
        raise DatasetError(f"{path}: expected a JSON array of findings (the audit's errors.json)")
    for n, entry in enumerate(data):
        at = f"finding {n}"
        if not isinstance(entry, dict):
            raise DatasetError(f"{path}: {at}: expected an object, got {entry!r:.80}")
        ident = _field(path, at, entry, "question_id", str)
        if not _ID.fullmatch(ident):
            raise DatasetError(f"{path}: {at}: field 'question_id': expected locomo_<c>_qa<i>, got {ident!r}")
        at = f"finding {n} ({ident})"
        if int(_ID.fullmatch(ident)[1]) >= len(RELEASED_ORDER):
            raise DatasetError(f"{path}: {at}: field 'question_id': locomo10.json has 10 conversations")
        if entry.get("error_type") not in ERROR_TYPES:
            raise DatasetError(
                f"{path}: {at}: field 'error_type': expected one of {', '.join(ERROR_TYPES)}, "
                f"got {entry.get('error_type')!r}"
            )
        _field(path, at, entry, "question", str)
        _field(path, at, entry, "correct_answer", (str, int, float))
        evidence = _field(path, at, entry, "correct_evidence", list)
        if not all(isinstance(e, str) for e in evidence):
            raise DatasetError(f"{path}: {at}: field 'correct_evidence': expected a list of strings")
    return data


def audit_findings(path: str | Path, conversations: list[Conversation]) -> dict[tuple[str, int], Finding]:
    """The findings on the loaded conversations, by ``(sample_id, question index)``.

    Raises:
        DatasetError: A malformed file, or a finding whose question is not the loaded one (the audit
            and the data are different releases).
        ConfigError: No finding names a loaded conversation (the data is not LoCoMo's release).
    """
    path = Path(path)
    by_id = {c.sample_id: c for c in conversations}
    found: dict[tuple[str, int], Finding] = {}
    for n, entry in enumerate(read_findings(path)):
        ident = entry["question_id"]
        c, i = (int(x) for x in _ID.fullmatch(ident).groups())
        conversation = by_id.get(RELEASED_ORDER[c])
        if conversation is None:
            continue  # a conversation this file does not hold
        at = f"{path}: finding {n} ({ident})"
        if i >= len(conversation.questions):
            count = len(conversation.questions)
            raise DatasetError(f"{at}: field 'question_id': {conversation.sample_id} has {count} questions")
        question = conversation.questions[i]
        if fold(question.question) != fold(entry["question"]):
            raise DatasetError(
                f"{at}: field 'question': {entry['question']!r} but {conversation.sample_id} question {i} is "
                f"{question.question!r}; the audit and the LoCoMo file are different releases"
            )
        known = {t.dia_id for t in conversation.turns}
        evidence = repair_evidence(
            entry["correct_evidence"], known, EvidenceRepairs(), sample_id=conversation.sample_id, question=i
        )
        found[(conversation.sample_id, i)] = Finding(
            ident,
            entry["error_type"],
            str(entry["correct_answer"]),
            evidence,
            set(evidence) != set(question.evidence),
        )
    if not found and not any(sample_id in RELEASED_ORDER for sample_id in by_id):
        raise ConfigError(
            f"benchmark_options.audit {path}: no finding names a conversation of the LoCoMo file "
            f"(its sample_ids: {', '.join(list(by_id)[:5])}); the audit is of the released locomo10.json"
        )
    return found


def default_audit_path(data: Path, dev_file: str | Path) -> Path | None:
    """The shared copy of the audit (:data:`SHARED_AUDIT` under ``$MEMSUITE_SHARED_DATA``) when ``data``
    is the shared dev file ``dev_file`` beside it, else None."""
    root = os.environ.get(SHARED_DATA_ENV)
    if not root:
        return None
    dev, audit = Path(root) / dev_file, Path(root) / SHARED_AUDIT
    same = data.is_file() and dev.is_file() and data.samefile(dev)
    return audit if same and audit.is_file() else None


def check_answer_key(answer_key: str, audit: Path | None) -> str:
    """The answer key a run uses: ``original``, ``audited`` or ``both`` (default); ``both`` without an
    audit file is ``original``, ``audited`` without one is refused.

    Raises:
        ConfigError: An unknown key, or ``audited`` without ``benchmark_options.audit``.
    """
    if answer_key not in ANSWER_KEYS:
        raise ConfigError(f"locomo answer_key must be one of {', '.join(ANSWER_KEYS)}, got {answer_key!r}")
    if answer_key == "audited" and audit is None:
        raise ConfigError(
            "locomo answer_key: audited needs benchmark_options.audit: the LoCoMo audit's errors.json "
            "(dial481/locomo-audit, not bundled)"
        )
    return answer_key if audit is not None else "original"
