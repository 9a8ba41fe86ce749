"""DynamicMem's gold for the oracle endpoint (eval/oracle/): each day's state changes, each question's gold.

A user's sessions are those the protocol's ``ingest: session`` mode makes (one per day of each
checkpoint's new events, turns the raw event JSON); their gold facts come from the events'
``golden_evidence``, replayed in order. A state is an entity (its key ``<group>:<name>``, named by
``<name>`` in words). An entry that gives the state a value it did not hold is a ``state`` fact (its
first value) or an ``update`` (a new one); an entry that drops it is a ``delete``; an entry restating
the value the state already holds states nothing new and gives no fact. A value is its State
Completion form (:func:`.schema.current_value`), as compact JSON when it is structured, with weekdays
by name as the events say them (a schedule's index 1 is written "Tuesday").

Questions are the State Completion keys and the Personalized Service items the protocol asks, in its
order (checkpoint by checkpoint; a key asked at every checkpoint with the same words is told apart by
its occurrence); their gold is the reply object the answer prompt asks for, with the gold value or
reference and the gold evidence ids.
"""

from __future__ import annotations

import json
from itertools import groupby
from typing import Any

from memsuite.baselines.gold_facts import OracleFact
from memsuite.eval.benchmarks.dynamicmem.generator.users import WEEKDAY_NAMES
from memsuite.eval.benchmarks.dynamicmem.loader import task_body
from memsuite.eval.benchmarks.dynamicmem.schema import UserData, current_value, split_state_key
from memsuite.eval.oracle.gold import QuestionGold, SessionGold, UnitGold, normalise


def state_name(key: str) -> str:
    """A state key's name in words (``habits_state:morning_run`` -> ``morning run``)."""
    return split_state_key(key)[1].replace("_", " ")


#: Schedule fields that hold weekday indexes (0 = Monday).
WEEKDAY_FIELDS = ("day_of_week", "days_of_week")


def _named_days(value: Any) -> Any:
    """``value`` with the weekday indexes of its schedule fields as names: the events name the day, so
    a model extracting from them writes "Tuesday", and a memory's text is read by its words."""
    if isinstance(value, list):
        return [_named_days(v) for v in value]
    if not isinstance(value, dict):
        return value
    out = {}
    for key, item in value.items():
        if key in WEEKDAY_FIELDS:
            days = item if isinstance(item, list) else [item]
            if all(isinstance(d, int) and not isinstance(d, bool) and 0 <= d <= 6 for d in days):
                names = [WEEKDAY_NAMES[d] for d in days]
                out[key] = names if isinstance(item, list) else names[0]
                continue
        out[key] = _named_days(item)
    return out


def value_text(value: Any) -> str:
    """A state value as a fact states it: a string as it is, structured values as compact JSON with
    weekdays by name."""
    if isinstance(value, str):
        return value
    return json.dumps(_named_days(value), ensure_ascii=False, sort_keys=True)


def _facts(logs: list[Any], held: dict[str, str], version: str) -> list[OracleFact]:
    """The facts one day's events state, given the values the states ``held`` before it (updated)."""
    facts = []
    for log in logs:
        for evidence in log.golden_evidence:
            key, name = evidence.state_key, state_name(evidence.state_key)
            if evidence.drops_state:
                if held.pop(key, None) is not None:
                    text = f"My {name} no longer applies."
                    facts.append(OracleFact("delete", key, name, "", text))
                continue
            if not evidence.has_value:
                continue
            value = current_value(evidence.state_value, task_contract_version=version)
            if value is None:
                continue
            text_value = value_text(value)
            before = held.get(key)
            if before == text_value:
                continue
            held[key] = text_value
            if before is None:
                facts.append(OracleFact("state", key, name, text_value, f"My {name} is {text_value}."))
            else:
                text = f"My {name} changed from {before} to {text_value}."
                facts.append(OracleFact("update", key, name, text_value, text))
    return facts


def _evidence(ids: tuple[str, ...]) -> list[dict[str, str]]:
    return [{"app_log_id": i, "evidence_content": ""} for i in ids]


def _questions(benchmark: Any, user: UserData) -> list[QuestionGold]:
    asked = getattr(benchmark, "asked", None)
    out = []
    for cp in user.checkpoints:
        if asked is not None and cp.label not in asked:
            continue
        for key in cp.completion_keys():
            gold = {
                "user_state": {key: cp.gold_value(key)},
                "evidence": {key: _evidence(user.value_evidence_ids(cp, key))},
            }
            out.append(QuestionGold(normalise(cp.completion[key].question_text), gold, None, (key,)))
        if not getattr(benchmark, "service", True):
            continue
        for key in sorted(cp.service):
            if not cp.service[key] or cp.gold_value(key) is None:
                continue
            item = cp.service[key][0]  # the one item per key the protocol asks
            body = task_body(
                item.scenario, item.task_instruction, item.output_template if item.structured else None
            )
            gold = {"answer": item.reference, "evidence": _evidence(item.gold_evidence_ids)}
            out.append(QuestionGold(normalise(body), gold, None, (key,)))
    return out


def unit_gold(benchmark: Any, unit_id: str) -> UnitGold:
    """The gold of user ``unit_id`` of a built DynamicMem benchmark.

    Raises:
        KeyError: The benchmark has no such user.
    """
    if unit_id not in benchmark.units():
        raise KeyError(unit_id)
    user = benchmark.user(unit_id)
    version = user.task_contract_version
    held: dict[str, str] = {}
    sessions = []
    visible = 0
    for cp in user.checkpoints:  # the protocol ingests each checkpoint's new events day by day
        count = user.visible_count(cp)
        for day, group in groupby(user.app_logs[visible:count], key=lambda log: log.timestamp[:10]):
            logs = list(group)
            sessions.append(
                SessionGold(
                    session_id=f"{user.user_id}:{day}:{logs[0].app_log_id}",
                    timestamp=logs[0].timestamp,
                    # The user turns only: every assistant turn is the same acknowledgement.
                    turns=tuple(normalise(log.memory_text) for log in logs),
                    facts=tuple(_facts(logs, held, version)),
                )
            )
        visible = max(visible, count)
    return UnitGold(unit_id, tuple(sessions), tuple(_questions(benchmark, user)))
