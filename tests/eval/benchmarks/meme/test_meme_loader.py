"""MEME episode loader: hand-made episodes in the old long-form and the new short-form task names,
round trips to the released JSON, and malformed files named by file, episode and field."""

from __future__ import annotations

import copy
import json

import pytest

from memsuite.eval.benchmarks.meme.loader import load_episodes, save_episodes
from memsuite.eval.benchmarks.meme.parsing import parse_episode
from memsuite.eval.benchmarks.meme.schema import DELETION_GOLD, parse_task_type
from memsuite.memory_systems.errors import ConfigError, DatasetError
from memsuite.memory_systems.records import Session


def _session(sid, ts, *lines, **extra):
    roles = ("user", "assistant")
    return {
        "session_id": sid,
        "timestamp": ts,
        "conversation": [{"role": roles[i % 2], "content": text} for i, text in enumerate(lines)],
        **extra,
    }


def _long_form_episode():
    """A minimal hand-made episode in the earlier release's long-form task names: only the five
    required top-level fields, no metadata."""
    return {
        "episode_id": "pl_900",
        "domain": "personal_life",
        "sessions": [
            _session(
                "s0",
                "2023/03/01 (Wed) 09:00",
                "My gym is Pulsehaus and my Wi-Fi password is otter-Lantern-5529!",
                "Noted both.",
            ),
            _session("s1", "2023/03/02 (Thu) 10:30", "My workout class depends on my gym.", "Got it."),
            _session(
                "s2",
                "2023/03/03 (Fri) 08:15",
                "My locker depends on my gym; if my gym changes, my locker will be B-12.",
                "Understood.",
            ),
            _session(
                "s3",
                "2023/03/04 (Sat) 18:00",
                "We switched gyms to Liftmoor. Forget my Wi-Fi password.",
                "Done.",
            ),
        ],
        "before_questions": {
            "position_after_session": 2,
            "questions": [
                {
                    "task_type": "Exact (exact recall)",
                    "entity": ["wifi"],
                    "question": "What is my Wi-Fi password?",
                    "expected_answer": "otter-Lantern-5529!",
                },
                {
                    "task_type": "Deletion (before delete)",
                    "entity": ["wifi"],
                    "question": "Do you know my Wi-Fi password?",
                    "expected_answer": "otter-Lantern-5529!",
                },
                {
                    "task_type": "Cascade-D (1-hop)",
                    "entity": ["locker"],
                    "question": "What is my locker?",
                    "expected_answer": "A-3",
                },
                {
                    "task_type": "Cascade-U (1-hop)",
                    "entity": ["class"],
                    "question": "What is my workout class?",
                    "expected_answer": "Monday Corecraft",
                },
            ],
        },
        "after_questions": {
            "position_after_session": 3,
            "questions": [
                {"task_type": "Exact", "entity": ["wifi"], "question": "Wi-Fi?", "gold_answer": "x"},
                {
                    "task_type": "Multi-hop",
                    "entity": ["a", "b", "c"],
                    "question": "All?",
                    "gold_answer": "1, 2, 3",
                },
                {
                    "task_type": "Multiple-update",
                    "entity": ["gym"],
                    "question": "Gyms?",
                    "gold_answer": "P, L",
                },
                {
                    "task_type": "Deletion",
                    "entity": ["wifi"],
                    "question": "Wi-Fi?",
                    "gold_answer": DELETION_GOLD,
                },
                {
                    "task_type": "Cascade-D (1-hop)",
                    "entity": ["locker"],
                    "entity_values": ["A-3", "B-12"],
                    "question": "What is my locker now?",
                    "gold_answer": "B-12",
                },
                {
                    "task_type": "Cascade-U (1-hop)",
                    "entity": "class",
                    "question": "What is my workout class now?",
                    "gold_answer": "Uncertain — previously 'Monday Corecraft', but my gym changed",
                },
            ],
        },
    }


def _short_form_episode():
    """The same episode in the short task codes, with metadata, extra keys and gold facts."""
    data = _long_form_episode()
    data["episode_id"] = "sw_901"
    data["domain"] = "software_project"
    codes = {
        "before": ["ER", "Del", "Cas", "Abs"],
        "after": ["ER", "Agg", "Tr", "Del", "Cas", "Abs"],
    }
    for phase, tasks in codes.items():
        for question, code in zip(data[f"{phase}_questions"]["questions"], tasks, strict=True):
            question["task_type"] = code
            if code in ("Cas", "Abs"):
                question["hop"] = 1
    data["after_questions"]["questions"][5]["entity"] = ["class"]
    data["root"] = "gym"
    data["root_change"] = {"before": "Pulsehaus", "after": "Liftmoor"}
    data["has_2hop"] = False
    data["dependency_edges_used"] = [{"source": "gym", "target": "locker", "hop": 1, "pattern": "routine"}]
    data["tasks"] = [{"type": "Cas", "target_entities": ["locker"], "gold_answer": "B-12", "hop": 1}]
    data["evidence_session_indices"] = [0, 1, 2, 3]
    data["num_sessions"] = 4  # a count the schema does not model: kept in extra
    data["sessions"][0]["type"] = "evidence"
    data["sessions"][0]["evidence_type"] = "fact_intro_1a"
    data["sessions"][0]["gold_facts"] = [
        {
            "entity": "gym",
            "value": "Pulsehaus",
            "fact_text": "My gym is Pulsehaus.",
            "conveyed_in_turn": 0,
            "notes": "x",
        }
    ]
    return data


@pytest.mark.parametrize(
    ("label", "code", "hop"),
    [
        ("Exact", "ER", None),
        ("Exact (exact recall)", "ER", None),
        ("Multi-hop", "Agg", None),
        ("Multiple-update", "Tr", None),
        ("Deletion", "Del", None),
        ("Deletion (before delete)", "Del", None),
        ("Cascade-D (1-hop)", "Cas", 1),
        ("Cascade-D (2-hop)", "Cas", 2),
        ("Cascade-U (1-hop)", "Abs", 1),
        ("Cascade-U (2-hop)", "Abs", 2),
        ("Abs", "Abs", None),
        ("agg", "Agg", None),
    ],
)
def test_task_names_map_to_short_codes(label, code, hop):
    assert parse_task_type(label) == (code, hop)


def test_unknown_task_name_lists_the_known_ones():
    with pytest.raises(ValueError, match=r"unknown task type 'Cascade-X'.*Multi-hop"):
        parse_task_type("Cascade-X")


def test_long_form_episode_loads_and_round_trips(tmp_path):
    data = _long_form_episode()
    path = tmp_path / "old.json"
    path.write_text(json.dumps([data]))
    (episode,) = load_episodes(path)
    before = [q.task for q in episode.before_questions.questions]
    after = [q.task for q in episode.after_questions.questions]
    assert before == ["ER", "Del", "Cas", "Abs"]
    assert after == ["ER", "Agg", "Tr", "Del", "Cas", "Abs"]
    assert [q.resolved_hop for q in episode.after_questions.questions][4:] == [1, 1]
    assert episode.before_questions.questions[0].gold == "otter-Lantern-5529!"  # expected_answer
    assert episode.after_questions.questions[3].gold == DELETION_GOLD  # gold_answer
    # Metadata is optional: absent fields stay None.
    assert episode.root is None and episode.tasks is None and episode.entities is None
    # A single-string entity is accepted; the only change a round trip makes is listing it.
    assert episode.after_questions.questions[5].entities == ("class",)
    expected = copy.deepcopy(data)
    expected["after_questions"]["questions"][5]["entity"] = ["class"]
    assert episode.to_dict() == expected


def test_short_form_episode_keeps_metadata_and_unknown_keys(tmp_path):
    data = _short_form_episode()
    episode = parse_episode(data)
    assert episode.root == "gym" and episode.has_2hop is False
    assert episode.dependency_edges_used[0].pattern == "routine"
    assert episode.tasks[0].task == "Cas" and episode.tasks[0].hop == 1
    assert episode.extra == {"num_sessions": 4}
    assert episode.sessions[0].gold_facts[0].value == "Pulsehaus"
    assert episode.to_dict() == data
    assert parse_episode(episode.to_dict()) == episode


def test_question_values_and_old_value():
    episode = parse_episode(_long_form_episode())
    cas, abs_ = episode.after_questions.questions[4:]
    assert cas.values == ("A-3", "B-12") and cas.old_value == "A-3"
    # No entity_values: the old value is read from the Abs gold.
    assert abs_.values == () and abs_.old_value == "Monday Corecraft"
    assert episode.after_questions.questions[0].old_value is None  # ER has none


def test_sessions_convert_and_split_by_phase():
    data = _short_form_episode()
    episode = parse_episode(data)
    sessions = episode.to_sessions()
    assert all(isinstance(s, Session) for s in sessions)
    first = sessions[0]
    assert first.session_id == "s0" and first.timestamp == "2023/03/01 (Wed) 09:00"
    assert first.turns[0].role == "user" and "Pulsehaus" in first.turns[0].content
    assert first.metadata["type"] == "evidence" and first.metadata["evidence_type"] == "fact_intro_1a"
    assert first.metadata["gold_facts"][0]["entity"] == "gym"
    assert [s.session_id for s in episode.phase_sessions("before")] == ["s0", "s1", "s2"]
    assert [s.session_id for s in episode.phase_sessions("after")] == ["s3"]
    ids = [qid for qid, _, _ in episode.iter_questions()]
    assert ids[0] == "before-00-ER" and ids[-1] == "after-05-Abs" and len(set(ids)) == 10


def test_folder_of_files_and_array_file_load_alike(tmp_path):
    episodes = [parse_episode(_long_form_episode()), parse_episode(_short_form_episode())]
    folder = tmp_path / "release"
    save_episodes(episodes, folder)
    assert sorted(p.name for p in folder.iterdir()) == ["pl_900.json", "sw_901.json"]
    array = tmp_path / "release.json"
    save_episodes(episodes, array)
    assert load_episodes(folder) == load_episodes(array) == episodes


def test_save_refuses_a_folder_with_other_episode_files(tmp_path):
    (tmp_path / "old_episode.json").write_text("{}")
    with pytest.raises(ConfigError, match=r"old_episode\.json"):
        save_episodes([parse_episode(_long_form_episode())], tmp_path)


def _break(path_and_value):
    """Apply ``(["key", 0, "key"], value)`` to a fresh long-form episode; value None deletes."""
    keys, value = path_and_value
    data = _long_form_episode()
    node = data
    for key in keys[:-1]:
        node = node[key]
    if value is None:
        del node[keys[-1]]
    else:
        node[keys[-1]] = value
    return data


@pytest.mark.parametrize(
    ("change", "field", "problem"),
    [
        ((["domain"], None), "domain", "missing"),
        ((["sessions"], None), "sessions", "missing"),
        ((["sessions"], []), "sessions", "is empty"),
        ((["sessions", 1, "timestamp"], None), "sessions[1].timestamp", "missing"),
        (
            (["sessions", 2, "conversation", 1, "content"], 42),
            "sessions[2].conversation[1].content",
            "expected str",
        ),
        ((["sessions", 3, "session_id"], "s0"), "sessions[3].session_id", "duplicate"),
        ((["before_questions"], None), "before_questions", "missing"),
        (
            (["before_questions", "position_after_session"], 9),
            "before_questions.position_after_session",
            "not a session",
        ),
        (
            (["after_questions", "questions", 1, "task_type"], "Multi-hip"),
            "after_questions.questions[1].task_type",
            "unknown task type",
        ),
        (
            (["after_questions", "questions", 2, "gold_answer"], None),
            "after_questions.questions[2].expected_answer",
            "neither expected_answer nor gold_answer",
        ),
        (
            (["after_questions", "questions", 0, "hop"], True),
            "after_questions.questions[0].hop",
            "expected int",
        ),
        ((["has_2hop"], "yes"), "has_2hop", "expected bool"),
        ((["evidence_session_indices"], [0, 7]), "evidence_session_indices[1]", "session index"),
    ],
)
def test_malformed_file_names_file_episode_and_field(tmp_path, change, field, problem):
    path = tmp_path / "broken.json"
    path.write_text(json.dumps([_short_form_episode(), _break(change)]))
    with pytest.raises(DatasetError) as info:
        load_episodes(path)
    message = str(info.value)
    assert f"{path}[1]" in message
    assert "episode 'pl_900'" in message
    assert f"field '{field}'" in message
    assert problem in message


def test_invalid_json_names_file_and_line(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('[\n{"episode_id": "x",\n oops}\n]')
    with pytest.raises(DatasetError, match=r"bad\.json: line 3 column 2: invalid JSON"):
        load_episodes(path)


def test_duplicate_episode_ids_across_files(tmp_path):
    for name in ("a.json", "b.json"):
        (tmp_path / name).write_text(json.dumps(_long_form_episode()))
    with pytest.raises(
        DatasetError, match=r"b\.json: episode 'pl_900': field 'episode_id': duplicate \(first in .*a\.json\)"
    ):
        load_episodes(tmp_path)


def test_missing_path_and_empty_folder(tmp_path):
    with pytest.raises(DatasetError, match="no such episode file"):
        load_episodes(tmp_path / "nope.json")
    with pytest.raises(DatasetError, match=r"no \*\.json episode files"):
        load_episodes(tmp_path)
