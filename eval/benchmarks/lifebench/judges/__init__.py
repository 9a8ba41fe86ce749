"""LifeBench's judges; each maps a :class:`LifebenchCase` and the answer to a verdict (rows keep failed
and undefined verdicts, summaries leave them out and count them):

- ``retrieval`` (always, LLM-free): recall_any, recall_all and evidence_recall of the question's
  relevant records (``type:phone_id``) at every depth of :data:`~memsuite.eval.retrieval_qa.evidence.KS`
  and the run's k, from the system's ranking of every record the memory holds at the question's time;
  ``correct`` = recall_all at k. Undefined for an unscored question (no relevant record) and for a
  system without a ranking.
- ``retrieval_day`` (always, LLM-free): the same at day granularity: the days of the ranked records,
  each once, against the days of the relevant records.
- ``choice`` (with an answer LLM, LLM-free): the letter rule of :mod:`.choice`; undefined for an open
  question.
- ``abstention`` (with an answer LLM, LLM-free): :mod:`.abstention`, for the Unanswerable questions
  asked openly; undefined for the others.
- ``llm`` (with an answer LLM): the rubric judge of :mod:`.llm`, for open questions with
  ``score_points``; undefined for the others.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memsuite.eval.answer import JudgeInput
from memsuite.eval.benchmarks.lifebench.judges.abstention import judge_abstention
from memsuite.eval.benchmarks.lifebench.judges.choice import judge_choice
from memsuite.eval.benchmarks.lifebench.judges.llm import judge_points
from memsuite.eval.benchmarks.lifebench.schema import Question
from memsuite.eval.definition import Judge
from memsuite.eval.retrieval_qa.evidence import evidence_verdict
from memsuite.memory_systems.errors import ConfigError

UNANSWERABLE = "Unanswerable"
_NO_EVIDENCE = "cites no record the memory holds at the question's time"


@dataclass(frozen=True)
class LifebenchCase:
    """What LifeBench's judges see of one question."""

    question: Question
    ranking: tuple[str, ...] | None
    """Every record the memory holds (``type:phone_id``, each once), best first; None without one."""
    day_ranking: tuple[str, ...] | None
    """The days of :attr:`ranking`, each once, in order of first appearance."""
    k: int
    no_ranking: str | None = None


def _retrieval_judge(inp: JudgeInput) -> dict[str, Any]:
    case: LifebenchCase = inp.case
    return evidence_verdict(
        case.ranking,
        case.question.relevant,
        case.k,
        "record",
        no_ranking=case.no_ranking or "no ranking",
        no_evidence=_NO_EVIDENCE,
    )


def _retrieval_day_judge(inp: JudgeInput) -> dict[str, Any]:
    case: LifebenchCase = inp.case
    verdict = evidence_verdict(
        case.day_ranking,
        case.question.relevant_days,
        case.k,
        "day",
        no_ranking=case.no_ranking or "no ranking",
        no_evidence=_NO_EVIDENCE,
    )
    return {**verdict, "judge": "retrieval_day"}


def _choice_judge(inp: JudgeInput) -> dict[str, Any]:
    question: Question = inp.case.question
    if not question.choice:
        return {"judge": "choice", "correct": None, "undefined": "an open question"}
    letters = [letter for letter, _ in question.options]
    return judge_choice(inp.answer.text or "", question.answer, letters)


def _abstention_judge(inp: JudgeInput) -> dict[str, Any]:
    question: Question = inp.case.question
    if question.question_type != UNANSWERABLE or question.choice:
        return {"judge": "abstention", "correct": None, "undefined": "not an Unanswerable open question"}
    return judge_abstention(inp.answer.text or "")


def _llm_judge(inp: JudgeInput) -> dict[str, Any]:
    question: Question = inp.case.question
    if question.choice or not question.score_points:
        return {
            "judge": "llm",
            "correct": None,
            "undefined": "no score_points (multiple choice or none given)",
        }
    if inp.llm is None:
        raise ConfigError("the lifebench llm judge needs judge_llm (or answer_llm) in the config")
    return judge_points(
        inp.llm, question.question, question.answer, question.score_points, inp.answer.text or ""
    )


#: The judges by name, each with what it needs from a run.
JUDGES = {
    "retrieval": Judge(_retrieval_judge, needs=("evidence",)),
    "retrieval_day": Judge(_retrieval_day_judge, needs=("evidence",)),
    "choice": Judge(_choice_judge, needs=("answer",)),
    "abstention": Judge(_abstention_judge, needs=("answer",)),
    "llm": Judge(_llm_judge, needs=("answer", "llm")),
}
