"""The DynamicMem generator: deterministic by seed, in the released schema, with evolving states."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

import pytest

from memsuite.eval.benchmarks.dynamicmem.generator import generate_user, generate_users, user_rng, write_users
from memsuite.eval.benchmarks.dynamicmem.loader import load_user, parse_app_logs, parse_task_packs
from memsuite.eval.benchmarks.dynamicmem.schema import (
    APP_LOG_FILE,
    CATEGORIES,
    SERVICE_FAMILY_OF_CATEGORY,
    TASK_PACK_FILE,
    category_of,
)
from memsuite.eval.cli.main import main


@pytest.fixture(scope="module")
def users():
    """Three full-size users (15 months, default activity)."""
    return generate_users(3, seed=0)


def _parsed(user):
    logs = parse_app_logs(user.app_logs, path=Path(APP_LOG_FILE), user_id=user.user_id)
    return parse_task_packs(user.task_packs, path=Path(TASK_PACK_FILE), user_id=user.user_id, app_logs=logs)


def test_deterministic_by_seed_and_independent_of_the_number_of_users(users):
    again = generate_users(2, seed=0)
    assert json.dumps(again[1].app_logs) == json.dumps(users[1].app_logs)
    assert json.dumps(again[1].task_packs) == json.dumps(users[1].task_packs)
    other = generate_user(2, rng=user_rng(1, 2))
    assert json.dumps(other.app_logs) != json.dumps(users[1].app_logs)
    assert [u.user_id for u in users] == ["001_user_001", "002_user_002", "003_user_003"]


def test_volume_apps_and_checkpoints_are_realistic(users):
    for user in users:
        assert 800 <= len(user.app_logs) <= 2_300
        apps = Counter(log["app_name"] for log in user.app_logs)
        assert len(apps) >= 15
        assert sum(1 for log in user.app_logs if log["golden_evidence"]) > len(user.app_logs) / 3
        checkpoints = user.task_packs["checkpoints"]
        assert [cp["checkpoint_id"] for cp in checkpoints] == [f"cal_quarterly_{i:03d}" for i in range(1, 6)]
    half = generate_user(1, rng=user_rng(0, 1), activity=0.5)
    assert 0.35 < len(half.app_logs) / len(users[0].app_logs) < 0.65  # activity scales the volume


def test_output_is_in_the_released_schema(users):
    user = _parsed(users[0])
    assert user.task_contract_version == "taskabc_v2" and len(user.checkpoints) == 5
    last = user.checkpoints[-1]
    assert {category_of(k) for k in last.completion} == set(CATEGORIES)
    for cp in user.checkpoints:
        for key in cp.completion_keys():
            task = cp.completion[key]
            assert task.question_text and task.retrieval_query and task.scoring_points
            item = cp.service[key][0]
            assert item.service_family == SERVICE_FAMILY_OF_CATEGORY[category_of(key)]
            if item.structured:
                assert set(item.output_template) == set(item.reference_output)
                assert all(p.reference_value is not None for p in item.answer_scoring_points)
            else:
                assert item.answer_scoring_points[0].is_identity_gate and item.reference_answer
    raw = users[0].task_packs["checkpoints"][0]
    assert set(raw["expected_snapshot_state"]) <= {
        "user_attributes_state",
        "habits_state",
        "preferences_state",
    }
    assert raw["as_of"]["app_log_id"] == users[0].app_logs[raw["as_of"]["log_index"]]["app_log_id"]


def test_states_evolve_on_different_timelines(users):
    changed: Counter[str] = Counter()
    for raw in users:
        user = _parsed(raw)
        for before, after in zip(user.checkpoints, user.checkpoints[1:], strict=False):
            for key in after.completion_keys():
                if key in before.completion and before.gold_value(key) != after.gold_value(key):
                    changed[category_of(key)] += 1
        assert len(raw.task_packs["life_events"]) >= 2
    assert changed["habits"] > 0 and changed["preferences"] > 0 and changed["attributes"] > 0


def test_events_imply_states_without_gold_in_the_payload(users):
    log = next(log for log in users[0].app_logs if log["golden_evidence"])
    evidence = log["golden_evidence"][0]
    assert set(evidence) == {"state_category", "state_name", "change_type", "state_value", "evidenced_fields"}
    assert evidence["change_type"] in {"unchanged", "new", "updated"}
    assert "state_value" not in json.dumps(log["request"]) + json.dumps(log["response"])
    changes = [
        log
        for log in users[0].app_logs
        if any(e["change_type"] != "unchanged" for e in log["golden_evidence"])
    ]
    assert changes and all("change_reasons" in log["metadata"] for log in changes)


def test_cli_writes_users_the_loader_reads(tmp_path, capsys):
    assert (
        main(
            ["generate", "dynamicmem", "--users", "2", "--months", "6", "--seed", "4", "--out", str(tmp_path)]
        )
        == 0
    )
    assert "wrote 2 DynamicMem users" in capsys.readouterr().out
    user = load_user(tmp_path / "002_user_002")
    assert len(user.checkpoints) == 2 and user.metadata["generator"]["months"] == 6
    assert main(["generate", "dynamicmem", "--users", "0", "--out", str(tmp_path)]) == 2


def test_output_is_pinned_by_hash(tmp_path):
    # Regression pin: the two released files of seeded users, byte for byte. Moving code must not
    # change them; an intended change of the generator updates the hashes with GENERATOR_VERSION.
    write_users(generate_users(2, seed=5, activity=0.5), tmp_path)
    digests = {
        str(p.relative_to(tmp_path)): hashlib.sha256(p.read_bytes()).hexdigest()[:16]
        for p in sorted(tmp_path.rglob("*.json"))
    }
    assert digests == {
        "001_user_001/app_log_large.json": "4b6874247f867ff8",
        "001_user_001/task_packs.json": "a7f6425a37ecf9c0",
        "002_user_002/app_log_large.json": "2b89b049bd408cfe",
        "002_user_002/task_packs.json": "4e8eab7111487287",
    }
