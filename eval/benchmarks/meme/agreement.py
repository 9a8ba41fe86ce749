"""Do MEME's LLM-free verdicts agree with gold on gold material? (the held-out phrasing check)

For each question of an episode, both ways:

- the ``evidence`` verdict must say True on the *gold evidence context* (the evidence sessions up to
  the question's phase, concatenated: everything the question needs, worded as the dialogue worded
  it), and False on every *control* context (:func:`controls`): the same sessions less the ones that
  carry a piece the question needs (the values; for Cas the rule or the change; for Abs the
  dependency or the change; for Del the deletion request). A verdict that says yes to anything
  would pass the first half and fail the second;
- the ``rule`` judge must pass the gold answer and fail a stale or wrong one (:func:`stale_answer`).

A question agrees when every check of its kind holds. Run on the generator's phrasing families --
``dev`` to ``dev4`` (wording the rules were written or corrected against) and ``heldout``
(wording written blind to them) -- the rates say whether the verdicts hold beyond wording of their own
making.
``perf/bench_meme_phrasing.py`` prints them; ``tests/eval/benchmarks/meme/
test_meme_phrasing_agreement.py`` requires them. Controls need the generator's fact ``kind`` on the
gold facts; a released episode lacks it and gets none.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from memsuite.eval.benchmarks.meme.judges.rule import judge_rule
from memsuite.eval.benchmarks.meme.matching import normalize
from memsuite.eval.benchmarks.meme.protocol import meme_case
from memsuite.eval.benchmarks.meme.schema import DELETION_GOLD, Episode, Question


def gold_context(episode: Episode, phase: str, *, without: frozenset[int] = frozenset()) -> str:
    """The evidence sessions up to the phase's questions (less the indices in ``without``), as
    ``Role: text`` lines."""
    end = episode.question_set(phase).position_after_session
    lines = []
    for index, session in enumerate(episode.sessions[: end + 1]):
        if not session.is_evidence or index in without:
            continue
        for turn in session.conversation:
            lines.append(f"{turn.role.capitalize()}: {turn.content}")
    return "\n".join(lines)


#: Per task (after the change), the fact kinds whose sessions each control leaves out: one control
#: per entry. Before-questions and the static tasks leave out every session about the entities.
_CONTROL_KINDS: dict[str, tuple[tuple[str, ...], ...]] = {
    "Cas": (("rule",), ("change",)),
    "Abs": (("dependency",), ("change",)),
    "Del": (("delete",),),
}


def _sessions_with(episode: Episode, kinds: tuple[str, ...] | None, entities: set[str] | None) -> frozenset:
    out = set()
    for index, session in enumerate(episode.sessions):
        for fact in session.gold_facts or ():
            kind = fact.extra.get("kind")
            if kinds is not None and kind not in kinds:
                continue
            if entities is not None and fact.entity not in entities:
                continue
            out.add(index)
    return frozenset(out)


def controls(episode: Episode, question: Question, phase: str) -> list[tuple[str, str]]:
    """``(label, context)`` pairs on which the evidence verdict must say False (module docstring)."""
    ids = set(question.entities)
    if phase == "after" and question.task in _CONTROL_KINDS:
        plans = [
            # A change is on the root, not on the question's entity.
            ("without " + "/".join(kinds), _sessions_with(episode, kinds, None if "change" in kinds else ids))
            for kinds in _CONTROL_KINDS[question.task]
        ]
    else:
        plans = [("without the values", _sessions_with(episode, None, ids))]
    return [(label, gold_context(episode, phase, without=left)) for label, left in plans if left]


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
    """Questions whose evidence verdict says True on the gold context and False on every control."""
    evidence_positive: int = 0
    """Questions whose evidence verdict says True on the gold context."""
    controls: int = 0
    controls_rejected: int = 0
    """Control contexts (all questions) on which the evidence verdict said False, as it must."""
    rule_agree: int = 0
    misses: list[dict] = field(default_factory=list)

    @property
    def evidence_rate(self) -> float:
        return self.evidence_agree / self.questions if self.questions else 0.0

    @property
    def positive_rate(self) -> float:
        return self.evidence_positive / self.questions if self.questions else 0.0

    @property
    def control_rate(self) -> float:
        return self.controls_rejected / self.controls if self.controls else 0.0

    @property
    def rule_rate(self) -> float:
        return self.rule_agree / self.questions if self.questions else 0.0


def agreement(episodes: Iterable[Episode]) -> Agreement:
    """Evidence verdict (gold context and controls) and rule judge against gold on every question."""
    out = Agreement()
    for episode in episodes:
        for phase in ("before", "after"):
            context = gold_context(episode, phase)
            for question in episode.question_set(phase).questions:
                case = meme_case(episode, question, phase)
                held = case.evidence(context)
                checks = controls(episode, question, phase)
                accepted = [label for label, text in checks if case.evidence(text)["correct"]]
                args = case.rule_args()
                gold = judge_rule(question.task, question.gold, question.gold, **args)
                wrong = stale_answer(episode, question, phase, case.old)
                stale = judge_rule(question.task, wrong, question.gold, **args)
                rule_ok = gold.correct is True and stale.correct is False
                out.questions += 1
                out.controls += len(checks)
                out.controls_rejected += len(checks) - len(accepted)
                out.evidence_positive += bool(held["correct"])
                out.evidence_agree += bool(held["correct"]) and not accepted
                out.rule_agree += rule_ok
                if not held["correct"] or accepted or not rule_ok:
                    out.misses.append(
                        {
                            "episode": episode.episode_id,
                            "phase": phase,
                            "task": question.task,
                            "gold": question.gold if question.gold != DELETION_GOLD else "(deleted)",
                            "evidence": held["reason"] if not held["correct"] else None,
                            "control_accepted": accepted or None,
                            "rule_gold": None if gold.correct else gold.reason,
                            "rule_stale": None if stale.correct is False else f"{wrong!r}: {stale.reason}",
                        }
                    )
    return out
