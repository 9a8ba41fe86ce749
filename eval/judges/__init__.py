"""Judges map (task, question, answer, gold) to a :class:`Verdict`: a rule judge and an LLM judge."""

from eval.judges.llm import judge_llm
from eval.judges.rule import Verdict, contains, judge_rule, normalize

__all__ = ["Verdict", "contains", "judge_llm", "judge_rule", "normalize"]
