"""LoCoMo's judges; each maps a :class:`LocomoCase` and
the answer to a verdict (rows keep failed and undefined verdicts, summaries leave them out and count them):

- ``evidence`` (always, LLM-free): the recall of the question's evidence dia_ids among the retrieved
  turns (``correct`` = all found); for a system whose memories are not turns, ``answer_in_context``.
- ``f1`` (with an answer LLM): LoCoMo's per-category token F1 (:mod:`.official`), in ``score``.
- ``rule`` (with an answer LLM, LLM-free): the J prompt's rubric as string rules (:mod:`.rule`), and
  category 5's own rule (:mod:`.adversarial`: abstains, asserts neither the trap nor another answer);
  undecided answers are ``correct: None`` with ``undecided``. Strict by default; ``rule_official`` is
  the same judge with the J prompt's generosity ("touches on the same topic": :mod:`.rule`).
- ``llm`` (with an answer LLM): the mem0 judge (:mod:`.llm`) through ``ctx.judge_llm`` when the run
  has one, else the answer LLM; category 5 through a restated prompt for the same test as the rule's.

Category 5 in the choice format (``LocomoCase.options``): every answer judge scores the option the
answer chose (right only for "not mentioned"); a reply naming no option is judged as an open answer.

The audited key (:mod:`..audit`): when the case carries a finding, a verdict also holds ``audited``,
the same judge's verdict against the audited question (``correct_answer`` for answer judges where
the gold is wrong, ``correct_evidence`` for retrieval), or ``{"correct": None, "ambiguous": True}``
for an AMBIGUOUS finding (scored apart). Without ``audited`` the original verdict stands for both keys.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from memsuite.eval.answer import JudgeInput
from memsuite.eval.answer_rules.overlap import has_answer
from memsuite.eval.benchmarks.locomo.audit import Finding
from memsuite.eval.benchmarks.locomo.judges.llm import judge_adversarial_llm, judge_llm
from memsuite.eval.benchmarks.locomo.schema import ADVERSARIAL, Question
from memsuite.eval.definition import Judge
from memsuite.eval.retrieval_qa.adversarial import NOT_MENTIONED, chosen_option, judge_adversarial
from memsuite.eval.retrieval_qa.category_f1 import category_f1, evidence_recall
from memsuite.eval.retrieval_qa.category_rule import judge_rule
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
    audit: Finding | None = None
    """The audit's finding on the question, when the run's answer key uses the audit."""
    options: tuple[str, ...] | None = None
    """Category 5 asked in the choice format: its options, in order (letters a, b, ...)."""


def with_audit(case: LocomoCase, verdict_of: Callable[[Question], dict[str, Any]], *, answer: bool) -> dict:
    """``verdict_of(case.question)``, plus ``audited`` where the case's finding changes what the judge
    reads (the gold for an answer judge, the evidence for a retrieval verdict; module docstring)."""
    verdict = dict(verdict_of(case.question))
    finding = case.audit
    if finding is None:
        return verdict
    if finding.ambiguous:
        verdict["audited"] = {"correct": None, "ambiguous": True}
    elif finding.changes_answer if answer else finding.evidence_changed:
        verdict["audited"] = dict(verdict_of(finding.audited(case.question)))
    return verdict


def _choice(judge: str, case: LocomoCase, answer: str) -> dict[str, Any] | None:
    """The verdict of a category-5 choice reply that names an option; None for any other answer."""
    if case.question.category != ADVERSARIAL or not case.options:
        return None
    chosen = chosen_option(answer, case.options)
    if chosen is None:
        return None
    letter, text = chr(ord("a") + chosen), case.options[chosen]
    right = text == NOT_MENTIONED
    return {"judge": judge, "correct": right, "choice": letter, "reason": f"chose ({letter}) {text!r}"}


def _evidence_judge(inp: JudgeInput) -> dict[str, Any]:
    case: LocomoCase = inp.case

    def of(question: Question) -> dict[str, Any]:
        in_context = case.in_context
        if question is not case.question and (gold := gold_for_scoring(question)) is not None:
            in_context = has_answer([gold], inp.context)
        return _evidence_verdict(question, list(case.dia_ids), case.turns, in_context)

    return with_audit(case, of, answer=not case.turns)


def _f1_judge(inp: JudgeInput) -> dict[str, Any]:
    def of(question: Question) -> dict[str, Any]:
        score = category_f1(question.category, inp.answer.data, gold_for_scoring(question))
        return {"judge": "f1", "score": score, "correct": score == 1.0}

    return with_audit(inp.case, of, answer=True)


def _llm_judge(inp: JudgeInput) -> dict[str, Any]:
    case: LocomoCase = inp.case
    choice = _choice("llm", case, inp.answer.data or "")
    if choice is not None:
        return choice
    if inp.llm is None:
        raise ConfigError("the locomo llm judge needs judge_llm (or answer_llm) in the config")

    def of(question: Question) -> dict[str, Any]:
        if question.category == ADVERSARIAL:
            trap = question.adversarial_answer
            return judge_adversarial_llm(inp.llm, question.question, trap, inp.answer.data)
        return judge_llm(inp.llm, question.question, str(gold_for_scoring(question)), inp.answer.data)

    return with_audit(case, of, answer=True)


def _rule_judge(inp: JudgeInput, leniency: str = "strict") -> dict[str, Any]:
    case: LocomoCase = inp.case
    answer = inp.answer.data or ""

    def of(question: Question) -> dict[str, Any]:
        if question.category == ADVERSARIAL:
            return judge_adversarial(answer, question.adversarial_answer, question.question, case.options)
        gold = gold_for_scoring(question)
        return judge_rule(question.category, gold, answer, question=question.question, leniency=leniency)

    return with_audit(case, of, answer=True)


def _rule_official_judge(inp: JudgeInput) -> dict[str, Any]:
    return {**_rule_judge(inp, "official"), "judge": "rule_official"}


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


#: The judges by name, each with what it needs from a run.
JUDGES = {
    "evidence": Judge(_evidence_judge, needs=("evidence",)),
    "f1": Judge(_f1_judge, needs=("answer",)),
    "llm": Judge(_llm_judge, needs=("answer", "llm")),
    "rule": Judge(_rule_judge, needs=("answer",)),
    "rule_official": Judge(_rule_official_judge, needs=("answer",)),
}
