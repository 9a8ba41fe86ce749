"""LoCoMo's judges, registered under the benchmark name ``locomo``; each maps a :class:`LocomoCase` and
the answer to a verdict (rows keep failed and undefined verdicts, summaries leave them out and count them):

- ``evidence`` (always, LLM-free): the recall of the question's evidence dia_ids among the retrieved
  turns (``correct`` = all found); for a system whose memories are not turns, ``answer_in_context``.
- ``f1`` (with an answer LLM): LoCoMo's per-category token F1 (:mod:`.official`), in ``score``.
- ``rule`` (with an answer LLM, LLM-free): the J prompt's rubric and LoCoMo's category-5 rule as
  string rules (:mod:`.rule`); undecided answers are ``correct: None`` with ``undecided``.
- ``llm`` (with an answer LLM): the mem0 judge (:mod:`.llm`) through ``ctx.judge_llm`` when the run
  has one, else the answer LLM; category 5 is not judged (mem0 skips it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memsuite.eval.answer import Judge, JudgeInput
from memsuite.eval.benchmarks.locomo.judges.llm import judge_llm
from memsuite.eval.benchmarks.locomo.judges.official import category_f1, evidence_recall
from memsuite.eval.benchmarks.locomo.judges.rule import judge_rule
from memsuite.eval.benchmarks.locomo.schema import ADVERSARIAL, Question
from memsuite.eval.registry import register_judge
from memsuite.memory_systems.errors import ConfigError


def gold_for_scoring(question: Question) -> str | None:
    """The gold LoCoMo scores against: category 3 up to its first ``;``; None for category 5."""
    if question.answer is None or question.category == ADVERSARIAL:
        return None
    return question.answer.split(";")[0].strip() if question.category == 3 else question.answer


@dataclass(frozen=True)
class LocomoCase:
    """What LoCoMo's judges need of one question (:mod:`memsuite.eval.answer` hands it to each judge)."""

    question: Question
    dia_ids: tuple[str, ...]
    """The ``dia_id`` of every retrieved turn, in rank order."""
    turns: bool
    """Whether the system's memories are turns (else the evidence verdict is ``answer_in_context``)."""
    in_context: bool | None
    """LoCoMo's ``has_answer`` of the gold answer in the context; None without a gold answer."""


def _evidence_judge(inp: JudgeInput) -> dict[str, Any]:
    case: LocomoCase = inp.case
    return _evidence_verdict(case.question, list(case.dia_ids), case.turns, case.in_context)


def _f1_judge(inp: JudgeInput) -> dict[str, Any]:
    question = inp.case.question
    score = category_f1(question.category, inp.answer.data, gold_for_scoring(question))
    return {"judge": "f1", "score": score, "correct": score == 1.0}


def _llm_judge(inp: JudgeInput) -> dict[str, Any]:
    question = inp.case.question
    if question.category == ADVERSARIAL:
        return {"judge": "llm", "correct": None, "skipped": "category 5 (mem0 does not judge it)"}
    if inp.llm is None:
        raise ConfigError("the locomo llm judge needs judge_llm (or answer_llm) in the config")
    return judge_llm(inp.llm, question.question, str(gold_for_scoring(question)), inp.answer.data)


def _rule_judge(inp: JudgeInput) -> dict[str, Any]:
    question = inp.case.question
    return judge_rule(question.category, gold_for_scoring(question), inp.answer.data or "")


def _evidence_verdict(question: Question, dia_ids: list[str], turns: bool, in_context: bool | None) -> dict:
    if not turns:
        verdict = {"judge": "evidence", "basis": "answer_in_context", "correct": in_context}
        return verdict if in_context is not None else {**verdict, "undefined": "no gold answer (category 5)"}
    recall = evidence_recall(question.evidence, dia_ids)
    if recall is None:
        return {
            "judge": "evidence",
            "basis": "turns",
            "correct": None,
            "recall": None,
            "undefined": "no well-formed evidence id",
        }
    found = sum(e in set(dia_ids) for e in question.evidence)
    return {
        "judge": "evidence",
        "basis": "turns",
        "correct": recall == 1.0,
        "recall": recall,
        "found": found,
        "of": len(question.evidence),
    }


register_judge("locomo", "evidence")(Judge(_evidence_judge, needs_answer=False))
register_judge("locomo", "f1")(Judge(_f1_judge, answer_required=True))
register_judge("locomo", "llm")(Judge(_llm_judge, uses_llm=True, answer_required=True))
register_judge("locomo", "rule")(Judge(_rule_judge, answer_required=True))
