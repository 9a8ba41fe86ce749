"""MEME's judges map (task, question, answer, gold) to a :class:`Verdict`: a rule judge and an LLM judge."""

from memsuite.eval.benchmarks.meme.judges.llm import judge_llm
from memsuite.eval.benchmarks.meme.judges.rule import Verdict, contains, judge_rule, normalize

__all__ = ["Verdict", "contains", "judge_llm", "judge_rule", "normalize"]
