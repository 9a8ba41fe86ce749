"""REALTALK's judges; each maps a :class:`RealtalkCase` and the answer to a verdict (rows keep failed
and undefined verdicts, summaries leave them out and count them):

- ``retrieval`` (always, LLM-free): recall_any, recall_all and evidence_recall of the question's
  relevant ids at every depth of :data:`~memsuite.eval.retrieval_qa.evidence.KS` and the
  run's k, from the system's ranking of the whole chat; ``correct`` = recall_all at k. Undefined, with
  the reason, for a question citing no id the chat holds, and for a system without a ranking.
- ``f1`` (with an answer LLM, LLM-free): the release's lexical score per category (:mod:`.official`).
- ``llm`` (with an answer LLM): the release's 0-1 LLM score (:mod:`.llm`), through the run's judge LLM.
- ``rule`` (with an answer LLM, LLM-free): LoCoMo's rule judge
  (:func:`memsuite.eval.retrieval_qa.category_rule.judge_rule`: the same category numbering), strict;
  an undecided answer is ``correct: None`` with ``undecided``, and the summary prints the coverage.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memsuite.eval.answer import JudgeInput
from memsuite.eval.benchmarks.realtalk.judges.llm import judge_llm
from memsuite.eval.benchmarks.realtalk.judges.official import lexical_score, scored_gold
from memsuite.eval.benchmarks.realtalk.schema import Question
from memsuite.eval.definition import Judge
from memsuite.eval.retrieval_qa.category_rule import judge_rule
from memsuite.eval.retrieval_qa.evidence import evidence_verdict
from memsuite.memory_systems.errors import ConfigError


@dataclass(frozen=True)
class RealtalkCase:
    """What REALTALK's judges see of one question."""

    question: Question
    relevant: tuple[str, ...]
    """The question's relevant ids at the run's granularity."""
    ranking: tuple[str, ...] | None
    """Every document id of the chat, best first; None without one (``no_ranking`` says why)."""
    k: int
    granularity: str
    no_ranking: str | None = None


def _retrieval_judge(inp: JudgeInput) -> dict[str, Any]:
    case: RealtalkCase = inp.case
    return evidence_verdict(
        case.ranking,
        case.relevant,
        case.k,
        case.granularity,
        no_ranking=case.no_ranking or "no ranking",
        no_evidence="cites no id the chat holds",
    )


def _f1_judge(inp: JudgeInput) -> dict[str, Any]:
    question: Question = inp.case.question
    score = lexical_score(question.category, inp.answer.text or "", question.answer)
    if score is None:
        return {
            "judge": "f1",
            "correct": None,
            "undefined": f"no lexical rule for category {question.category}",
        }
    return {"judge": "f1", "score": score, "correct": score == 1.0}


def _llm_judge(inp: JudgeInput) -> dict[str, Any]:
    if inp.llm is None:
        raise ConfigError("the realtalk llm judge needs judge_llm (or answer_llm) in the config")
    question: Question = inp.case.question
    return judge_llm(inp.llm, question.question, question.answer, inp.answer.text or "")


def _rule_judge(inp: JudgeInput) -> dict[str, Any]:
    question: Question = inp.case.question
    gold = scored_gold(question.category, question.answer)
    verdict = judge_rule(question.category, gold, inp.answer.text or "", question=question.question)
    return {**verdict, "judge": "rule"}


#: The judges by name, each with what it needs from a run.
JUDGES = {
    "retrieval": Judge(_retrieval_judge, needs=("evidence",)),
    "f1": Judge(_f1_judge, needs=("answer",)),
    "llm": Judge(_llm_judge, needs=("answer", "llm")),
    "rule": Judge(_rule_judge, needs=("answer",)),
}
