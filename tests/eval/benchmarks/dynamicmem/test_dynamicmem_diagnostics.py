"""DynamicMem failure-stage attribution: hand-built rows and probes for every outcome, and a real bm25 run."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from memsuite.eval.analysis.diagnostics import OUTCOMES, format_stage_table
from memsuite.eval.benchmarks.dynamicmem.diagnostics import (
    Probe,
    attribute,
    attribute_rows,
    holds_value,
    load_probes,
    stage_table,
)
from memsuite.eval.benchmarks.dynamicmem.protocol import SNAPSHOT_FILE, DynamicMemBenchmark, probe_record
from memsuite.eval.benchmarks.dynamicmem.schema import current_value
from memsuite.eval.protocol import Row
from memsuite.eval.run.config import config_from_dict
from memsuite.eval.run.runner import run

GOLD = {"timing": {"start_time": "06:30"}, "location": "Weir meadow"}
EVIDENCE = ["log_00007", "log_00042"]


def _event(log_id: str, text: str = "walk") -> str:
    return json.dumps({"app_log_id": log_id, "request": {"note": text}})


def _row(
    *,
    checkpoint: str = "C2",
    retrieved: list[str] | None = None,
    context: str = "",
    correct: bool | None = None,
    llm: bool | None = None,
    category: str = "habits",
) -> Row:
    verdicts: dict[str, Any] = {}
    if correct is not None:
        verdicts["rule"] = {"correct": correct, "score": float(correct), "fields": []}
    if llm is not None:
        verdicts["llm"] = {"correct": llm, "score": float(llm), "fields": []}
    return Row(
        "sys",
        "dynamicmem",
        "u1",
        f"{checkpoint}/habits_state:dog_walk",
        "q",
        GOLD,
        context,
        answer="a" if verdicts else None,
        verdicts=verdicts,
        metadata={
            "checkpoint": checkpoint,
            "task": "state_completion",
            "state_key": "habits_state:dog_walk",
            "category": category,
            "change": "updated",
            "gold_evidence_ids": ["log_00001", *EVIDENCE],
            "value_evidence_ids": EVIDENCE,
            "retrieved_app_log_ids": retrieved or [],
        },
    )


def _raw(index: int, ids: list[str]) -> Probe:
    """A raw-event memory's probe (the protocol's record of a snapshot holding these events)."""
    record = probe_record(index, f"C{index + 1}", "\n\n".join(_event(i) for i in ids))
    assert record["snapshot"] is None  # raw events: only the ids are kept
    return Probe(index, record["checkpoint"], frozenset(record["app_log_ids"]), record["snapshot"])


def _extracted(index: int, text: str) -> Probe:
    """An LLM memory's probe (no event ids, so the text is kept)."""
    record = probe_record(index, f"C{index + 1}", text)
    assert record["app_log_ids"] == [] and record["snapshot"] == text
    return Probe(index, record["checkpoint"], frozenset(), text)


def test_evidence_never_stored_fails_encoded():
    probes = {"C1": _raw(0, ["log_00001"]), "C2": _raw(1, ["log_00001", "log_00003"])}
    a = attribute(_row(retrieved=["log_00001"], correct=False), probes)
    assert (a.encoded, a.maintained, a.retrieved, a.answered) == (False, False, False, False)
    assert a.first_failure == "encoded" and "log_00007" in a.reasons["encoded"]


def test_stored_but_not_current_fails_maintained():
    # An LLM memory wrote the walk at C1, then overwrote it with another time and place by C2.
    probes = {
        "C1": _extracted(0, "User walks the dog at 06:30 in Weir meadow."),
        "C2": _extracted(1, "User walks the dog at 08:15 in Harbour park."),
    }
    a = attribute(_row(context="User walks the dog at 08:15 in Harbour park.", correct=False), probes)
    assert (a.encoded, a.maintained, a.retrieved) == (True, False, False)
    assert a.first_failure == "maintained" and "location" in a.reasons["maintained"]


def test_current_but_not_retrieved_fails_retrieved():
    probes = {"C1": _raw(0, ["log_00007"]), "C2": _raw(1, ["log_00007", "log_00042", "log_00050"])}
    a = attribute(_row(retrieved=["log_00050", "log_00001"], correct=False), probes)
    assert (a.encoded, a.maintained, a.retrieved) == (True, True, False)
    assert a.first_failure == "retrieved"


def test_retrieved_but_answered_wrong_fails_answered():
    probes = {"C2": _raw(1, ["log_00007", "log_00042"])}
    a = attribute(_row(retrieved=["log_00042"], correct=False), probes)
    assert (a.encoded, a.maintained, a.retrieved, a.answered) == (True, True, True, False)
    assert a.first_failure == "answered" and a.answer_judge == "rule"


def test_all_stages_pass():
    probes = {"C1": _raw(0, ["log_00007"]), "C2": _raw(1, ["log_00007", "log_00042"])}
    a = attribute(_row(retrieved=["log_00007"], correct=True), probes)
    assert (a.encoded, a.maintained, a.retrieved, a.answered) == (True, True, True, True)
    assert a.first_failure == "none" and a.reasons == {}


def test_probes_after_the_checkpoint_do_not_count():
    # The evidence only arrives at C3: at C2 it was never encoded.
    probes = {"C2": _raw(1, ["log_00001"]), "C3": _raw(2, EVIDENCE)}
    assert attribute(_row(retrieved=["log_00007"]), probes).encoded is False


def test_missing_artefacts_leave_stages_undecided_and_llm_judge_wins():
    a = attribute(_row(retrieved=["log_00007"], correct=False, llm=True), None)
    assert (a.encoded, a.maintained, a.retrieved, a.answered) == (None, None, True, True)
    assert a.answer_judge == "llm" and a.first_failure == "none"
    b = attribute(_row(retrieved=["log_00007"]), {"C1": _raw(0, EVIDENCE)})  # no probe at C2
    assert (b.encoded, b.maintained, b.answered) == (None, None, None)


def test_value_mode_reads_the_context_when_hits_carry_no_ids():
    held = attribute(_row(context="walks the dog daily, 6:30 am, at Weir meadow"), None)
    assert held.retrieved is True
    wrong_place = attribute(_row(context="walks the dog daily at 06:30 by the canal"), None)
    assert wrong_place.retrieved is False and "location" in wrong_place.reasons["retrieved"]
    assert holds_value(GOLD, EVIDENCE, [], None) == (None, "no text recorded")


def test_stage_table_per_category_and_probe_file_round_trip(tmp_path):
    folder = tmp_path / "work" / "sys" / "u1"
    folder.mkdir(parents=True)
    with gzip.open(folder / SNAPSHOT_FILE, "at", encoding="utf-8") as fh:  # one member per checkpoint
        fh.write(json.dumps(probe_record(0, "C1", _event("log_00007"))) + "\n")
    with gzip.open(folder / SNAPSHOT_FILE, "at", encoding="utf-8") as fh:
        fh.write(json.dumps(probe_record(1, "C2", _event("log_00007") + _event("log_00042"))) + "\n")
    probes = load_probes(tmp_path, "sys", "u1")
    assert probes is not None and probes["C2"].app_log_ids == {"log_00007", "log_00042"}
    rows = [
        _row(retrieved=["log_00007"], correct=True),
        _row(retrieved=["log_00099"], correct=True),
        _row(retrieved=["log_00042"], correct=False, category="preferences"),
        Row("sys", "dynamicmem", "u1", "C2/x/qa", "q", "g", "c", metadata={"task": "personalized_service"}),
    ]
    attributions = attribute_rows(rows, tmp_path)
    assert len(attributions) == 3  # service rows are not attributed
    cells = {c.task: c for c in stage_table(attributions)}
    assert list(cells) == ["habits", "preferences"]
    assert cells["habits"].n == 2 and cells["habits"].shares["retrieved"] == 0.5
    assert cells["habits"].shares["none"] == 0.5 and cells["preferences"].shares["answered"] == 1.0
    assert all(sum(c.shares.values()) == pytest.approx(1.0) for c in cells.values())
    assert format_stage_table(list(cells.values()), task_label="category").startswith("| system | category |")


def test_value_evidence_is_the_current_values_only():
    user = DynamicMemBenchmark(users=1, activity=0.2).user("001_user_001")
    narrower = 0
    for cp in user.checkpoints:
        for key in cp.completion_keys():
            ids = user.value_evidence_ids(cp, key)
            assert ids and set(ids) <= set(cp.gold_evidence_ids(key))
            narrower += len(ids) < len(cp.gold_evidence_ids(key))
            by_id = {log.app_log_id: log for log in user.visible_logs(cp)}
            for i in ids:
                values = [
                    current_value(e.state_value) for e in by_id[i].golden_evidence if e.state_key == key
                ]
                assert cp.gold_value(key) in values
    assert narrower > 0  # some key changed value, and its old value's evidence is left out


def test_bm25_run_gives_a_consistent_stage_table(tmp_path):
    options = {"users": 1, "activity": 0.1, "checkpoints": [1, 5]}
    config = config_from_dict(
        {"benchmark": "dynamicmem", "systems": ["bm25"], "name": "dm", "benchmark_options": options}
    )
    folder = run(config, out_dir=tmp_path / "run", show_progress=False)
    rows = folder.rows()
    probes = load_probes(Path(folder.path), "bm25", "001_user_001")
    # Memory is built (and probed) through every checkpoint even though only C1 and C5 are asked.
    assert probes is not None and sorted(probes) == ["C1", "C2", "C3", "C4", "C5"]
    user = DynamicMemBenchmark(users=1, activity=0.1).user("001_user_001")
    last = user.checkpoints[-1]
    assert probes["C5"].app_log_ids == {log.app_log_id for log in user.visible_logs(last)}
    assert probes["C5"].text is None  # raw events: ids only
    attributions = attribute_rows(rows, folder.path)
    completion = [r for r in rows if r.metadata["task"] == "state_completion"]
    assert len(attributions) == len(completion) > 0
    for a, row in zip(attributions, completion, strict=True):
        # bm25 stores every event verbatim: whatever was evidenced is encoded and kept.
        assert a.encoded is True and a.maintained is True and a.answered is None
        hit = set(row.metadata["retrieved_app_log_ids"]) & set(row.metadata["value_evidence_ids"])
        assert a.retrieved is bool(hit)
    cells = stage_table(attributions)
    assert sum(c.n for c in cells) == len(completion)
    for c in cells:
        assert set(c.shares) == set(OUTCOMES) and sum(c.shares.values()) == pytest.approx(1.0)
        assert c.shares["encoded"] == c.shares["maintained"] == c.shares["answered"] == 0.0
        assert c.answer_judge is None
    failed = sum(c.shares["retrieved"] * c.n for c in cells)
    assert failed == pytest.approx(sum(a.retrieved is False for a in attributions))


def test_value_mode_reads_a_memory_entry_by_entry():
    gold = {"schedule": {"day_of_week": "Tuesday"}, "location": "The Copper Spoon"}
    memory = (
        "User's grocery shop: Pantrywell Grocers, Sundays and Saturdays at 10:00\n\n"
        "User's book club: The Copper Spoon, the second Tuesday of the month at 19:00\n\n"
        "User's gym: Mondays, Wednesdays and Fridays at Ironworks"
    )
    assert holds_value(gold, EVIDENCE, [], memory) == (True, "every field held")
    moved = memory.replace("The Copper Spoon", "Cafe Lune")
    held, why = holds_value(gold, EVIDENCE, [], moved)
    assert held is False and "location" in why
