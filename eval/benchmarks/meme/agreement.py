"""Do MEME's LLM-free verdicts agree with gold on gold material? (the held-out phrasing check)

For each question of an episode: the ``evidence`` verdict on the *gold evidence context* (the evidence
sessions up to the question's phase, concatenated: everything the question needs, worded as the
dialogue worded it) must be True; the ``rule`` judge must pass the gold answer and fail a stale or
wrong one (:func:`stale_answer`). Run on the generator's ``dev`` phrasing (which the rules were
written against) and its ``heldout`` phrasing (which they were not), the two rates say whether the
verdicts hold on wording of the rules' own making only. ``benchmarks/bench_meme_phrasing.py`` prints
them; ``tests/eval/benchmarks/meme/test_meme_phrasing_agreement.py`` requires them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from eval.benchmarks.meme.judges.rule import judge_rule, normalize
from eval.benchmarks.meme.protocol import evidence_verdict, meme_case
from eval.benchmarks.meme.schema import DELETION_GOLD, Episode, Question


def gold_context(episode: Episode, phase: str) -> str:
    """The evidence sessions up to the phase's questions, as ``Role: text`` lines."""
    end = episode.question_set(phase).position_after_session
    lines = []
    for session in episode.sessions[: end + 1]:
        if not session.is_evidence:
            continue
        for turn in session.conversation:
            lines.append(f"{turn.role.capitalize()}: {turn.content}")
    return "\n".join(lines)


def _other_value(episode: Episode, question: Question) -> str:
    """A value of another entity of the episode (a wrong answer that names a real value)."""
    mine = {normalize(v) for v in (*question.values, question.gold)}
    for eid, meta in (episode.entities or {}).items():
        before = meta.get("before") if isinstance(meta, dict) else None
        if eid not in question.entities and isinstance(before, str) and normalize(before) not in mine:
            return before
    return "I don't have that information."


def stale_answer(episode: Episode, question: Question, phase: str, old: str | None) -> str:
    """A wrong answer: the stale value (Cas, Abs), the deleted value (Del), one value short (Agg), the
    values out of order (Tr), another entity's value (ER and before-questions)."""
    task = question.task
    if phase == "after" and task == "Agg" and len(question.values) > 1:
        return ", ".join(question.values[:-1])
    if phase == "after" and task == "Tr" and len(question.values) > 1:
        return ", ".join(reversed(question.values))
    if phase == "after" and task in ("Cas", "Abs", "Del") and old:
        return f"It is {old}."
    return _other_value(episode, question)


@dataclass
class Agreement:
    """Counts of questions whose verdicts agree with gold, and the ones that did not."""

    questions: int = 0
    evidence_agree: int = 0
    rule_agree: int = 0
    misses: list[dict] = field(default_factory=list)

    @property
    def evidence_rate(self) -> float:
        return self.evidence_agree / self.questions if self.questions else 0.0

    @property
    def rule_rate(self) -> float:
        return self.rule_agree / self.questions if self.questions else 0.0


def agreement(episodes: Iterable[Episode]) -> Agreement:
    """Evidence verdict and rule judge against gold on every question of ``episodes``."""
    out = Agreement()
    for episode in episodes:
        for phase in ("before", "after"):
            context = gold_context(episode, phase)
            for question in episode.question_set(phase).questions:
                case = meme_case(episode, question, phase)
                evidence = evidence_verdict(
                    question,
                    phase,
                    context,
                    names=case.names,
                    change=case.change,
                    root_names=case.root_names,
                    old_value=case.old,
                )
                args = case.rule_args()
                gold = judge_rule(question.task, question.gold, question.gold, **args)
                wrong = stale_answer(episode, question, phase, case.old)
                stale = judge_rule(question.task, wrong, question.gold, **args)
                rule_ok = gold.correct is True and stale.correct is False
                out.questions += 1
                out.evidence_agree += bool(evidence["correct"])
                out.rule_agree += rule_ok
                if not evidence["correct"] or not rule_ok:
                    out.misses.append(
                        {
                            "episode": episode.episode_id,
                            "phase": phase,
                            "task": question.task,
                            "gold": question.gold if question.gold != DELETION_GOLD else "(deleted)",
                            "evidence": evidence["reason"] if not evidence["correct"] else None,
                            "rule_gold": None if gold.correct else gold.reason,
                            "rule_stale": None if stale.correct is False else f"{wrong!r}: {stale.reason}",
                        }
                    )
    return out
