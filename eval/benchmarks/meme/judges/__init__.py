"""MEME's judges map (task, question, answer, gold) to a :class:`Verdict`: a rule judge and an LLM judge.

The judges (:data:`JUDGES`), each reading a :class:`~..protocol.MemeCase`:
``evidence`` (always, LLM-free: the retrieved context holds what the question needs, :mod:`..evidence`),
``rule`` (deterministic, :mod:`.rule`) and ``llm`` (through the run's judge LLM, :mod:`.llm`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memsuite.eval.answer import JudgeInput
from memsuite.eval.benchmarks.meme.judges.llm import judge_llm
from memsuite.eval.benchmarks.meme.judges.rule import Verdict, judge_rule
from memsuite.eval.benchmarks.meme.matching import contains, normalize
from memsuite.eval.definition import Judge
from memsuite.memory_systems.errors import ConfigError

if TYPE_CHECKING:
    from memsuite.eval.benchmarks.meme.protocol import MemeCase

__all__ = ["Verdict", "contains", "judge_llm", "judge_rule", "normalize"]


def _evidence_judge(inp: JudgeInput) -> dict[str, Any]:
    case: MemeCase = inp.case
    return case.evidence(inp.context)


def _rule_judge(inp: JudgeInput) -> dict[str, Any]:
    case: MemeCase = inp.case
    q = case.question
    return judge_rule(q.task, inp.answer.text or "", q.gold, **case.rule_args()).to_dict()


def _llm_judge(inp: JudgeInput) -> dict[str, Any]:
    if inp.llm is None:
        raise ConfigError("the meme llm judge needs judge_llm (or answer_llm) in the config")
    case: MemeCase = inp.case
    q = case.question
    args = case.rule_args()
    return judge_llm(inp.llm, q.task, q.question, inp.answer.text or "", q.gold, **args).to_dict()


#: The judges by name, each with what it needs from a run.
JUDGES = {
    "evidence": Judge(_evidence_judge, needs=("evidence",)),
    "rule": Judge(_rule_judge, needs=("answer",)),
    "llm": Judge(_llm_judge, needs=("answer", "llm")),
}
