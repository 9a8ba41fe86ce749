"""BEAM's judges; each maps a :class:`BeamCase` and the
answer to a verdict:

- ``retrieval`` (always, LLM-free): recall_any, recall_all and evidence_recall of the evidence messages
  at every depth (:mod:`memsuite.eval.retrieval_qa.evidence`); ``correct`` = recall_all at the run's
  k; undefined, with the reason, for a question without evidence ids or a system without a ranking.
- ``llm`` (with an answer LLM): BEAM's rubric judge through the run's judge LLM (:mod:`.llm`).
- ``rule`` (with an answer LLM, LLM-free): the rubric items as documented string rules (:mod:`.rule`);
  undecided items are ``None`` and the verdict carries its coverage.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from memsuite.eval.answer import JudgeInput
from memsuite.eval.benchmarks.beam.judges.llm import judge_llm
from memsuite.eval.benchmarks.beam.judges.rule import judge_rule
from memsuite.eval.benchmarks.beam.schema import BeamQuestion
from memsuite.eval.definition import Judge
from memsuite.eval.retrieval_qa.evidence import evidence_verdict
from memsuite.memory_systems.errors import ConfigError


@dataclass(frozen=True)
class BeamCase:
    """What BEAM's judges see of one question."""

    question: BeamQuestion
    ranking: Sequence[str] | None
    """Every document id of the conversation, best first; None without one (``no_ranking`` says why)."""
    relevant: tuple[str, ...]
    """The evidence messages mapped to the run's document ids."""
    k: int
    granularity: str
    no_ranking: str | None = None
    """Why there is no ranking (a reference row, memories that are not the conversation's documents)."""


def _retrieval_judge(inp: JudgeInput) -> dict[str, Any]:
    case: BeamCase = inp.case
    return evidence_verdict(
        case.ranking,
        case.relevant,
        case.k,
        case.granularity,
        no_ranking=case.no_ranking or "no ranking",
        no_evidence=f"no evidence ids ({case.question.ability})",
    )


def _llm_judge(inp: JudgeInput) -> dict[str, Any]:
    if inp.llm is None:
        raise ConfigError("the beam llm judge needs judge_llm (or answer_llm) in the config")
    return judge_llm(inp.llm, inp.case.question, inp.answer.text or "")


def _rule_judge(inp: JudgeInput) -> dict[str, Any]:
    return judge_rule(inp.case.question, inp.answer.text or "")


#: The judges by name, each with what it needs from a run.
JUDGES = {
    "retrieval": Judge(_retrieval_judge, needs=("evidence",)),
    "llm": Judge(_llm_judge, needs=("answer", "llm")),
    "rule": Judge(_rule_judge, needs=("answer",)),
}
