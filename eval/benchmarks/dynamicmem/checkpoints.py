"""Where checkpoints fall and what the gold state is at each: pure functions of the event stream.

Cut rule (the release's ``calendar`` sampling with ``quarterly`` anchors, DynamicMem
``tce_core/exposure_checkpoint_builder.py``): anchors every 3 calendar months from the first event,
plus the last event; each checkpoint is cut at the last event at or before its anchor, and two
anchors that cut at the same event give one checkpoint. Month arithmetic clamps the day to 28, as
the release does (an anchor from 31 January falls on 28 April). The release also places an anchor on
the first event itself; that checkpoint has no validated state yet and is dropped, so memsuite starts
at three months. Fifteen months of events give C1..C5 at ~3, 6, 9, 12 and 15 months.

Gold state (the release's ``build_tce_benchmark``): replay every event's ``golden_evidence`` in order;
an entry with a value sets the state, a drop removes it; ``state_observability`` accumulates every
evidencing event id per state (evidence of earlier values included, as released).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from memsuite.eval.benchmarks.dynamicmem.schema import TIMESTAMP_FORMAT, AppLog

#: Months between anchors.
QUARTER_MONTHS = 3


@dataclass(frozen=True)
class Cut:
    """Where one checkpoint is cut."""

    anchor_index: int
    """1-based index of the anchor among all anchors (source_anchor_index in the release)."""
    anchor_timestamp: str
    """The calendar anchor."""
    log_index: int
    """Index of the last visible event in the sorted stream."""
    timestamp: str
    """Timestamp of that event (``as_of.timestamp``)."""


def parse_timestamp(text: str) -> datetime:
    """Parse a :data:`TIMESTAMP_FORMAT` timestamp.

    Timestamps are the user's local wall clock without a zone; they are read as UTC only so that
    arithmetic on them is well defined.

    Raises:
        ValueError: Not in the format.
    """
    return datetime.strptime(text, TIMESTAMP_FORMAT).replace(tzinfo=UTC)


def format_timestamp(moment: datetime) -> str:
    """Inverse of :func:`parse_timestamp`."""
    return moment.strftime(TIMESTAMP_FORMAT)


def add_months(moment: datetime, months: int) -> datetime:
    """``moment`` plus whole calendar months, the day clamped to 28 (the release's rule)."""
    month0 = moment.month - 1 + months
    return moment.replace(year=moment.year + month0 // 12, month=month0 % 12 + 1, day=min(moment.day, 28))


def quarterly_cuts(timestamps: Sequence[str], *, step_months: int = QUARTER_MONTHS) -> list[Cut]:
    """The checkpoint cuts of a stream (see the module docstring).

    Args:
        timestamps: Event timestamps in stream order, non-decreasing.
        step_months: Months between anchors.

    Returns:
        The cuts in time order; empty for an empty stream.

    Raises:
        ValueError: A timestamp is malformed or the stream is not sorted.
    """
    if not timestamps:
        return []
    for i in range(1, len(timestamps)):
        if timestamps[i] < timestamps[i - 1]:
            raise ValueError(
                f"events are not in time order at index {i}: {timestamps[i - 1]} > {timestamps[i]}"
            )
    first, last = parse_timestamp(timestamps[0]), timestamps[-1]
    parse_timestamp(last)
    anchors: list[str] = []
    k = 1
    while (anchor := format_timestamp(add_months(first, k * step_months))) <= last:
        anchors.append(anchor)
        k += 1
    if not anchors or anchors[-1] < last:
        anchors.append(last)
    cuts: list[Cut] = []
    position = 0
    for i, anchor in enumerate(anchors, start=1):
        while position + 1 < len(timestamps) and timestamps[position + 1] <= anchor:
            position += 1
        if cuts and cuts[-1].log_index == position:
            continue  # no event between two anchors: the same checkpoint
        # Anchor 0 (the first event) is the release's dropped checkpoint, so source indexes start at 2.
        cuts.append(Cut(i + 1, anchor, position, timestamps[position]))
    return cuts


@dataclass(frozen=True)
class StateAt:
    """The gold state and its evidence after a prefix of the stream."""

    state: dict[str, Any]
    """``{state_key: value}`` of every state evidenced so far (and not dropped)."""
    observability: dict[str, dict[str, Any]]
    """``{state_key: {evidence_app_log_ids, evidence_count, last_app_log_id, last_timestamp,
    last_change_type}}`` in the release's layout."""


def replay_states(app_logs: Sequence[AppLog], cut_indices: Sequence[int]) -> list[StateAt]:
    """The gold state after each cut (events ``0..i`` inclusive for each ``i`` in ``cut_indices``).

    Args:
        app_logs: The sorted stream.
        cut_indices: Indexes of the last visible event per checkpoint, increasing.

    Returns:
        One :class:`StateAt` per cut, deep copies (later events never change an earlier result).
    """
    wanted = list(cut_indices)
    state: dict[str, Any] = {}
    observability: dict[str, dict[str, Any]] = {}
    out: list[StateAt] = []
    position = 0
    for cut in wanted:
        while position <= cut and position < len(app_logs):
            log = app_logs[position]
            for evidence in log.golden_evidence:
                key = evidence.state_key
                if evidence.drops_state:
                    state.pop(key, None)
                elif evidence.has_value:
                    state[key] = copy.deepcopy(evidence.state_value)
                info = observability.setdefault(key, {"evidence_app_log_ids": [], "evidence_count": 0})
                info["evidence_count"] += 1
                info["last_app_log_id"] = log.app_log_id
                info["last_timestamp"] = log.timestamp
                info["last_change_type"] = evidence.change_type
                if log.app_log_id not in info["evidence_app_log_ids"]:
                    info["evidence_app_log_ids"].append(log.app_log_id)
            position += 1
        out.append(
            StateAt(
                copy.deepcopy(state),
                {key: copy.deepcopy(info) for key, info in observability.items() if key in state},
            )
        )
    return out
