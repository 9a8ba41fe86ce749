"""The LifeBench loader on the real dev users (the counts the evidence rule gives) and on small folders:
records in time order, absent files, and bad input refused naming the file, the index and the field
(exit 2 before any work), or skipped and counted with ``skip_bad``."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest
from lifebench_data import question, small_user, sms, write_user

from memsuite.eval.benchmarks.lifebench.loader import load_user, load_users
from memsuite.eval.cli.main import main
from memsuite.memory_systems.errors import DatasetError


@pytest.mark.shared_data("lifebench")
def test_dev_users_counts_under_the_evidence_rule(shared_data):
    users = load_users(shared_data / "lifebench")
    questions = [q for u in users for q in u.questions]
    assert [u.name for u in users] == [
        "fenghaoran", "leimingxuan", "lumingqiang", "maxiulan", "sunyuwei", "yemingxuan", "yuxiaowen",
    ]  # fmt: skip
    assert len(questions) == 1449
    assert sum(1 for q in questions if q.relevant) == 1392
    assert sum(len(q.dangling) for q in questions) == 949
    assert sum(len(q.future) for q in questions) == 58
    absent = {u.name for u in users if "phone_data/agent_chat.json" in u.absent}
    assert absent == {"fenghaoran", "maxiulan", "yemingxuan", "yuxiaowen"}
    why = Counter(d.why for q in questions for d in q.dangling)
    # 106 entries embed a whole record instead of naming an id; one carries an error field
    assert why == {"file absent": 622, "no such id": 220, "no type or id": 106, "error field": 1}
    day_asked = [q for q in questions if q.ask_time == "2025-08-31"]
    assert len(day_asked) == 1 and day_asked[0].asked == "2025-08-31"
    assert sum(1 for q in questions if q.ask_time == "2026-01") == 2
    for user in users:  # records in time order, timeless first
        days = [r.day for r in user.records if r.day is not None]
        assert days == sorted(days)


def test_small_user_records_questions_and_evidence(tmp_path):
    user = load_user(small_user(tmp_path))
    assert [r.key for r in user.records] == ["sms:0", "photo:0", "sms:1", "sms:2"]
    assert [c.phone_id for c in user.contacts] == ["1"]
    first, choice, unanswerable, parcel = user.questions
    assert first.relevant == ("sms:0", "photo:0") and first.asked == "2025-02-28"
    assert first.relevant_days == ("2025-01-05", "2025-01-10")
    assert choice.options == (("A", "Riverside Cafe"), ("B", "Home")) and choice.choice
    assert unanswerable.relevant == () and unanswerable.score_points == ()
    assert parcel.future == ("sms:2",) and parcel.relevant == ()
    assert [(d.cited, d.why) for d in parcel.dangling] == [
        ("agent_chat:4", "file absent"), ("sms:99", "no such id"),
        ('{"error": "no match"}', "error field"), ('"sms 3"', "not an object"),
    ]  # fmt: skip
    assert user.absent == ("phone_data/call.json", "phone_data/calendar.json", "phone_data/note.json",
                           "phone_data/push.json", "phone_data/agent_chat.json")  # fmt: skip


def test_a_folder_of_users_or_one_user(tmp_path):
    small_user(tmp_path)
    write_user(tmp_path, {"sms": [sms(0, "2025-01-01 08:00:00", "hi")]}, [question("hi?", [])], name="bob")
    assert [u.name for u in load_users(tmp_path)] == ["annuser", "bob"]
    assert [u.name for u in load_users(tmp_path / "bob")] == ["bob"]


@pytest.mark.parametrize(
    ("change", "where", "field"),
    [
        (lambda phone, qs: phone["sms"][1].pop("phone_id"), "sms.json: [1]", "phone_id"),
        (lambda phone, qs: phone["sms"][2].update(type="mms"), "sms.json: [2]", "type"),
        (lambda phone, qs: phone["sms"][0].update(datetime="yesterday"), "sms.json: [0]", "datetime"),
        (lambda phone, qs: qs[1].update(ask_time="2025/02"), "QA_clean.json: [1]", "ask_time"),
        (lambda phone, qs: qs[0].update(ask_time="2025-13"), "QA_clean.json: [0]", "ask_time"),
        (lambda phone, qs: qs[0].update(evidence="sms:0"), "QA_clean.json: [0]", "evidence"),
    ],
)
def test_bad_input_names_file_index_and_field(tmp_path, change, where, field):
    phone = {"sms": [sms(i, f"2025-01-0{i + 1} 08:00:00", f"text {i}") for i in range(3)]}
    questions = [question("a?", [{"type": "sms", "id": 0}]), question("b?", [])]
    change(phone, questions)
    folder = write_user(tmp_path, phone, questions)
    with pytest.raises(DatasetError, match=re.escape(f"{where}: field '{field}'")):
        load_user(folder)
    skipped = load_user(folder, skip_bad=True)
    assert len(skipped.skipped) == 1 and field in skipped.skipped[0]
    assert len(skipped.records) + len(skipped.questions) == 4


def test_no_question_file_is_refused(tmp_path):
    folder = write_user(tmp_path, {"sms": []}, [])
    (folder / "QA" / "QA_clean.json").unlink()
    with pytest.raises(DatasetError, match=r"QA/QA_clean.json: LifeBench question file not found"):
        load_user(folder)


def test_a_bad_record_stops_the_run_before_any_work_with_exit_2(tmp_path, capsys):
    phone = {"sms": [{**sms(0, "2025-01-01 08:00:00", "hi"), "phone_id": None}]}
    write_user(tmp_path / "data", phone, [question("hi?", [])])
    config = tmp_path / "run.yaml"
    options = {"data": str(tmp_path / "data")}
    config.write_text(json.dumps({"benchmark": "lifebench", "systems": ["bm25"], "judges": [],
                                  "benchmark_options": options}))  # fmt: skip
    out = tmp_path / "out"
    assert main(["run", str(config), "--out", str(out), "--quiet"]) == 2
    assert "sms.json: [0]: field 'phone_id'" in capsys.readouterr().err
    assert not (out / "rows.jsonl").exists()
    config.write_text(json.dumps({"benchmark": "lifebench", "systems": ["bm25"], "judges": [],
                                  "benchmark_options": {**options, "skip_bad": True}}))  # fmt: skip
    assert main(["run", str(config), "--out", str(out), "--quiet"]) == 0
    header = json.loads((out / "run.json").read_text())
    assert header["benchmark"]["skipped"] == 1
    assert "phone_data/photo.json" in header["benchmark"]["absent_files"]["annuser"]
