"""Typed records of DynamicMem as released: the event stream and the per-checkpoint task packs.

Field names are the release's own (``outputs/<user_id>/app_log_large.json`` and ``task_packs.json``
of the dataset ``xiewenya/dynamicmem``, built by the code in github.com/wenyaxie023/DynamicMem:
``benchmark_construction/``, ``tce_core/``, ``docs/protocols/``). One event stream and one task-pack
file per user; :mod:`memsuite.eval.benchmarks.dynamicmem.loader` turns them into these records and the
generator (:mod:`memsuite.eval.benchmarks.dynamicmem.generator`) writes the same layout, so one loader reads
both.

A state is addressed by its *state key* ``"<group>:<name>"``, where the group is one of
:data:`STATE_GROUPS` (``user_attributes_state``, ``habits_state``, ``preferences_state``) and maps to
the paper's category (attributes, habits, preferences) by :data:`CATEGORY_OF_GROUP`.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: The released files of one user.
APP_LOG_FILE = "app_log_large.json"
TASK_PACK_FILE = "task_packs.json"

#: Contract versions written into generated task packs (the release's active contract).
TASK_CONTRACT_VERSION = "taskabc_v2"
RESEARCH_FRAME_VERSION = "rq_20260413"

#: Timestamp format of events and checkpoints, e.g. "2023-10-03 08:30:00".
TIMESTAMP_FORMAT = "%Y-%m-%d %H:%M:%S"

#: State groups as the release names them, in report order.
STATE_GROUPS = ("user_attributes_state", "habits_state", "preferences_state")
#: Group -> the paper's state category.
CATEGORY_OF_GROUP = {
    "user_attributes_state": "attributes",
    "habits_state": "habits",
    "preferences_state": "preferences",
}
CATEGORIES = tuple(CATEGORY_OF_GROUP.values())

#: Personalized Service families, one per category (paper: habits -> user communication,
#: preferences -> filtering-parameter completion, attributes -> action configuration).
SERVICE_FAMILY_OF_CATEGORY = {
    "habits": "user_communication",
    "preferences": "information_request_construction",
    "attributes": "action_configuration",
}
SERVICE_FAMILIES = tuple(SERVICE_FAMILY_OF_CATEGORY.values())
#: The family answered in free text; the other two fill a structured output object.
TEXT_FAMILY = "user_communication"

#: Value fields that taskabc_v2 removes before State Completion (derived or bookkeeping fields).
EXCLUDED_VALUE_FIELDS = frozenset({"priority", "schedule_date", "schedule_dates"})
#: ``point_role`` of a scoring point whose failure zeroes its service item.
IDENTITY_GATE = "identity_gate"
#: Placeholder leaf of answer and output templates.
PLACEHOLDER = "<fill the blank>"

#: Event fields a memory system sees; ``metadata`` and ``golden_evidence`` are gold and never ingested.
VISIBLE_EVENT_FIELDS = ("app_log_id", "timestamp", "app_name", "api_name", "request", "response")


def state_key(group: str, name: str) -> str:
    """The state key ``"<group>:<name>"`` (the release's flat key)."""
    return f"{group}:{name}"


def split_state_key(key: str) -> tuple[str, str]:
    """``"habits_state:morning_run"`` -> ``("habits_state", "morning_run")``.

    Raises:
        ValueError: The key has no ``:``.
    """
    group, sep, name = key.partition(":")
    if not sep or not group or not name:
        raise ValueError(f"state key {key!r} is not '<group>:<name>'")
    return group, name


def category_of(key: str) -> str:
    """The category (attributes, habits, preferences) of a state key.

    Raises:
        ValueError: The key is malformed or its group is not one of :data:`STATE_GROUPS`.
    """
    group, _ = split_state_key(key)
    try:
        return CATEGORY_OF_GROUP[group]
    except KeyError:
        raise ValueError(f"state group {group!r} is not one of {', '.join(STATE_GROUPS)}") from None


def nest_state(flat: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """``{"group:name": value}`` -> ``{group: {name: value}}`` (the release's snapshot layout)."""
    nested: dict[str, dict[str, Any]] = {}
    for key, value in flat.items():
        group, name = split_state_key(key)
        nested.setdefault(group, {})[name] = value
    return nested


def _has_value(value: Any) -> bool:
    if value is None:
        return False
    if isinstance(value, str):
        return bool(value.strip())
    if isinstance(value, list | tuple | dict):
        return len(value) > 0
    return True


def _drop_excluded(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: _drop_excluded(v)
            for k, v in value.items()
            if str(k).strip().lower() not in EXCLUDED_VALUE_FIELDS
        }
    if isinstance(value, list):
        return [_drop_excluded(v) for v in value]
    return value


def _prune_empty(value: Any) -> Any:
    if isinstance(value, dict):
        pruned = {k: _prune_empty(v) for k, v in value.items()}
        return {k: v for k, v in pruned.items() if _has_value(v)}
    if isinstance(value, list):
        return [v for v in (_prune_empty(item) for item in value) if _has_value(v)]
    return value


def current_value(value: Any, *, task_contract_version: str = TASK_CONTRACT_VERSION) -> Any:
    """The State Completion gold of a validated state value, or None when nothing is left to ask.

    The release's task-level rule (DynamicMem ``tce_contracts.normalize_task_a_current_value``): a
    transition-style value (keys only ``from``/``to``) becomes its ``to``; under taskabc_v2 the
    derived fields of :data:`EXCLUDED_VALUE_FIELDS` are dropped and emptied containers pruned. A key
    whose gold is None is not asked (the release excludes it from the expected set).
    """
    candidate = copy.deepcopy(value)
    if isinstance(candidate, dict):
        keys = {str(k).strip().lower() for k in candidate}
        if keys and keys <= {"from", "to"}:
            candidate = copy.deepcopy(candidate.get("to"))
    if not _has_value(candidate):
        return None
    if str(task_contract_version or "").strip().lower().startswith("taskabc_v2"):
        candidate = _prune_empty(_drop_excluded(candidate))
        if not _has_value(candidate):
            return None
    return candidate


def template_of(value: Any) -> Any:
    """The answer template of a value: its shape with every leaf replaced by :data:`PLACEHOLDER`."""
    if isinstance(value, dict):
        return {k: template_of(v) for k, v in value.items()}
    return PLACEHOLDER


@dataclass(frozen=True)
class GoldenEvidence:
    """What one event evidences about one state (an entry of an event's ``golden_evidence``)."""

    state_category: str
    """The state's group as released (``habits_state``, ...); see :data:`STATE_GROUPS`."""
    state_name: str
    """The state's name within its group (``morning_run``)."""
    change_type: str = "unchanged"
    """``unchanged`` (evidence of the current value), ``new`` (a state that begins here), ``updated``
    (the value changed), or ``drop``/``remove``/``deleted`` (the state ends)."""
    state_value: Any = None
    """The full state value holding at this event (absent for a drop)."""
    evidenced_fields: tuple[str, ...] = ()
    """Which parts of the value this event shows, e.g. ``current_value.timing.start_time``."""
    has_value: bool = True
    """False when the released entry carries no ``state_value`` (the state value is then not updated)."""

    @property
    def state_key(self) -> str:
        """``"<group>:<name>"``."""
        return state_key(self.state_category, self.state_name)

    @property
    def drops_state(self) -> bool:
        """True when this evidence ends the state (the release's drop change types)."""
        return self.change_type.lower() in {"drop", "remove", "deleted"}

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "state_category": self.state_category,
            "state_name": self.state_name,
            "change_type": self.change_type,
        }
        if self.has_value:
            out["state_value"] = self.state_value
        out["evidenced_fields"] = list(self.evidenced_fields)
        return out


@dataclass(frozen=True)
class AppLog:
    """One event of the stream: an app's API call with its request and response."""

    app_log_id: str
    """Unique id within the user's stream, e.g. ``log_00001``."""
    timestamp: str
    """Local wall-clock time, :data:`TIMESTAMP_FORMAT` (``2023-10-03 08:30:00``)."""
    app_name: str
    """The app (calendar, e-commerce, fitness, ... as named in the stream)."""
    api_name: str
    """The API called, e.g. ``LogWorkout``."""
    request: Any
    """The request body (JSON)."""
    response: Any
    """The response body (JSON)."""
    metadata: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    """Generator bookkeeping (event/chain ids, window, domain); never shown to a memory system."""
    golden_evidence: tuple[GoldenEvidence, ...] = ()
    """The states this event evidences (gold; never shown to a memory system)."""

    def payload(self) -> dict[str, Any]:
        """The raw event as a memory system sees it: :data:`VISIBLE_EVENT_FIELDS` only."""
        return {
            "app_log_id": self.app_log_id,
            "timestamp": self.timestamp,
            "app_name": self.app_name,
            "api_name": self.api_name,
            "request": self.request,
            "response": self.response,
        }

    @property
    def memory_text(self) -> str:
        """The canonical document of this event: its :meth:`payload` as one line of JSON.

        The release's rule is "the raw app log object itself, losslessly serialised"; gold fields
        are left out so that a system cannot read the answers.
        """
        return json.dumps(self.payload(), ensure_ascii=False)

    def to_dict(self) -> dict[str, Any]:
        """The event as released (visible fields, ``metadata``, ``golden_evidence``)."""
        out = self.payload()
        if self.metadata:
            out["metadata"] = self.metadata
        out["golden_evidence"] = [e.to_dict() for e in self.golden_evidence]
        return out


@dataclass(frozen=True)
class ScoringPoint:
    """One scoring point of a pack (``scoring_points`` / ``answer_scoring_points`` entries)."""

    point_id: str
    """Unique within its item."""
    point_type: str
    """``field`` (bound to a path and a reference value), ``micro`` (an atomic statement) or the
    legacy ``list_item``."""
    point_text: str = ""
    """The requirement in words."""
    polarity: str = "positive"
    """``positive`` or ``negative`` (a constraint the answer must not violate)."""
    target_path: str = ""
    """Path in the predicted value or output the point is about (``current_value`` = the whole value)."""
    reference_value: Any = None
    """Gold value of a field point."""
    point_role: str = ""
    """``identity_gate`` for the point that checks the answer is about the right state."""
    source_field_path: str = ""
    """Path in the state value the point comes from (service points)."""
    output_field_path: str = ""
    """Path in the structured service output (structured families)."""
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    """Other released keys, kept as they are."""

    @property
    def is_identity_gate(self) -> bool:
        return self.point_role.strip().lower() == IDENTITY_GATE

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "point_id": self.point_id,
            "point_type": self.point_type,
            "polarity": self.polarity,
            "point_text": self.point_text,
        }
        for name in ("target_path", "point_role", "source_field_path", "output_field_path"):
            if getattr(self, name):
                out[name] = getattr(self, name)
        if self.reference_value is not None or self.point_type == "field":
            out["reference_value"] = self.reference_value
        return {**out, **self.extra}


@dataclass(frozen=True)
class CompletionTask:
    """State Completion for one state key at one checkpoint (``state_completion_pack.keys[key]``)."""

    state_key: str
    """The state asked about."""
    question_text: str
    """The question shown to the answer model."""
    retrieval_query: str
    """The query handed to the memory system (item-specific, no instructions)."""
    answer_template: Any
    """Shape the answer must follow (leaves are placeholders)."""
    scoring_points: tuple[ScoringPoint, ...] = ()
    """Slot-level points as released (may be empty; memsuite scores the gold value's fields)."""
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


@dataclass(frozen=True)
class ServiceItem:
    """One Personalized Service item (``rq3_apply_service_qa.keys[key].items[i]``)."""

    state_key: str
    """The state the service must use."""
    qa_id: str
    """Item id, unique within its key."""
    service_family: str
    """One of :data:`SERVICE_FAMILIES`."""
    scenario: str
    """The service moment."""
    task_instruction: str
    """What the assistant must produce."""
    retrieval_query: str
    """The query handed to the memory system."""
    reference_answer: str | None = None
    """Gold message (``user_communication``)."""
    output_template: Any = None
    """Required output object with placeholder leaves (structured families)."""
    reference_output: Any = None
    """Gold output object (structured families)."""
    answer_scoring_points: tuple[ScoringPoint, ...] = ()
    """Points the answer is scored on; a ``user_communication`` item's fields come from these."""
    gold_evidence_ids: tuple[str, ...] = ()
    """``gold_memory_evidence_app_log_ids``: the events that support the answer."""
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def structured(self) -> bool:
        """True for the families that fill an output object."""
        return self.service_family != TEXT_FAMILY

    @property
    def reference(self) -> Any:
        """The gold: the output object for structured families, else the message."""
        return self.reference_output if self.structured else self.reference_answer


@dataclass(frozen=True)
class Observability:
    """Evidence of one state up to a checkpoint (``state_observability[group][name]``)."""

    evidence_app_log_ids: tuple[str, ...]
    """Every event that evidenced this state up to the checkpoint (cumulative, as released)."""
    last_app_log_id: str | None = None
    """The latest of them."""
    evidence_count: int = 0
    """How many evidence entries were seen (an event may count once per state)."""
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    """Other released keys (last_timestamp, last_change_type, last_change_reason, ...)."""


@dataclass(frozen=True)
class Checkpoint:
    """One quarterly checkpoint: the cut, the gold state and the questions asked at it."""

    checkpoint_id: str
    """Released id, e.g. ``cal_quarterly_001``."""
    label: str
    """``C1`` .. ``C5``: position among the user's checkpoints (1-based)."""
    timestamp: str
    """``as_of.timestamp``: the time of the last visible event."""
    log_index: int | None
    """``as_of.log_index``: index of the last visible event in the sorted stream, when given."""
    expected_state: dict[str, Any] = field(compare=False, hash=False)
    """``expected_snapshot_state`` flattened to ``{state_key: value}``."""
    validated_state: dict[str, Any] = field(compare=False, hash=False)
    """``validated_snapshot_state`` flattened (the release's gold source; defaults to expected)."""
    observability: dict[str, Observability] = field(compare=False, hash=False)
    """``state_observability`` flattened."""
    completion: dict[str, CompletionTask] = field(compare=False, hash=False)
    """``state_completion_pack.keys``."""
    service: dict[str, tuple[ServiceItem, ...]] = field(compare=False, hash=False)
    """``rq3_apply_service_qa.keys[key].items``."""
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    """Other released keys of the checkpoint (``as_of``, ``sampling``, ...)."""
    task_contract_version: str = TASK_CONTRACT_VERSION

    def gold_value(self, key: str) -> Any:
        """The State Completion gold of ``key`` (:func:`current_value` of the validated value), or None."""
        source = self.validated_state if key in self.validated_state else self.expected_state
        return current_value(source.get(key), task_contract_version=self.task_contract_version)

    def completion_keys(self) -> list[str]:
        """Pack keys that have a gold value, sorted (the keys State Completion asks about)."""
        return sorted(k for k in self.completion if self.gold_value(k) is not None)

    def gold_evidence_ids(self, key: str) -> tuple[str, ...]:
        """The evidence ids of ``key`` at this checkpoint (empty when unobserved)."""
        obs = self.observability.get(key)
        if obs is None:
            return ()
        if obs.evidence_app_log_ids:
            return obs.evidence_app_log_ids
        return (obs.last_app_log_id,) if obs.last_app_log_id else ()


@dataclass(frozen=True)
class UserData:
    """One user: the sorted event stream and its checkpoints."""

    user_id: str
    """Released id, e.g. ``001_user_001``."""
    app_logs: tuple[AppLog, ...]
    """Events sorted by (timestamp, app_log_id), as the release's loaders sort them."""
    checkpoints: tuple[Checkpoint, ...]
    """Checkpoints in time order (C1 first)."""
    task_contract_version: str = TASK_CONTRACT_VERSION
    research_frame_version: str = RESEARCH_FRAME_VERSION
    metadata: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    """Other top-level keys of task_packs.json (user profile of generated data, sampling strategy, ...)."""
    source: Path | None = None
    """Folder the user was read from."""

    def visible_count(self, checkpoint: Checkpoint) -> int:
        """How many events (a prefix of :attr:`app_logs`) a memory system has seen at ``checkpoint``.

        The release's rule: ``app_logs[: as_of.log_index + 1]`` when the index is valid, else every
        event at or before ``as_of.timestamp``.
        """
        index = checkpoint.log_index
        if index is not None and 0 <= index < len(self.app_logs):
            return index + 1
        return sum(1 for log in self.app_logs if log.timestamp <= checkpoint.timestamp)

    def visible_logs(self, checkpoint: Checkpoint) -> tuple[AppLog, ...]:
        """The events visible at ``checkpoint``."""
        return self.app_logs[: self.visible_count(checkpoint)]

    def value_evidence_ids(self, checkpoint: Checkpoint, key: str) -> tuple[str, ...]:
        """Visible events whose ``golden_evidence`` shows ``key`` holding its gold value at ``checkpoint``.

        A subset of :meth:`Checkpoint.gold_evidence_ids` (which is cumulative over every value the state
        ever had): the evidence of the *current* value only, so an event showing an old value does not
        count. Falls back to the cumulative ids when no event carries the value (a release whose
        evidence entries lack ``state_value``).
        """
        gold = checkpoint.gold_value(key)
        version = checkpoint.task_contract_version
        ids = tuple(
            log.app_log_id
            for log in self.visible_logs(checkpoint)
            for evidence in log.golden_evidence
            if evidence.state_key == key
            and evidence.has_value
            and not evidence.drops_state
            and current_value(evidence.state_value, task_contract_version=version) == gold
        )
        return tuple(dict.fromkeys(ids)) or checkpoint.gold_evidence_ids(key)
