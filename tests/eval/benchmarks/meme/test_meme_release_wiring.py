"""The release semantics wired into the protocol: a released-format episode gets the verdicts of its
generated original (evidence verdict, rule judge, row metadata), and a released Cascade answer that
states both the old and the new value fails the rule judge."""

from __future__ import annotations

from memsuite.eval.benchmarks.meme.agreement import gold_context, stale_answer
from memsuite.eval.benchmarks.meme.generator import generate_episode
from memsuite.eval.benchmarks.meme.judges.rule import judge_rule
from memsuite.eval.benchmarks.meme.loader import save_episodes
from memsuite.eval.benchmarks.meme.parsing import parse_episode
from memsuite.eval.benchmarks.meme.protocol import MemeBenchmark, evidence_verdict, meme_case
from memsuite.eval.benchmarks.meme.schema import Episode
from memsuite.eval.registry import definition
from memsuite.memory_systems.registry import get_system


def as_released(episode: Episode) -> Episode:
    """The episode in the released layout: no root_change, Cascade values hold only the new value."""
    data = episode.to_dict()
    data.pop("root_change")
    for q in data["after_questions"]["questions"]:
        if q["task_type"] == "Cas":
            q["entity_values"] = [q.get("gold_answer", q.get("expected_answer"))]
    return parse_episode(data)


def _verdicts(episode: Episode) -> list[tuple]:
    """Every question's evidence verdict on several contexts, and the rule judge on several answers."""
    out = []
    sessions = [s for s in episode.sessions if s.is_evidence]
    for phase in ("before", "after"):
        for question in episode.question_set(phase).questions:
            case = meme_case(episode, question, phase)
            contexts = [gold_context(episode, "before"), gold_context(episode, phase), ""]
            contexts += ["\n".join(t.content for t in s.conversation) for s in sessions]
            for context in contexts:
                verdict = evidence_verdict(
                    question,
                    phase,
                    context,
                    names=case.names,
                    change=case.change,
                    root_names=case.root_names,
                    old_value=case.old,
                )
                out.append((phase, question.question, "evidence", verdict["correct"], verdict["reason"]))
            answers = [question.gold, stale_answer(episode, question, phase, case.old), "I don't know."]
            if case.old:
                answers.append(f"{question.gold}, previously {case.old}")
            for answer in answers:
                verdict = judge_rule(question.task, answer, question.gold, **case.rule_args())
                out.append((phase, question.question, answer, verdict.correct, verdict.reason))
    return out


def test_released_layout_gives_the_verdicts_of_its_generated_original():
    for seed, domain in ((3, "software_project"), (8, "personal_life")):
        episode = generate_episode(seed, episode_id="ep", domain=domain)
        released = as_released(episode)
        assert released.root_change is None
        assert any(q.task == "Cas" and q.values == (q.gold,) for q in released.after_questions.questions)
        assert _verdicts(released) == _verdicts(episode)


def test_released_cascade_answer_with_old_and_new_value_fails_the_rule_judge():
    episode = as_released(generate_episode(3, episode_id="ep", domain="software_project"))
    question = next(q for q in episode.after_questions.questions if q.task == "Cas")
    case = meme_case(episode, question, "after")
    assert case.old and case.old != question.gold and question.old_value == question.gold
    both = f"It was {case.old} and is now {question.gold}."
    verdict = judge_rule("Cas", both, question.gold, **case.rule_args())
    assert verdict.correct is False and verdict.reason == "old value also stated"
    assert judge_rule("Cas", question.gold, question.gold, **case.rule_args()).correct is True
    # The naive reading of the released values (old_value == the new value) would have passed it.
    naive = judge_rule("Cas", both, question.gold, values=question.values, old_value=question.old_value)
    assert naive.correct is True


def test_protocol_rows_agree_on_released_and_generated_files(tmp_path):
    episode = generate_episode(3, episode_id="ep", domain="software_project")
    rows = {}
    for label, ep in (("generated", episode), ("released", as_released(episode))):
        path = tmp_path / f"{label}.json"
        save_episodes([ep], path)
        bench = MemeBenchmark(data=path, snapshots=False)
        system = get_system("bm25")
        ctx = definition("meme").context(k=5, judges=())
        rows[label] = list(bench.run_unit(system, "ep", ctx))
    for gen, rel in zip(rows["generated"], rows["released"], strict=True):
        assert gen.context == rel.context
        assert gen.verdicts["evidence"] == rel.verdicts["evidence"]
        assert gen.metadata["old_value"] == rel.metadata["old_value"]
    cas = [r for r in rows["released"] if r.metadata["task"] == "Cas" and r.metadata["phase"] == "after"]
    assert cas and all(r.metadata["old_value"] not in (None, r.gold) for r in cas)
