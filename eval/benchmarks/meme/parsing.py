"""Parsing MEME episodes from the released JSON into :mod:`memsuite.eval.benchmarks.meme.schema` records.

Every check names the source, the episode id and the field path, so a bad file fails before any work
starts with a message that points at the field. :func:`parse_episode` is the public entry.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from memsuite.eval.benchmarks.meme.schema import (
    DependencyEdge,
    Episode,
    EpisodeSession,
    GoldFact,
    Question,
    QuestionSet,
    Task,
    parse_task_type,
)
from memsuite.memory_systems.errors import DatasetError
from memsuite.memory_systems.records import Turn

_EPISODE_KEYS = {
    "episode_id",
    "domain",
    "root",
    "root_change",
    "chain_entities",
    "filler_entities",
    "entities",
    "has_2hop",
    "dependency_edges_used",
    "tasks",
    "evidence_session_indices",
    "sessions",
    "before_questions",
    "after_questions",
}
_SESSION_KEYS = {"session_id", "type", "evidence_type", "timestamp", "conversation", "gold_facts"}
_FACT_KEYS = {"entity", "value", "fact_text", "conveyed_in_turn", "notes"}
_QUESTION_KEYS = {"task_type", "entity", "entity_values", "question", "expected_answer", "gold_answer", "hop"}
_QSET_KEYS = {"timestamp", "position_after_session", "questions"}
_TASK_KEYS = {
    "type",
    "target_entities",
    "entity_values",
    "question_template",
    "gold_answer",
    "notes",
    "hop",
    "cascade_source",
}
_EDGE_KEYS = {"source", "target", "hop", "pattern"}


@dataclass(frozen=True)
class _Where:
    source: str
    episode_id: str

    def fail(self, path: str, problem: str) -> DatasetError:
        return DatasetError(f"{self.source}: episode {self.episode_id!r}: field '{path}': {problem}")


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _get(
    w: _Where, obj: Mapping[str, Any], key: str, path: str, kind: type | tuple, *, required: bool
) -> Any:
    """``obj[key]`` checked against ``kind``; None when absent (or null) and not required."""
    value = obj.get(key)
    if value is None:
        if required:
            raise w.fail(path, "missing" if key not in obj else "is null")
        return None
    # bool is an int subclass: an int field must not accept true/false.
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise w.fail(path, f"expected {names}, got {_kind(value)}")
    return value


def _str_list(w: _Where, value: Any, path: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise w.fail(path, f"expected a list of strings, got {_kind(value)}")
    return tuple(value)


def _extra(obj: Mapping[str, Any], known: set[str]) -> dict[str, Any]:
    return {k: v for k, v in obj.items() if k not in known}


def _task_code(w: _Where, label: Any, path: str) -> tuple[str, str | None]:
    if not isinstance(label, str):
        raise w.fail(path, f"expected str, got {_kind(label)}")
    try:
        code, _ = parse_task_type(label)
    except ValueError as exc:
        raise w.fail(path, str(exc)) from None
    return code, (None if label == code else label)


def parse_episode(data: Any, source: str = "<dict>") -> Episode:
    """Build and validate an episode from its released JSON object.

    Args:
        data: The decoded JSON object of one episode.
        source: What to name in error messages (a file path, ``file.json[3]``, ...).

    Raises:
        DatasetError: A required field is missing or any present field has the wrong shape; the
            message names ``source``, the episode id and the field path.
    """
    if not isinstance(data, Mapping):
        raise DatasetError(f"{source}: an episode must be a JSON object, got {_kind(data)}")
    raw_id = data.get("episode_id")
    w = _Where(source, raw_id if isinstance(raw_id, str) else "<unknown>")
    episode_id = _get(w, data, "episode_id", "episode_id", str, required=True)
    domain = _get(w, data, "domain", "domain", str, required=True)

    raw_sessions = _get(w, data, "sessions", "sessions", list, required=True)
    if not raw_sessions:
        raise w.fail("sessions", "is empty")
    sessions = tuple(_parse_session(w, s, i) for i, s in enumerate(raw_sessions))
    seen: dict[str, int] = {}
    for i, s in enumerate(sessions):
        if s.session_id in seen:
            raise w.fail(
                f"sessions[{i}].session_id",
                f"duplicate {s.session_id!r} (also sessions[{seen[s.session_id]}])",
            )
        seen[s.session_id] = i

    before = _parse_question_set(w, data, "before", len(sessions))
    after = _parse_question_set(w, data, "after", len(sessions))
    if after.position_after_session < before.position_after_session:
        raise w.fail(
            "after_questions.position_after_session",
            f"{after.position_after_session} is before before_questions' {before.position_after_session}",
        )

    root_change = _get(w, data, "root_change", "root_change", dict, required=False)
    entities = _get(w, data, "entities", "entities", dict, required=False)
    if entities is not None:
        for eid, info in entities.items():
            if not isinstance(info, dict):
                raise w.fail(f"entities.{eid}", f"expected an object, got {_kind(info)}")
    chain = data.get("chain_entities")
    filler = data.get("filler_entities")
    edges = _get(w, data, "dependency_edges_used", "dependency_edges_used", list, required=False)
    tasks = _get(w, data, "tasks", "tasks", list, required=False)
    indices = _get(w, data, "evidence_session_indices", "evidence_session_indices", list, required=False)
    if indices is not None:
        for j, index in enumerate(indices):
            if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(sessions):
                raise w.fail(
                    f"evidence_session_indices[{j}]",
                    f"expected a session index 0..{len(sessions) - 1}, got {index!r}",
                )
    return Episode(
        episode_id=episode_id,
        domain=domain,
        sessions=sessions,
        before_questions=before,
        after_questions=after,
        root=_get(w, data, "root", "root", str, required=False),
        root_change=root_change,
        chain_entities=None if chain is None else _str_list(w, chain, "chain_entities"),
        filler_entities=None if filler is None else _str_list(w, filler, "filler_entities"),
        entities=entities,
        has_2hop=_get(w, data, "has_2hop", "has_2hop", bool, required=False),
        dependency_edges_used=None
        if edges is None
        else tuple(_parse_edge(w, e, f"dependency_edges_used[{j}]") for j, e in enumerate(edges)),
        tasks=None if tasks is None else tuple(_parse_task(w, t, f"tasks[{j}]") for j, t in enumerate(tasks)),
        evidence_session_indices=None if indices is None else tuple(indices),
        extra=_extra(data, _EPISODE_KEYS),
    )


def _object(w: _Where, value: Any, path: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise w.fail(path, f"expected an object, got {_kind(value)}")
    return value


def _parse_session(w: _Where, raw: Any, index: int) -> EpisodeSession:
    path = f"sessions[{index}]"
    obj = _object(w, raw, path)
    conversation = _get(w, obj, "conversation", f"{path}.conversation", list, required=True)
    turns = []
    for j, turn in enumerate(conversation):
        tpath = f"{path}.conversation[{j}]"
        t = _object(w, turn, tpath)
        turns.append(
            Turn(
                _get(w, t, "role", f"{tpath}.role", str, required=True),
                _get(w, t, "content", f"{tpath}.content", str, required=True),
            )
        )
    facts = _get(w, obj, "gold_facts", f"{path}.gold_facts", list, required=False)
    return EpisodeSession(
        session_id=_get(w, obj, "session_id", f"{path}.session_id", str, required=True),
        timestamp=_get(w, obj, "timestamp", f"{path}.timestamp", str, required=True),
        conversation=tuple(turns),
        session_type=_get(w, obj, "type", f"{path}.type", str, required=False),
        evidence_type=_get(w, obj, "evidence_type", f"{path}.evidence_type", str, required=False),
        gold_facts=None
        if facts is None
        else tuple(_parse_fact(w, f, f"{path}.gold_facts[{j}]", len(turns)) for j, f in enumerate(facts)),
        extra=_extra(obj, _SESSION_KEYS),
    )


def _parse_fact(w: _Where, raw: Any, path: str, n_turns: int) -> GoldFact:
    obj = _object(w, raw, path)
    turn = _get(w, obj, "conveyed_in_turn", f"{path}.conveyed_in_turn", int, required=False)
    if turn is not None and not 0 <= turn < n_turns:
        raise w.fail(f"{path}.conveyed_in_turn", f"{turn} is not a turn index 0..{n_turns - 1}")
    return GoldFact(
        entity=_get(w, obj, "entity", f"{path}.entity", str, required=True),
        value=_get(w, obj, "value", f"{path}.value", str, required=True),
        fact_text=_get(w, obj, "fact_text", f"{path}.fact_text", str, required=False),
        conveyed_in_turn=turn,
        notes=_get(w, obj, "notes", f"{path}.notes", str, required=False),
        extra=_extra(obj, _FACT_KEYS),
    )


def _parse_question_set(w: _Where, data: Mapping[str, Any], phase: str, n_sessions: int) -> QuestionSet:
    key = f"{phase}_questions"
    obj = _get(w, data, key, key, dict, required=True)
    position = _get(
        w, obj, "position_after_session", f"{key}.position_after_session", int, required=phase == "before"
    )
    if position is None:
        position = n_sessions - 1  # after-questions default to the end of the stream
    if not 0 <= position < n_sessions:
        raise w.fail(
            f"{key}.position_after_session", f"{position} is not a session index 0..{n_sessions - 1}"
        )
    questions = _get(w, obj, "questions", f"{key}.questions", list, required=True)
    return QuestionSet(
        phase=phase,
        position_after_session=position,
        questions=tuple(_parse_question(w, q, f"{key}.questions[{j}]") for j, q in enumerate(questions)),
        timestamp=_get(w, obj, "timestamp", f"{key}.timestamp", str, required=False),
        extra=_extra(obj, _QSET_KEYS),
    )


def _parse_question(w: _Where, raw: Any, path: str) -> Question:
    obj = _object(w, raw, path)
    if "task_type" not in obj:
        raise w.fail(f"{path}.task_type", "missing")
    code, label = _task_code(w, obj["task_type"], f"{path}.task_type")
    if obj.get("expected_answer") is not None:
        gold_key = "expected_answer"
    elif obj.get("gold_answer") is not None:
        gold_key = "gold_answer"
    else:
        raise w.fail(f"{path}.expected_answer", "missing (neither expected_answer nor gold_answer is given)")
    gold = obj[gold_key]
    if isinstance(gold, list) and all(isinstance(v, str) for v in gold):
        gold = ", ".join(gold)  # a list gold (Agg/Tr in some files) becomes the comma-joined string
    elif not isinstance(gold, str):
        raise w.fail(f"{path}.{gold_key}", f"expected str, got {_kind(gold)}")
    entity = obj.get("entity")
    if entity is None:
        entities: tuple[str, ...] = ()
    elif isinstance(entity, str):
        entities = (entity,)
    else:
        entities = _str_list(w, entity, f"{path}.entity")
    return Question(
        task=code,
        question=_get(w, obj, "question", f"{path}.question", str, required=True),
        gold=gold,
        entities=entities,
        entity_values=obj.get("entity_values"),
        hop=_get(w, obj, "hop", f"{path}.hop", int, required=False),
        task_label=label,
        gold_key=gold_key,
        extra=_extra(obj, _QUESTION_KEYS),
    )


def _parse_task(w: _Where, raw: Any, path: str) -> Task:
    obj = _object(w, raw, path)
    if "type" not in obj:
        raise w.fail(f"{path}.type", "missing")
    code, label = _task_code(w, obj["type"], f"{path}.type")
    targets = obj.get("target_entities")
    return Task(
        task=code,
        target_entities=() if targets is None else _str_list(w, targets, f"{path}.target_entities"),
        entity_values=obj.get("entity_values"),
        question_template=_get(w, obj, "question_template", f"{path}.question_template", str, required=False),
        gold_answer=_get(w, obj, "gold_answer", f"{path}.gold_answer", str, required=False),
        notes=_get(w, obj, "notes", f"{path}.notes", str, required=False),
        hop=_get(w, obj, "hop", f"{path}.hop", int, required=False),
        cascade_source=_get(w, obj, "cascade_source", f"{path}.cascade_source", str, required=False),
        task_label=label,
        extra=_extra(obj, _TASK_KEYS),
    )


def _parse_edge(w: _Where, raw: Any, path: str) -> DependencyEdge:
    obj = _object(w, raw, path)
    return DependencyEdge(
        source=_get(w, obj, "source", f"{path}.source", str, required=True),
        target=_get(w, obj, "target", f"{path}.target", str, required=True),
        hop=_get(w, obj, "hop", f"{path}.hop", int, required=False),
        pattern=_get(w, obj, "pattern", f"{path}.pattern", str, required=False),
        extra=_extra(obj, _EDGE_KEYS),
    )
