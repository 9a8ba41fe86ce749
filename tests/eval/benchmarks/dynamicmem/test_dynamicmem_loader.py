"""The DynamicMem loader: generated users round-trip; malformed files fail naming user, checkpoint and key."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from memsuite.eval.benchmarks.dynamicmem.checkpoints import replay_states
from memsuite.eval.benchmarks.dynamicmem.generator import generate_users, write_users
from memsuite.eval.benchmarks.dynamicmem.loader import load_user, user_folders
from memsuite.eval.benchmarks.dynamicmem.schema import (
    APP_LOG_FILE,
    TASK_PACK_FILE,
    current_value,
    state_key,
)
from memsuite.memory_systems.errors import DatasetError


def flatten_state(nested: Mapping[str, Any]) -> dict[str, Any]:
    """``{group: {name: value}}`` -> ``{"group:name": value}``; an already flat mapping is returned as is.

    The release stores snapshots nested by group; predictions and packs use flat keys.
    """
    if any(isinstance(k, str) and ":" in k for k in nested):
        return dict(nested)
    flat: dict[str, Any] = {}
    for group, content in nested.items():
        if isinstance(content, Mapping):
            for name, value in content.items():
                flat[state_key(str(group), str(name))] = value
    return flat


USER = "001_user_001"


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> Path:
    """Two small generated users on disk (6 months: checkpoints at 3 months and at the end)."""
    root = tmp_path_factory.mktemp("dynamicmem")
    write_users(generate_users(2, seed=3, months=6, activity=0.3), root)
    return root


def _copy(written: Path, tmp_path: Path) -> Path:
    folder = tmp_path / USER
    folder.mkdir()
    for name in (APP_LOG_FILE, TASK_PACK_FILE):
        (folder / name).write_text((written / USER / name).read_text())
    return folder


def _edit(folder: Path, name: str, change) -> None:
    data = json.loads((folder / name).read_text())
    change(data)
    (folder / name).write_text(json.dumps(data))


def test_generated_users_load_and_their_gold_is_the_replay_of_visible_evidence(written):
    users = [load_user(folder) for folder in user_folders(written)]
    assert [u.user_id for u in users] == ["001_user_001", "002_user_002"]
    for user in users:
        assert [cp.label for cp in user.checkpoints] == ["C1", "C2"]
        stamps = [log.timestamp for log in user.app_logs]
        assert stamps == sorted(stamps)
        replayed = replay_states(user.app_logs, [cp.log_index for cp in user.checkpoints])
        for cp, at in zip(user.checkpoints, replayed, strict=True):
            assert cp.expected_state == at.state
            visible = {log.app_log_id for log in user.visible_logs(cp)}
            assert cp.completion_keys() == sorted(at.state)
            for key in cp.completion_keys():
                assert set(cp.gold_evidence_ids(key)) <= visible
                assert cp.service[key][0].gold_evidence_ids == cp.gold_evidence_ids(key)
            assert user.visible_logs(cp)[-1].timestamp == cp.timestamp
    assert user_folders(written / USER) == [written / USER]


def test_the_memory_text_is_the_raw_event_without_gold(written):
    log = next(log for log in load_user(written / USER).app_logs if log.golden_evidence)
    payload = json.loads(log.memory_text)
    assert list(payload) == ["app_log_id", "timestamp", "app_name", "api_name", "request", "response"]
    assert "golden_evidence" not in log.memory_text and "metadata" not in payload


@pytest.mark.parametrize(
    ("name", "change", "message"),
    [
        (
            TASK_PACK_FILE,
            lambda d: d["checkpoints"][1]["state_completion_pack"]["keys"]["habits_state:running"].pop(
                "answer_template"
            ),
            r"user 001_user_001, checkpoint cal_quarterly_002, key habits_state:running: "
            r"missing field 'answer_template'",
        ),
        (
            TASK_PACK_FILE,
            lambda d: d["checkpoints"][0]["state_observability"]["habits_state"]["running"][
                "evidence_app_log_ids"
            ].append(d["checkpoints"][1]["as_of"]["app_log_id"]),
            r"checkpoint cal_quarterly_001, key habits_state:running: evidence id 'log_\d+' comes after",
        ),
        (
            TASK_PACK_FILE,
            lambda d: d["checkpoints"][0]["state_observability"]["habits_state"]["running"][
                "evidence_app_log_ids"
            ].append("log_99999"),
            r"key habits_state:running: evidence id 'log_99999' is not an event of the stream",
        ),
        (
            TASK_PACK_FILE,
            lambda d: d["checkpoints"][0]["rq3_apply_service_qa"]["keys"]["habits_state:running"]["items"][
                0
            ].update(service_family="action_configuration"),
            r"checkpoint cal_quarterly_001, key habits_state:running item 0: a habits state is served by "
            r"'user_communication'",
        ),
        (
            TASK_PACK_FILE,
            lambda d: d["checkpoints"][0]["expected_snapshot_state"].update(hobbies_state={"x": 1}),
            r"checkpoint cal_quarterly_001: 'expected_snapshot_state' has group 'hobbies_state'",
        ),
        (
            TASK_PACK_FILE,
            lambda d: d["checkpoints"][0]["state_completion_pack"]["keys"].update(
                {"preferences_state:tea": {"question_text": "q", "answer_template": "<fill the blank>"}}
            ),
            r"key preferences_state:tea: asked in state_completion_pack but absent from the snapshot state",
        ),
        (
            TASK_PACK_FILE,
            lambda d: d["checkpoints"][1]["as_of"].update(timestamp="2020-01-01 00:00:00"),
            r"checkpoint cal_quarterly_002: checkpoints are not in time order",
        ),
        (
            APP_LOG_FILE,
            lambda d: d[5].update(timestamp="5 March 2024"),
            r"app_log_large.json: user 001_user_001, key event #5 \(log_00006\): field 'timestamp' is not",
        ),
        (
            APP_LOG_FILE,
            lambda d: d[7].update(app_log_id="log_00001"),
            r"key event #7 \(log_00001\): app_log_id 'log_00001' is not unique",
        ),
        (
            APP_LOG_FILE,
            lambda d: d[2].pop("response"),
            r"key event #2 \(log_00003\): missing field 'response'",
        ),
    ],
)
def test_malformed_files_name_user_checkpoint_and_key(written, tmp_path, name, change, message):
    folder = _copy(written, tmp_path)
    _edit(folder, name, change)
    with pytest.raises(DatasetError, match=message):
        load_user(folder)


def test_not_json_and_missing_files(written, tmp_path):
    folder = _copy(written, tmp_path)
    (folder / TASK_PACK_FILE).write_text('{"checkpoints": [')
    with pytest.raises(DatasetError, match=r"task_packs.json: not valid JSON \(line 1"):
        load_user(folder)
    (tmp_path / "empty").mkdir()
    with pytest.raises(DatasetError, match="no user folder"):
        user_folders(tmp_path / "empty")
    with pytest.raises(DatasetError, match="no such folder"):
        user_folders(tmp_path / "missing")


def test_release_variants_are_read(tmp_path):
    """A hand-made user in the shapes the release's own readers tolerate."""
    folder = tmp_path / "042_user_042"
    folder.mkdir()
    logs = [
        {
            "app_log_id": f"log_{i:05d}",
            "timestamp": f"2024-0{i}-01 08:00:00",
            "app_name": "Stridelog",
            "api_name": "LogWorkout",
            "request": {"activity_type": "running", "start_time": "06:30"},
            "response": {"distance_km": 5.0},
            "golden_evidence": [
                {
                    "state_category": "habits_state",
                    "state_name": "run",
                    "change_type": "unchanged",
                    "state_value": {"timing": {"start_time": "06:30"}},
                    "evidenced_fields": ["current_value.timing.start_time"],
                }
            ],
        }
        for i in (2, 1)  # out of order on disk
    ]
    (folder / APP_LOG_FILE).write_text(json.dumps({"app_logs": logs}))  # wrapped, as some tools write it
    value = {
        "from": {"timing": {"start_time": "06:00"}},
        "to": {"timing": {"start_time": "06:30"}, "priority": "high", "schedule_dates": ["2024-02-01"]},
    }
    packs = {
        "checkpoints": [
            {
                "checkpoint_id": "cp_0001",
                "as_of": {"timestamp": "2024-02-01 08:00:00"},  # no log_index: cut by time
                "expected_snapshot_state": {"habits_state:run": value},  # flat keys
                "state_observability": {"habits_state": {"run": {"last_app_log_id": "log_00002"}}},
                "state_completion_pack": {
                    "keys": {
                        "habits_state:run": {
                            "retrieval_query": "when does the user run",
                            "answer_template": {},
                        }
                    }
                },
                "rq3_apply_service_qa": {
                    "keys": {
                        "habits_state:run": {
                            "items": [
                                {
                                    "service_family": "user_communication",
                                    "scenario": "Tomorrow is a run day.",
                                    "task_instruction": "Write the reminder.",
                                    "reference_answer": "Your run is at 06:30.",
                                }
                            ]
                        }
                    }
                },
            }
        ]
    }
    (folder / TASK_PACK_FILE).write_text(json.dumps(packs))
    user = load_user(folder)
    assert user.user_id == "042_user_042" and [log.app_log_id for log in user.app_logs] == [
        "log_00001",
        "log_00002",
    ]
    cp = user.checkpoints[0]
    assert user.visible_count(cp) == 2
    # transition -> "to"; taskabc_v2 drops priority and schedule_dates
    assert cp.gold_value("habits_state:run") == {"timing": {"start_time": "06:30"}}
    assert cp.completion["habits_state:run"].question_text == "when does the user run"
    assert cp.gold_evidence_ids("habits_state:run") == ("log_00002",)
    item = cp.service["habits_state:run"][0]
    assert item.qa_id == "q1" and item.retrieval_query.startswith("[Scenario]\nTomorrow is a run day.")


def test_current_value_rules():
    assert current_value({"to": "Ostrevane", "from": "Varnhollow"}) == "Ostrevane"
    assert current_value({"from": "Varnhollow"}) is None
    assert current_value({"schedule_dates": ["2024-01-01"], "priority": "high"}) is None
    assert current_value({"schedule_dates": ["x"]}, task_contract_version="taskabc_v1") == {
        "schedule_dates": ["x"]
    }
    assert current_value("  ") is None
    assert flatten_state({"habits_state": {"run": 1}}) == {"habits_state:run": 1}
