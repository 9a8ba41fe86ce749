"""The checkpoint cut rule and the gold replay, on hand-made streams."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memsuite.eval.benchmarks.dynamicmem.checkpoints import add_months, quarterly_cuts, replay_states
from memsuite.eval.benchmarks.dynamicmem.schema import AppLog, GoldenEvidence


def test_cuts_fall_at_the_last_event_at_or_before_each_quarterly_anchor_plus_the_last_event():
    stamps = [
        "2023-10-05 08:00:00",
        "2023-12-20 09:00:00",
        "2024-01-05 08:00:00",  # exactly on the first anchor: included
        "2024-01-05 08:00:01",
        "2024-05-01 10:00:00",
        "2024-06-30 12:00:00",
    ]
    cuts = quarterly_cuts(stamps)
    assert [c.anchor_timestamp for c in cuts] == [
        "2024-01-05 08:00:00",
        "2024-04-05 08:00:00",
        "2024-06-30 12:00:00",
    ]
    assert [c.log_index for c in cuts] == [2, 3, 5]
    assert [c.timestamp for c in cuts] == [stamps[2], stamps[3], stamps[5]]
    assert [c.anchor_index for c in cuts] == [2, 3, 4]  # the release's anchor 1 is the first event


def test_anchors_that_cut_at_the_same_event_give_one_checkpoint():
    cuts = quarterly_cuts(["2023-10-05 08:00:00", "2023-10-06 08:00:00", "2024-08-01 09:00:00"])
    assert [c.log_index for c in cuts] == [1, 2]
    assert quarterly_cuts(["2023-10-05 08:00:00"])[0].log_index == 0
    assert quarterly_cuts([]) == []


def test_fifteen_months_give_five_checkpoints():
    stamps = [f"{2023 + (9 + m) // 12}-{(9 + m) % 12 + 1:02d}-10 12:00:00" for m in range(15)]
    stamps.append("2025-01-09 23:00:00")  # the last day before 15 months are over
    cuts = quarterly_cuts(stamps)
    assert len(cuts) == 5
    assert [c.timestamp[:10] for c in cuts] == [
        "2024-01-10",
        "2024-04-10",
        "2024-07-10",
        "2024-10-10",
        "2025-01-09",
    ]


def test_month_arithmetic_clamps_the_day_to_28_like_the_release():
    start = datetime(2024, 1, 31, 10, 0, tzinfo=UTC)
    assert add_months(start, 3) == datetime(2024, 4, 28, 10, 0, tzinfo=UTC)
    assert add_months(start, 12) == datetime(2025, 1, 28, 10, 0, tzinfo=UTC)
    assert (
        quarterly_cuts(["2024-01-31 10:00:00", "2024-06-01 00:00:00"])[0].anchor_timestamp
        == "2024-04-28 10:00:00"
    )


def test_unsorted_or_malformed_streams_are_refused():
    with pytest.raises(ValueError, match="not in time order at index 1"):
        quarterly_cuts(["2024-01-02 00:00:00", "2024-01-01 00:00:00"])
    with pytest.raises(ValueError):
        quarterly_cuts(["2024/01/02 00:00"])


def _log(i: int, *evidence: GoldenEvidence) -> AppLog:
    return AppLog(f"log_{i:05d}", f"2024-01-{i:02d} 09:00:00", "App", "Api", {}, {}, {}, tuple(evidence))


def test_replay_sets_drops_and_accumulates_evidence():
    city = lambda value, change="unchanged": GoldenEvidence("user_attributes_state", "home", change, value)  # noqa: E731
    logs = [
        _log(1, city("Varnhollow")),
        _log(2),
        _log(3, city("Varnhollow")),
        _log(4, city("Ostrevane", "updated"), GoldenEvidence("habits_state", "walk", "new", {"t": "07:00"})),
        _log(5, GoldenEvidence("habits_state", "walk", "drop", has_value=False)),
    ]
    at = replay_states(logs, [1, 3, 4])
    assert at[0].state == {"user_attributes_state:home": "Varnhollow"}
    assert at[0].observability["user_attributes_state:home"]["evidence_app_log_ids"] == ["log_00001"]
    assert at[1].state == {"user_attributes_state:home": "Ostrevane", "habits_state:walk": {"t": "07:00"}}
    home = at[1].observability["user_attributes_state:home"]
    assert home["evidence_app_log_ids"] == ["log_00001", "log_00003", "log_00004"]  # cumulative, as released
    assert home["last_app_log_id"] == "log_00004" and home["last_change_type"] == "updated"
    assert home["evidence_count"] == 3
    assert "habits_state:walk" not in at[2].state and "habits_state:walk" not in at[2].observability
    at[1].state["habits_state:walk"]["t"] = "changed"  # results are copies
    assert replay_states(logs, [3])[0].state["habits_state:walk"] == {"t": "07:00"}
