"""LongMemEval's judges; each maps an
:class:`LmeCase` and the answer to a verdict:

- ``retrieval`` (always, LLM-free): the official metrics at every depth (:mod:`.retrieval`),
  ``correct`` = recall_all at the run's k; undefined for abstention questions and questions without a
  relevant document (the official averages keep the latter: :mod:`..scoring` reports both).
- ``answer_in_context`` (always, LLM-free): whether the gold answer's words appear in the context (as
  LoCoMo's ``has_answer``); undefined for preference rubrics and abstention.
- ``llm`` (with an answer LLM): the official per-type judge (:mod:`.llm`) through the run's judge LLM.
- ``rule`` (with an answer LLM, LLM-free): the official rubric as string rules (:mod:`.rule`); undecided
  answers are ``correct: None`` with ``undecided``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memsuite.eval.answer import JudgeInput
from memsuite.eval.benchmarks.longmemeval.judges.llm import judge_llm
from memsuite.eval.benchmarks.longmemeval.judges.rule import judge_rule
from memsuite.eval.benchmarks.longmemeval.schema import LmeQuestion
from memsuite.eval.definition import Judge
from memsuite.memory_systems.errors import ConfigError


@dataclass(frozen=True)
class LmeCase:
    """What LongMemEval's judges see of one question."""

    question: LmeQuestion
    metrics: dict[str, dict[str, float]] | None
    """The official metrics, or None when the system has no ranking (``no_ranking`` says why)."""
    relevant: tuple[str, ...]
    k: int
    recall_all_at_k: float | None
    """recall_all at the run's k (any k, not only the official depths), at the run's granularity."""
    granularity: str
    in_context: bool | None
    no_ranking: str = "the memories are not corpus documents"


def _retrieval_judge(inp: JudgeInput) -> dict[str, Any]:
    case: LmeCase = inp.case
    verdict: dict[str, Any] = {"judge": "retrieval", "granularity": case.granularity}
    if case.metrics is None:
        return {**verdict, "correct": None, "undefined": case.no_ranking}
    verdict["metrics"] = case.metrics
    if case.question.abstention:
        return {**verdict, "correct": None, "undefined": "abstention question"}
    if not case.relevant:
        return {**verdict, "correct": None, "undefined": "no relevant document (evidence in assistant turns)"}
    return {**verdict, "correct": case.recall_all_at_k == 1.0, "k": case.k}


def _in_context_judge(inp: JudgeInput) -> dict[str, Any]:
    case: LmeCase = inp.case
    verdict = {"judge": "answer_in_context", "correct": case.in_context}
    return verdict if case.in_context is not None else {**verdict, "undefined": "a rubric or an abstention"}


def _llm_judge(inp: JudgeInput) -> dict[str, Any]:
    if inp.llm is None:
        raise ConfigError("the longmemeval llm judge needs judge_llm (or answer_llm) in the config")
    return judge_llm(inp.llm, inp.case.question, inp.answer.text or "")


def _rule_judge(inp: JudgeInput) -> dict[str, Any]:
    return judge_rule(inp.case.question, inp.answer.text or "")


#: The judges by name, each with what it needs from a run.
JUDGES = {
    "retrieval": Judge(_retrieval_judge, needs=("evidence",)),
    "answer_in_context": Judge(_in_context_judge, needs=()),
    "llm": Judge(_llm_judge, needs=("answer", "llm")),
    "rule": Judge(_rule_judge, needs=("answer",)),
}
