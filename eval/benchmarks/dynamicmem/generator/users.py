"""Synthetic DynamicMem users, deterministic by seed, written in the release's two-file layout.

The released data cannot be downloaded here, so memsuite generates users with the same design
(DynamicMem paper, arXiv 2606.22877):

- **Profile and states.** Each user has a basic profile and states in three categories: attributes
  (job, home, commute mode, fitness club, later a pet), habits (routines with a schedule, a start time
  and a place: running, grocery shopping, evening reading, a language class, a monthly book club,
  later a dog walk) and preferences (food, work music, coffee, books), stored under the release's
  groups ``user_attributes_state`` / ``habits_state`` / ``preferences_state``.
- **Different timelines.** Attributes change only at life events (a new job, a move, adopting a dog,
  a switch of gym); habits change with the seasons (winter moves the run to the gym's treadmill,
  a different time) and with life events (a move changes the route and the grocer, a new job the
  class evenings); preferences drift (work music every five to seven months, iced drinks in summer)
  and follow events (a health check-up changes the food preference).
- **The stream.** About two to four events a day for 15 months (hundreds to ~2,000 per user) across
  17 apps (:data:`.vocabulary.APPS`), each an API ``request``/``response`` whose
  content implies a state without stating it (a workout log at 06:30 on the canal towpath, a payslip
  e-mail, a delivery address), plus unrelated filler. Life events arrive as short chains (an
  interview invitation, a welcome e-mail, a profile update). Every event carries ``golden_evidence``: the
  states it evidences, their full value at that moment, and the evidenced fields.
- **Checkpoints.** Cut by :func:`~memsuite.eval.benchmarks.dynamicmem.checkpoints.quarterly_cuts`; the gold at
  each is the replay of the visible evidence, so a state is asked only once something showed it and
  its gold is the latest evidenced value. Each checkpoint carries ``expected_snapshot_state``,
  ``validated_snapshot_state`` (identical: generated states need no validation),
  ``state_observability``, a ``state_completion_pack`` and one ``rq3_apply_service_qa`` item per state.

Determinism: one ``random.Random`` per user, seeded from (seed, user index) and passed down to every
draw, so a user does not depend on how many others are generated. All names are invented.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from memsuite.eval.benchmarks.dynamicmem.checkpoints import quarterly_cuts, replay_states
from memsuite.eval.benchmarks.dynamicmem.generator.events import Event, simulate
from memsuite.eval.benchmarks.dynamicmem.generator.world import World, draw_persona
from memsuite.eval.benchmarks.dynamicmem.loader import parse_app_logs, task_body
from memsuite.eval.benchmarks.dynamicmem.schema import (
    APP_LOG_FILE,
    IDENTITY_GATE,
    PLACEHOLDER,
    RESEARCH_FRAME_VERSION,
    SERVICE_FAMILY_OF_CATEGORY,
    TASK_CONTRACT_VERSION,
    TASK_PACK_FILE,
    category_of,
    current_value,
    nest_state,
    split_state_key,
    template_of,
)
from memsuite.memory_systems.persist import atomic_write_text

#: Bump when the generated layout or content changes (recorded in every task_packs.json).
GENERATOR_VERSION = 1
#: Earliest first day of a trajectory (the release's trajectories start in October 2023).
FIRST_START = date(2023, 10, 1)
#: Weekday names by the index a schedule's day_of_week / days_of_week holds (0 = Monday).
WEEKDAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_ORDINALS = ("first", "second", "third", "fourth", "fifth")
#: Task C instructions, one per service family (memsuite's wording of the release's three tasks).
TASK_INSTRUCTIONS = {
    "user_communication": (
        "As the assistant, write the one message to send the user now. Use the details of their routine "
        "so that it is specific, not a generic reminder."
    ),
    "information_request_construction": (
        "As the assistant, fill in the search filters to send now, shaped by the user's preference. "
        "Do not write the recommendation itself."
    ),
    "action_configuration": (
        "As the assistant, fill in the configuration fields needed to carry out this action, from what "
        "is known about the user. Do not write a message or a recommendation."
    ),
}


def user_id_of(index: int) -> str:
    """The release's user id of the ``index``-th user (1-based): ``001_user_001``."""
    return f"{index:03d}_user_{index:03d}"


def user_rng(seed: int, index: int) -> random.Random:
    """The random source of one user: independent of the other users and of how many there are."""
    return random.Random(f"memsuite.dynamicmem:{seed}:{index}")


def _add_months(day: date, months: int) -> date:
    month0 = day.month - 1 + months
    return day.replace(year=day.year + month0 // 12, month=month0 % 12 + 1, day=min(day.day, 28))


def _days_text(days: list[int]) -> str:
    names = [WEEKDAY_NAMES[d] for d in days]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _stream(w: World, events: list[Event]) -> list[dict[str, Any]]:
    """The released event list: sorted, with ids, metadata and golden evidence."""
    ordered = sorted(enumerate(events), key=lambda pair: (pair[1].when, pair[0]))
    last_value: dict[str, Any] = {}
    initial = {key: w.value(key, w.start) for key in w.state_keys()}
    logs = []
    for number, (_, event) in enumerate(ordered, start=1):
        day = date.fromisoformat(event.when[:10])
        evidence, reasons = [], {}
        for key, fields in event.evidence:
            value = w.value(key, day)
            if key not in last_value:
                change = "new" if initial[key] is None else "unchanged"
            else:
                change = "updated" if value != last_value[key] else "unchanged"
            if change != "unchanged":
                reasons[key] = w.change_reason(key, day)
            last_value[key] = value
            group, name = split_state_key(key)
            evidence.append(
                {
                    "state_category": group,
                    "state_name": name,
                    "change_type": change,
                    "state_value": value,
                    "evidenced_fields": fields,
                }
            )
        quarter = (day.year - w.start.year) * 4 + (day.month - 1) // 3 - (w.start.month - 1) // 3 + 1
        metadata: dict[str, Any] = {
            "event_id": f"{event.domain}_{number:05d}",
            "domain": event.domain,
            "window_id": f"w{quarter}",
        }
        if event.chain:
            metadata["chain_id"] = event.chain
        if reasons:
            metadata["change_reasons"] = reasons
        logs.append(
            {
                "app_log_id": f"log_{number:05d}",
                "timestamp": event.when,
                "app_name": event.app,
                "api_name": event.api,
                "request": event.request,
                "response": event.response,
                "metadata": metadata,
                "golden_evidence": evidence,
            }
        )
    return logs


# --------------------------------------------------------------------------------------------------
# Task packs
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Spec:
    """How one state is asked about: its label, its query, and its service item."""

    label: str
    query: str
    scenario: str
    output_root: str = ""
    output_fields: tuple[tuple[str, str], ...] = ()
    """Structured families: (source path in the value, output key); preferences use preferred/avoided."""
    topic: str = ""
    """Habits: what the routine is called (the identity gate)."""


_SPECS = {
    "employment": _Spec(
        "job title and employer",
        "What is the user's job title and who is their employer?",
        "A registration form for an industry conference is being completed on the user's behalf.",
        "conference_registration",
        (("job_title", "job_title"), ("employer", "organization")),
    ),
    "home": _Spec(
        "home city and neighborhood",
        "Where does the user live: which city and neighborhood is their home address in?",
        "The assistant is setting up a new grocery-delivery account for the user.",
        "delivery_account",
        (("city", "city"), ("neighborhood", "neighborhood")),
    ),
    "commute_mode": _Spec(
        "usual way of getting to work",
        "How does the user usually travel to work on weekday mornings?",
        "The assistant is configuring the default travel mode in the user's maps app for weekday trips "
        "to work.",
        "maps_defaults",
        (("current_value", "weekday_commute_mode"),),
    ),
    "gym_membership": _Spec(
        "fitness club and membership plan",
        "Which fitness club is the user a member of and on which membership plan?",
        "The assistant is booking a spin class for the user through their fitness club.",
        "class_booking",
        (("club", "club"), ("plan", "membership_plan")),
    ),
    "pet": _Spec(
        "pet",
        "Does the user have a pet? What species and breed is it and what is its name?",
        "The assistant is filling in a booking form for a weekend pet sitter.",
        "pet_sitter_booking",
        (("name", "pet_name"), ("species", "species"), ("breed", "breed")),
    ),
    "running": _Spec(
        "running routine (days, start time and place)",
        "On which days, at what time and where does the user usually go running?",
        "The assistant is preparing tomorrow's schedule summary for the user and wants to include their "
        "usual workout.",
        topic="run",
    ),
    "weekly_grocery_shop": _Spec(
        "grocery shopping routine (day, time and store)",
        "When and at which grocery store does the user usually do the grocery shopping?",
        "The fridge app reports that milk and eggs are running low; the assistant is drafting a heads-up "
        "about the next shop.",
        topic="grocery shopping",
    ),
    "evening_reading": _Spec(
        "evening reading routine (schedule, start time and spot)",
        "When does the user usually start reading in the evening, and where at home?",
        "The assistant manages do-not-disturb settings and is about to tell the user when their quiet "
        "time will start.",
        topic="evening reading",
    ),
    "language_class": _Spec(
        "language class (days, start time and school)",
        "On which evenings and at what time does the user attend a language class, and at which school?",
        "A colleague asked for a call on an evening this week; the assistant is telling the user which "
        "evenings are already taken.",
        topic="language class",
    ),
    "book_club": _Spec(
        "book club meetings (week and weekday of the month, time and venue)",
        "When and where does the user's book club meet each month?",
        "A new novel has just arrived for the user's reading group; the assistant is sending a note "
        "about the next meeting.",
        topic="book club",
    ),
    "dog_walk": _Spec(
        "dog walk routine (schedule, start time and route)",
        "When and where does the user usually walk their dog?",
        "Rain is forecast for early tomorrow; the assistant is sending a note about the usual outing "
        "with the dog.",
        topic="dog walk",
    ),
    "cuisine": _Spec(
        "food preference when ordering meals",
        "What kind of food does the user like to order, and what do they avoid?",
        "The user asked for a dinner delivery suggestion tonight; the assistant is preparing the filters "
        "for a restaurant search.",
        "restaurant_search_filters",
        (("preferred", "preferred_cuisine"), ("avoided", "cuisine_to_avoid")),
    ),
    "music": _Spec(
        "music preference while working",
        "What music does the user like to play while working, and what do they skip?",
        "The user is starting a long focus session and asked for background music; the assistant is "
        "configuring a playlist search.",
        "playlist_search_filters",
        (("preferred", "include_genre"), ("avoided", "exclude_genre")),
    ),
    "coffee": _Spec(
        "coffee drink preference",
        "What coffee or café drinks does the user prefer, and which do they avoid?",
        "The user asked the assistant to pre-order a drink from the café near home.",
        "drink_search_filters",
        (("preferred", "preferred_drink"), ("avoided", "drink_to_avoid")),
    ),
    "reading_genre": _Spec(
        "preferred kind of books",
        "Which genres of books does the user prefer, and which do they dislike?",
        "The user's e-reader queue is empty; the assistant is setting up a search for the next book.",
        "book_search_filters",
        (("preferred", "preferred_genre"), ("avoided", "excluded_genre")),
    ),
}


def _field_points(value: Any, prefix: str) -> list[dict[str, Any]]:
    """Slot points of a value as released: one per leaf, lists by index, statements as micro points."""
    points: list[dict[str, Any]] = []

    def walk(node: Any, path: str) -> None:
        if isinstance(node, dict):
            for key, child in node.items():
                walk(child, f"{path}.{key}" if path else key)
        elif isinstance(node, list):
            for i, child in enumerate(node):
                walk(child, f"{path or 'current_value'}.{i}")
        elif path.endswith("statement"):
            points.append(
                {
                    "point_id": f"{prefix}_p{len(points) + 1}",
                    "point_type": "micro",
                    "polarity": "positive",
                    "point_text": str(node),
                    "target_path": path,
                }
            )
        else:
            points.append(
                {
                    "point_id": f"{prefix}_p{len(points) + 1}",
                    "point_type": "field",
                    "polarity": "positive",
                    "point_text": f"{path or 'current_value'} should match the validated value",
                    "target_path": path or "current_value",
                    "reference_value": node,
                }
            )

    walk(value, "")
    return points


def _habit_phrase(schedule: dict[str, Any]) -> dict[str, str]:
    """Words for each schedule leaf, used in the reference message and its scoring points."""
    kind = schedule["frequency_type"]
    if kind == "daily":
        return {"schedule.frequency_type": "daily"}
    if kind == "weekly":
        return {
            "schedule.frequency_type": "weekly",
            "schedule.days_of_week": _days_text(schedule["days_of_week"]),
        }
    return {
        "schedule.frequency_type": "monthly",
        "schedule.week_of_month": _ORDINALS[schedule["week_of_month"] - 1],
        "schedule.day_of_week": WEEKDAY_NAMES[schedule["day_of_week"]],
    }


def _service_item(w: World, key: str, value: Any, evidence_ids: list[str]) -> dict[str, Any]:
    category, name = category_of(key), split_state_key(key)[1]
    spec, family = _SPECS[name], SERVICE_FAMILY_OF_CATEGORY[category]
    item: dict[str, Any] = {
        "qa_id": "q1",
        "service_family": family,
        "scenario": spec.scenario,
        "task_instruction": TASK_INSTRUCTIONS[family],
    }
    if category == "habits":
        words = _habit_phrase(value["schedule"])
        when = {
            "daily": "daily",
            "weekly": f"weekly on {words.get('schedule.days_of_week', '')}",
            "monthly": f"monthly, on the {words.get('schedule.week_of_month', '')} "
            f"{words.get('schedule.day_of_week', '')}",
        }[words["schedule.frequency_type"]]
        start, place = value["timing"]["start_time"], value["location"]
        item["reference_answer"] = (
            f"Heads-up about your {spec.topic}: {when}, starting at {start} ({place}). "
            "I've kept that time free."
        )
        points = [
            {
                "point_id": "acp_gate",
                "point_type": "micro",
                "polarity": "positive",
                "point_role": IDENTITY_GATE,
                "point_text": f"The message is about the user's {spec.topic} routine",
                "reference_value": spec.topic,
            }
        ]
        for path, text in [*words.items(), ("timing.start_time", start), ("location", place)]:
            points.append(
                {
                    "point_id": f"acp_p{len(points)}",
                    "point_type": "field",
                    "polarity": "positive",
                    "point_text": f"The message states the {path.split('.')[-1].replace('_', ' ')}: {text}",
                    "source_field_path": path,
                    "target_path": "answer",
                    "reference_value": text,
                }
            )
        item["answer_scoring_points"] = points
        item["retrieval_query"] = task_body(spec.scenario, item["task_instruction"])
    else:
        if category == "preferences":
            preferred, avoided = w.pairs[value["statement"]]
            source = {"preferred": preferred, "avoided": avoided}
        else:
            source = value if isinstance(value, dict) else {"current_value": value}
        reference = {out: source[src] for src, out in spec.output_fields}
        template = {spec.output_root: {out: PLACEHOLDER for _, out in spec.output_fields}}
        item["output_template"] = template
        item["reference_output"] = {spec.output_root: reference}
        item["answer_scoring_points"] = [
            {
                "point_id": f"acp_p{i}",
                "point_type": "field",
                "polarity": "positive",
                "point_text": f"{spec.output_root}.{out} is filled from the user's state",
                "source_field_path": "statement" if category == "preferences" else src,
                "output_field_path": f"{spec.output_root}.{out}",
                "target_path": f"{spec.output_root}.{out}",
                "reference_value": reference[out],
            }
            for i, (src, out) in enumerate(spec.output_fields, start=1)
        ]
        item["retrieval_query"] = task_body(spec.scenario, item["task_instruction"], template)
    item["gold_memory_evidence_app_log_ids"] = list(evidence_ids)
    return item


def _task_packs(w: World, user_id: str, logs: list[dict[str, Any]], meta: dict[str, Any]) -> dict[str, Any]:
    app_logs = parse_app_logs(logs, path=Path(f"<generated {user_id}>") / APP_LOG_FILE, user_id=user_id)
    cuts = quarterly_cuts([log.timestamp for log in app_logs])
    states = replay_states(app_logs, [cut.log_index for cut in cuts])
    reason_of: dict[str, str] = {}
    reason_index = 0
    checkpoints = []
    for number, (cut, at) in enumerate(zip(cuts, states, strict=True), start=1):
        while reason_index <= cut.log_index:
            reason_of.update(app_logs[reason_index].metadata.get("change_reasons", {}))
            reason_index += 1
        observability = {
            key: {
                **info,
                "is_valid": True,
                **({"last_change_reason": reason_of[key]} if key in reason_of else {}),
            }
            for key, info in at.observability.items()
        }
        date_text = cut.timestamp[:10]
        completion, service = {}, {}
        for key in sorted(at.state):
            gold = current_value(at.state[key])
            if gold is None:
                continue
            spec = _SPECS[split_state_key(key)[1]]
            completion[key] = {
                "question_text": f"As of {date_text}, what is the user's current {spec.label}? "
                f"Fill in the template for `{key}`.",
                "retrieval_query": spec.query,
                "answer_template": template_of(gold),
                "scoring_points": _field_points(gold, "scp"),
            }
            service[key] = {
                "items": [_service_item(w, key, gold, at.observability[key]["evidence_app_log_ids"])]
            }
        log = app_logs[cut.log_index]
        checkpoints.append(
            {
                "checkpoint_id": f"cal_quarterly_{number:03d}",
                "as_of": {
                    "log_index": cut.log_index,
                    "app_log_id": log.app_log_id,
                    "timestamp": cut.timestamp,
                    "window_id": log.metadata.get("window_id"),
                    "domain": log.metadata.get("domain"),
                },
                "sampling": {
                    "mode": "calendar_time",
                    "params": {
                        "calendar_anchor_freq": "quarterly",
                        "anchor_index": number,
                        "source_anchor_index": cut.anchor_index,
                        "anchor_timestamp": cut.anchor_timestamp,
                    },
                },
                "expected_snapshot_state": nest_state(at.state),
                "validated_snapshot_state": nest_state(at.state),
                "state_observability": nest_state(observability),
                "state_completion_pack": {"keys": completion},
                "rq3_apply_service_qa": {"keys": service},
            }
        )
    return {
        "user_id": user_id,
        "task_contract_version": TASK_CONTRACT_VERSION,
        "research_frame_version": RESEARCH_FRAME_VERSION,
        "sampling_strategy": {
            "stage": "benchmark_build",
            "mode": "calendar_time",
            "params": {"calendar_anchor_freq": "quarterly"},
        },
        "total_checkpoints": len(checkpoints),
        **meta,
        "checkpoints": checkpoints,
    }


# --------------------------------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GeneratedUser:
    """One generated user in the release's layout."""

    user_id: str
    app_logs: list[dict[str, Any]] = field(compare=False, hash=False)
    """Content of ``app_log_large.json``."""
    task_packs: dict[str, Any] = field(compare=False, hash=False)
    """Content of ``task_packs.json``."""

    def write(self, folder: Path | str) -> Path:
        """Write both files into ``folder/<user_id>/`` (atomically each); returns that folder."""
        target = Path(folder) / self.user_id
        atomic_write_text(target / APP_LOG_FILE, json.dumps(self.app_logs, ensure_ascii=False, indent=1))
        atomic_write_text(target / TASK_PACK_FILE, json.dumps(self.task_packs, ensure_ascii=False, indent=1))
        return target


def generate_user(
    index: int, *, rng: random.Random, months: int = 15, activity: float = 1.0
) -> GeneratedUser:
    """Generate one user.

    Args:
        index: 1-based user number (gives the id ``001_user_001``).
        rng: The user's random source; every draw comes from it.
        months: Length of the trajectory in calendar months (15 gives checkpoints C1..C5).
        activity: Scales how many events a day there are (1.0 gives ~1,500-2,000 events in 15 months).

    Returns:
        The user.

    Raises:
        ValueError: ``months`` < 1, ``activity`` <= 0, or ``index`` < 1.
    """
    if index < 1 or months < 1 or not activity > 0:
        raise ValueError(f"need index >= 1, months >= 1 and activity > 0, got {index}, {months}, {activity}")
    user_id = user_id_of(index)
    start = FIRST_START + timedelta(days=rng.randrange(28))
    end = _add_months(start, months) - timedelta(days=1)
    persona = draw_persona(rng)
    world = World(persona, rng, start, end)
    # Users differ in how much they use their phones (the release averages 1,772 events per user).
    scale = round(rng.uniform(0.8, 1.3), 3)
    logs = _stream(world, simulate(world, rng, activity * scale))
    meta = {
        "generator": {
            "name": "memsuite.dynamicmem",
            "version": GENERATOR_VERSION,
            "months": months,
            "activity": activity,
            "activity_scale": scale,
        },
        "user_profile": {
            "name": persona.name,
            "age": persona.age,
            "home_city_at_start": persona.homes[0].city,
        },
        "life_events": [
            {"kind": kind, "date": day.isoformat(), "reason": world.event_reason(kind)}
            for kind, day in sorted(world.events.items(), key=lambda kv: kv[1])
        ],
    }
    return GeneratedUser(user_id, logs, _task_packs(world, user_id, logs, meta))


def generate_users(n: int, *, seed: int = 0, months: int = 15, activity: float = 1.0) -> list[GeneratedUser]:
    """Generate users ``1..n``; user ``i`` is the same for every ``n >= i`` (its rng is :func:`user_rng`)."""
    return [
        generate_user(i, rng=user_rng(seed, i), months=months, activity=activity) for i in range(1, n + 1)
    ]


def write_users(users: list[GeneratedUser], out: Path | str) -> list[Path]:
    """Write users under ``out`` (one folder each, as the release's ``outputs/<user_id>/``)."""
    return [user.write(out) for user in users]
