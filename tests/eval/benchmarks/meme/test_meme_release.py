"""Release facts (eval/benchmarks/meme/release.py): the upstream change and old values, both layouts.

The released layout (facts of the public MEME release, written here with invented values): a
Cascade after-question's ``entity_values`` is ``{entity: new value}``, an Absence gold reads
``Uncertain — previously '<old>', but <source id> changed``, before-questions carry
``expected_answer`` and after-questions ``gold_answer``, and ``root_change`` may be missing.
"""

from __future__ import annotations

from memsuite.eval.benchmarks.meme.generator import generate_episode
from memsuite.eval.benchmarks.meme.parsing import parse_episode
from memsuite.eval.benchmarks.meme.release import UpstreamChange, old_value_of, root_entity, upstream_change
from memsuite.eval.benchmarks.meme.schema import Episode


def _session(sid, facts=None):
    out = {
        "session_id": sid,
        "timestamp": "2023/03/05 (Sun) 11:24",
        "conversation": [{"role": "user", "content": "hello"}, {"role": "assistant", "content": "hi"}],
    }
    if facts is not None:
        out.update(type="evidence", gold_facts=facts)
    else:
        out["type"] = "filler"
    return out


def released(**overrides) -> Episode:
    data = {
        "episode_id": "pl_901",
        "domain": "personal_life",
        "root": "health_condition",
        "dependency_edges_used": [
            {"source": "health_condition", "target": "medication", "hop": 1, "pattern": "medical_causation"},
            {"source": "health_condition", "target": "sleep_pattern", "hop": 1},
        ],
        "sessions": [
            _session(
                "ev_1",
                [
                    {"entity": "health_condition", "value": "mild asthma"},
                    {"entity": "medication", "value": "Velorix"},
                    {"entity": "sleep_pattern", "value": "early riser"},
                ],
            ),
            _session("filler_1"),
            _session("ev_2", [{"entity": "medication", "value": "Quenzamol"}]),  # the stated rule
            _session("ev_3", [{"entity": "health_condition", "value": "chronic migraine"}]),
            _session("filler_2"),
        ],
        "before_questions": {
            "position_after_session": 2,
            "questions": [
                {
                    "task_type": "Cas",
                    "entity": ["medication"],
                    "entity_values": {"medication": "Velorix"},
                    "question": "What medication do I take?",
                    "expected_answer": "Velorix",
                },
            ],
        },
        "after_questions": {
            "position_after_session": 4,
            "questions": [
                {
                    "task_type": "Cas",
                    "entity": ["medication"],
                    "entity_values": {"medication": "Quenzamol"},
                    "question": "What medication do I take?",
                    "gold_answer": "Quenzamol",
                    "hop": 1,
                },
                {
                    "task_type": "Abs",
                    "entity": ["sleep_pattern"],
                    "entity_values": {"sleep_pattern": "early riser"},
                    "question": "What is my sleep pattern?",
                    "hop": 1,
                    "gold_answer": "Uncertain — previously 'early riser', but health_condition changed",
                },
                {
                    "task_type": "Del",
                    "entity": ["gym"],
                    "entity_values": {"gym": "Ironleaf"},
                    "question": "Which gym do I go to?",
                    "gold_answer": "No — explicitly removed",
                },
                {
                    "task_type": "ER",
                    "entity": ["locker"],
                    "entity_values": {"locker": "L-14"},
                    "question": "Locker?",
                    "gold_answer": "L-14",
                },
            ],
        },
    }
    data.update(overrides)
    return parse_episode({k: v for k, v in data.items() if v is not None})


def _after(episode, task):
    return next(q for q in episode.after_questions.questions if q.task == task)


def test_upstream_change_from_gold_facts_when_root_change_is_absent():
    episode = released()
    assert episode.root_change is None
    assert upstream_change(episode) == UpstreamChange("health_condition", "mild asthma", "chronic migraine")


def test_root_is_derived_from_the_edges_or_the_first_changed_fact():
    no_root = released(root=None)
    assert root_entity(no_root) == "health_condition"
    assert upstream_change(no_root) == UpstreamChange("health_condition", "mild asthma", "chronic migraine")
    bare = released(root=None, dependency_edges_used=None)
    assert root_entity(bare) is None
    # The medication's rule value sits before the probe, so the first change after it is the root's.
    assert upstream_change(bare) == UpstreamChange("health_condition", "mild asthma", "chronic migraine")


def test_recorded_root_change_wins_and_no_change_gives_none():
    recorded = released(root_change={"before": "mild asthma", "after": "chronic migraine"})
    assert upstream_change(recorded) == ("health_condition", "mild asthma", "chronic migraine")
    sessions = [*released().to_dict()["sessions"][:3], _session("f3"), _session("f4")]
    assert upstream_change(released(sessions=sessions)) is None


def test_old_value_of_a_released_cascade_question_is_not_its_new_value():
    episode = released()
    cas = _after(episode, "Cas")
    assert cas.old_value == "Quenzamol"  # what Question.old_value says: the new value
    assert old_value_of(episode, cas) == "Velorix"  # the before-question's answer
    no_before = released(before_questions={"position_after_session": 2, "questions": []})
    assert old_value_of(no_before, _after(no_before, "Cas")) == "Velorix"  # the earlier gold fact
    assert old_value_of(episode, _after(episode, "Abs")) == "early riser"
    assert old_value_of(episode, _after(episode, "Del")) == "Ironleaf"
    assert old_value_of(episode, _after(episode, "ER")) is None


def test_old_value_from_entities_metadata_as_last_resort():
    bare = released(
        before_questions={"position_after_session": 2, "questions": []},
        sessions=[_session(f"s{i}") for i in range(5)],
        entities={"medication": {"before": "Velorix", "after": "Quenzamol", "task": "A"}},
    )
    assert old_value_of(bare, _after(bare, "Cas")) == "Velorix"


def test_generated_episodes_agree():
    episode = generate_episode(3, episode_id="sw_001", domain="software_project")
    change = upstream_change(episode)
    assert change == (episode.root, episode.root_change["before"], episode.root_change["after"])
    for _, _, question in episode.iter_questions():
        if question.task in ("Cas", "Abs", "Del"):
            assert old_value_of(episode, question) == question.old_value
    # The same episode in the released layout: no root_change, Cas values hold only the new value.
    data = episode.to_dict()
    data.pop("root_change")
    for q in data["after_questions"]["questions"]:
        if q["task_type"] == "Cas":
            q["entity_values"] = {q["entity"][0]: q["gold_answer"]}
    as_released = parse_episode(data)
    assert upstream_change(as_released) == change
    for question in as_released.after_questions.questions:
        if question.task == "Cas":
            generated = next(q for q in episode.after_questions.questions if q.question == question.question)
            assert old_value_of(as_released, question) == generated.old_value != question.gold
