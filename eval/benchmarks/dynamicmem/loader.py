"""Read DynamicMem users (released or generated) into :mod:`~.schema` records.

A user is a folder holding ``app_log_large.json`` (a JSON list of events, or ``{"app_logs": [...]}``
as some release tools write it) and ``task_packs.json`` (``{"user_id", "task_contract_version",
"checkpoints": [...]}``). Everything is validated before a record is built; an error names the file,
the user, the checkpoint and the state key or event, and what is wrong.

Tolerances, each following the release's own readers: events are sorted by (timestamp, app_log_id);
a state-completion key needs ``question_text`` or ``retrieval_query`` (either stands in for the other);
a service item without ``retrieval_query`` is queried with its task body (scenario, instruction and
output template), which is what the release uses as the query; a missing ``qa_id`` becomes ``q<n>``;
a pack key whose gold is empty after :func:`~memsuite.eval.benchmarks.dynamicmem.schema.current_value` is not
asked. Unknown extra keys are kept in ``extra``/``metadata`` and never rejected.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memsuite.eval.benchmarks.dynamicmem.checkpoints import parse_timestamp
from memsuite.eval.benchmarks.dynamicmem.schema import (
    APP_LOG_FILE,
    CATEGORY_OF_GROUP,
    RESEARCH_FRAME_VERSION,
    SERVICE_FAMILIES,
    SERVICE_FAMILY_OF_CATEGORY,
    STATE_GROUPS,
    TASK_CONTRACT_VERSION,
    TASK_PACK_FILE,
    TEXT_FAMILY,
    AppLog,
    Checkpoint,
    CompletionTask,
    GoldenEvidence,
    Observability,
    ScoringPoint,
    ServiceItem,
    UserData,
    category_of,
)
from memsuite.memory_systems.errors import DatasetError

_POINT_KEYS = {
    "point_id",
    "point_type",
    "point_text",
    "polarity",
    "target_path",
    "reference_value",
    "point_role",
    "source_field_path",
    "output_field_path",
}


def task_body(scenario: str, task_instruction: str, output_template: Any = None) -> str:
    """A service item's task as shown to the answer model (and the release's retrieval query)."""
    parts = [f"[Scenario]\n{scenario.strip()}", f"[Task Instruction]\n{task_instruction.strip()}"]
    if output_template is not None:
        parts.append(f"[Required Output Object]\n{json.dumps(output_template, ensure_ascii=False, indent=2)}")
    return "\n\n".join(parts)


class _Where:
    """Builds error messages that name file, user, checkpoint and key."""

    def __init__(self, path: Path, user_id: str) -> None:
        self.path, self.user_id = path, user_id

    def fail(self, problem: str, *, checkpoint: str | None = None, key: str | None = None) -> DatasetError:
        parts = [f"user {self.user_id}"]
        if checkpoint is not None:
            parts.append(f"checkpoint {checkpoint}")
        if key is not None:
            parts.append(f"key {key}")
        return DatasetError(f"{self.path}: {', '.join(parts)}: {problem}")


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DatasetError(f"{path}: file not found") from None
    except json.JSONDecodeError as exc:
        raise DatasetError(
            f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}"
        ) from exc


def _text(value: Any, name: str, where: _Where, **at: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise where.fail(f"field '{name}' must be a non-empty string, got {value!r}", **at)
    return value


def _timestamp(value: Any, name: str, where: _Where, **at: Any) -> str:
    text = _text(value, name, where, **at)
    try:
        parse_timestamp(text)
    except ValueError:
        raise where.fail(f"field '{name}' is not a 'YYYY-MM-DD HH:MM:SS' timestamp: {text!r}", **at) from None
    return text


def _ids(value: Any, name: str, where: _Where, **at: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str | int) for v in value):
        raise where.fail(f"field '{name}' must be a list of app_log_id strings, got {value!r}", **at)
    return tuple(str(v).strip() for v in value if str(v).strip())


# -- events ------------------------------------------------------------------------------------------


def _evidence(raw: Any, where: _Where, event: str) -> GoldenEvidence:
    at = {"key": f"golden_evidence of {event}"}
    if not isinstance(raw, Mapping):
        raise where.fail(f"an evidence entry must be an object, got {raw!r}", **at)
    group = _text(raw.get("state_category"), "state_category", where, **at)
    name = _text(raw.get("state_name"), "state_name", where, **at)
    if group not in CATEGORY_OF_GROUP:
        raise where.fail(f"state_category {group!r} is not one of {', '.join(STATE_GROUPS)}", **at)
    fields = raw.get("evidenced_fields") or []
    if not isinstance(fields, list):
        raise where.fail(f"field 'evidenced_fields' must be a list, got {fields!r}", **at)
    return GoldenEvidence(
        group,
        name,
        str(raw.get("change_type") or "unchanged"),
        raw.get("state_value"),
        tuple(str(f) for f in fields),
        has_value="state_value" in raw,
    )


def parse_app_logs(raw: Any, *, path: Path, user_id: str) -> tuple[AppLog, ...]:
    """Validate the content of an ``app_log_large.json`` and return its events, sorted.

    Raises:
        DatasetError: Naming the file, user, event position and id, and the bad field.
    """
    where = _Where(path, user_id)
    if isinstance(raw, Mapping) and isinstance(raw.get("app_logs"), list):
        raw = raw["app_logs"]  # some release tools wrap the list
    if not isinstance(raw, list):
        raise where.fail(f"expected a JSON list of events, got {type(raw).__name__}")
    logs: list[AppLog] = []
    seen: set[str] = set()
    for position, item in enumerate(raw):
        event = f"event #{position}"
        if not isinstance(item, Mapping):
            raise where.fail(f"{event} must be an object, got {type(item).__name__}")
        if "app_log_id" in item and isinstance(item["app_log_id"], str):
            event = f"event #{position} ({item['app_log_id']})"
        at = {"key": event}
        log_id = _text(item.get("app_log_id"), "app_log_id", where, **at)
        if log_id in seen:
            raise where.fail(f"app_log_id {log_id!r} is not unique", **at)
        seen.add(log_id)
        for required in ("request", "response"):
            if required not in item:
                raise where.fail(f"missing field '{required}'", **at)
        evidence = item.get("golden_evidence") or []
        if not isinstance(evidence, list):
            raise where.fail(f"field 'golden_evidence' must be a list, got {evidence!r}", **at)
        metadata = item.get("metadata") or {}
        if not isinstance(metadata, Mapping):
            raise where.fail(f"field 'metadata' must be an object, got {metadata!r}", **at)
        logs.append(
            AppLog(
                log_id,
                _timestamp(item.get("timestamp"), "timestamp", where, **at),
                _text(item.get("app_name"), "app_name", where, **at),
                _text(item.get("api_name"), "api_name", where, **at),
                item["request"],
                item["response"],
                dict(metadata),
                tuple(_evidence(e, where, event) for e in evidence),
            )
        )
    if not logs:
        raise where.fail("the event stream is empty")
    logs.sort(key=lambda log: (log.timestamp, log.app_log_id))
    return tuple(logs)


def load_app_logs(path: Path | str, *, user_id: str | None = None) -> tuple[AppLog, ...]:
    """Read and validate one ``app_log_large.json``.

    Args:
        path: The file.
        user_id: For messages; default the name of the file's folder.

    Raises:
        DatasetError: The file is missing, not JSON, or malformed (the message says where).
    """
    path = Path(path)
    return parse_app_logs(_read_json(path), path=path, user_id=user_id or path.parent.name)


# -- task packs --------------------------------------------------------------------------------------


def _flat_section(raw: Any, name: str, where: _Where, checkpoint: str) -> dict[str, Any]:
    """A snapshot-like section (``{group: {name: x}}`` or flat ``{"group:name": x}``) as a flat dict."""
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise where.fail(f"field '{name}' must be an object, got {type(raw).__name__}", checkpoint=checkpoint)
    flat: dict[str, Any] = {}
    for outer, content in raw.items():
        if ":" in str(outer):
            key = str(outer)
            _check_key(key, where, checkpoint, name)
            flat[key] = content
            continue
        if outer not in CATEGORY_OF_GROUP:
            raise where.fail(
                f"'{name}' has group {outer!r}; groups are {', '.join(STATE_GROUPS)}", checkpoint=checkpoint
            )
        if not isinstance(content, Mapping):
            raise where.fail(f"'{name}.{outer}' must be an object of states", checkpoint=checkpoint)
        for state_name, value in content.items():
            flat[f"{outer}:{state_name}"] = value
    return flat


def _check_key(key: str, where: _Where, checkpoint: str, section: str) -> None:
    try:
        category_of(key)
    except ValueError as exc:
        raise where.fail(f"in '{section}': {exc}", checkpoint=checkpoint, key=key) from None


def _points(raw: Any, name: str, where: _Where, checkpoint: str, key: str) -> tuple[ScoringPoint, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise where.fail(f"field '{name}' must be a list, got {raw!r}", checkpoint=checkpoint, key=key)
    points = []
    for i, point in enumerate(raw):
        if not isinstance(point, Mapping):
            raise where.fail(f"{name}[{i}] must be an object", checkpoint=checkpoint, key=key)
        point_id = point.get("point_id")
        if not isinstance(point_id, str) or not point_id.strip():
            raise where.fail(f"{name}[{i}] has no 'point_id'", checkpoint=checkpoint, key=key)
        points.append(
            ScoringPoint(
                point_id,
                str(point.get("point_type") or "field"),
                str(point.get("point_text") or ""),
                str(point.get("polarity") or "positive"),
                str(point.get("target_path") or ""),
                point.get("reference_value"),
                str(point.get("point_role") or ""),
                str(point.get("source_field_path") or ""),
                str(point.get("output_field_path") or ""),
                {k: v for k, v in point.items() if k not in _POINT_KEYS},
            )
        )
    return tuple(points)


def _completion(raw: Any, where: _Where, cid: str, state: Mapping[str, Any]) -> dict[str, CompletionTask]:
    if raw is None:
        raise where.fail("missing 'state_completion_pack'", checkpoint=cid)
    keys = raw.get("keys") if isinstance(raw, Mapping) else None
    if not isinstance(keys, Mapping):
        raise where.fail("'state_completion_pack.keys' must be an object", checkpoint=cid)
    tasks = {}
    for key, item in keys.items():
        _check_key(key, where, cid, "state_completion_pack")
        if not isinstance(item, Mapping):
            raise where.fail("a state_completion_pack entry must be an object", checkpoint=cid, key=key)
        if key not in state:
            raise where.fail(
                "asked in state_completion_pack but absent from the snapshot state", checkpoint=cid, key=key
            )
        question, query = item.get("question_text"), item.get("retrieval_query")
        question = question if isinstance(question, str) and question.strip() else None
        query = query if isinstance(query, str) and query.strip() else None
        if question is None and query is None:
            raise where.fail("needs 'question_text' or 'retrieval_query'", checkpoint=cid, key=key)
        if "answer_template" not in item:
            raise where.fail("missing field 'answer_template'", checkpoint=cid, key=key)
        tasks[key] = CompletionTask(
            key,
            question or query,
            query or question,
            item["answer_template"],
            _points(item.get("scoring_points"), "scoring_points", where, cid, key),
            {
                k: v
                for k, v in item.items()
                if k not in {"question_text", "retrieval_query", "answer_template", "scoring_points"}
            },
        )
    return tasks


_ITEM_KEYS = {
    "qa_id",
    "service_family",
    "scenario",
    "task_instruction",
    "retrieval_query",
    "reference_answer",
    "output_template",
    "reference_output",
    "answer_scoring_points",
    "gold_memory_evidence_app_log_ids",
}


def _service(raw: Any, where: _Where, cid: str) -> dict[str, tuple[ServiceItem, ...]]:
    if raw is None:
        return {}
    keys = raw.get("keys") if isinstance(raw, Mapping) else None
    if not isinstance(keys, Mapping):
        raise where.fail("'rq3_apply_service_qa.keys' must be an object", checkpoint=cid)
    out = {}
    for key, node in keys.items():
        _check_key(key, where, cid, "rq3_apply_service_qa")
        items = node.get("items") if isinstance(node, Mapping) else None
        if not isinstance(items, list):
            raise where.fail("'rq3_apply_service_qa' entry needs a list 'items'", checkpoint=cid, key=key)
        expected_family = SERVICE_FAMILY_OF_CATEGORY[category_of(key)]
        parsed = []
        for i, item in enumerate(items):
            at = {"checkpoint": cid, "key": f"{key} item {i}"}
            if not isinstance(item, Mapping):
                raise where.fail("a service item must be an object", **at)
            family = item.get("service_family")
            if family not in SERVICE_FAMILIES:
                raise where.fail(
                    f"service_family {family!r} is not one of {', '.join(SERVICE_FAMILIES)}", **at
                )
            if family != expected_family:
                raise where.fail(
                    f"a {category_of(key)} state is served by {expected_family!r}, not {family!r}", **at
                )
            scenario = _text(item.get("scenario"), "scenario", where, **at)
            instruction = _text(item.get("task_instruction"), "task_instruction", where, **at)
            reference_answer, output_template, reference_output = None, None, None
            if family == TEXT_FAMILY:
                reference_answer = _text(item.get("reference_answer"), "reference_answer", where, **at)
            else:
                output_template, reference_output = item.get("output_template"), item.get("reference_output")
                if not isinstance(output_template, Mapping) or not isinstance(reference_output, Mapping):
                    raise where.fail(
                        "structured items need object 'output_template' and 'reference_output'", **at
                    )
            query = item.get("retrieval_query")
            if not isinstance(query, str) or not query.strip():
                query = task_body(scenario, instruction, output_template)
            parsed.append(
                ServiceItem(
                    key,
                    str(item.get("qa_id") or f"q{i + 1}"),
                    family,
                    scenario,
                    instruction,
                    query,
                    reference_answer,
                    output_template,
                    reference_output,
                    _points(item.get("answer_scoring_points"), "answer_scoring_points", where, cid, key),
                    _ids(
                        item.get("gold_memory_evidence_app_log_ids"),
                        "gold_memory_evidence_app_log_ids",
                        where,
                        **at,
                    ),
                    {k: v for k, v in item.items() if k not in _ITEM_KEYS},
                )
            )
        out[key] = tuple(parsed)
    return out


def _observability(raw: Any, where: _Where, cid: str) -> dict[str, Observability]:
    out = {}
    for key, info in _flat_section(raw, "state_observability", where, cid).items():
        if not isinstance(info, Mapping):
            raise where.fail("a state_observability entry must be an object", checkpoint=cid, key=key)
        at = {"checkpoint": cid, "key": key}
        last = info.get("last_app_log_id")
        out[key] = Observability(
            _ids(info.get("evidence_app_log_ids"), "evidence_app_log_ids", where, **at),
            str(last) if last is not None else None,
            int(info.get("evidence_count") or 0),
            {
                k: v
                for k, v in info.items()
                if k not in {"evidence_app_log_ids", "last_app_log_id", "evidence_count"}
            },
        )
    return out


def parse_task_packs(
    raw: Any, *, path: Path, user_id: str | None = None, app_logs: tuple[AppLog, ...] = ()
) -> UserData:
    """Validate the content of a ``task_packs.json`` and build the user (with ``app_logs``).

    Every evidence id must name an event of ``app_logs`` that is visible at its checkpoint (a later
    event would leak the future into the gold).

    Raises:
        DatasetError: Naming the file, user, checkpoint and state key, and the bad field.
    """
    if not isinstance(raw, Mapping):
        raise DatasetError(f"{path}: expected a JSON object with 'checkpoints', got {type(raw).__name__}")
    user_id = str(raw.get("user_id") or user_id or path.parent.name)
    where = _Where(path, user_id)
    contract = str(raw.get("task_contract_version") or TASK_CONTRACT_VERSION)
    raw_checkpoints = raw.get("checkpoints")
    if not isinstance(raw_checkpoints, list) or not raw_checkpoints:
        raise where.fail("'checkpoints' must be a non-empty list")
    position_of = {log.app_log_id: i for i, log in enumerate(app_logs)}
    checkpoints: list[Checkpoint] = []
    for number, cp in enumerate(raw_checkpoints, start=1):
        if not isinstance(cp, Mapping):
            raise where.fail(f"checkpoint #{number} must be an object")
        cid = _text(cp.get("checkpoint_id"), "checkpoint_id", where, checkpoint=f"#{number}")
        if any(c.checkpoint_id == cid for c in checkpoints):
            raise where.fail("checkpoint_id is not unique", checkpoint=cid)
        as_of = cp.get("as_of")
        if not isinstance(as_of, Mapping):
            raise where.fail("missing object 'as_of'", checkpoint=cid)
        timestamp = _timestamp(as_of.get("timestamp"), "as_of.timestamp", where, checkpoint=cid)
        if checkpoints and timestamp < checkpoints[-1].timestamp:
            raise where.fail(
                f"checkpoints are not in time order ({checkpoints[-1].timestamp} > {timestamp})",
                checkpoint=cid,
            )
        log_index = as_of.get("log_index")
        if log_index is not None and (isinstance(log_index, bool) or not isinstance(log_index, int)):
            raise where.fail(f"'as_of.log_index' must be an integer, got {log_index!r}", checkpoint=cid)
        if app_logs and log_index is not None and not 0 <= log_index < len(app_logs):
            raise where.fail(
                f"'as_of.log_index' {log_index} is outside the {len(app_logs)} events", checkpoint=cid
            )
        expected = _flat_section(cp.get("expected_snapshot_state"), "expected_snapshot_state", where, cid)
        validated = _flat_section(cp.get("validated_snapshot_state"), "validated_snapshot_state", where, cid)
        state = {**expected, **validated}
        observability = _observability(cp.get("state_observability"), where, cid)
        completion = _completion(cp.get("state_completion_pack"), where, cid, state)
        service = _service(cp.get("rq3_apply_service_qa"), where, cid)
        checkpoint = Checkpoint(
            cid,
            f"C{number}",
            timestamp,
            log_index,
            expected,
            validated or dict(expected),
            observability,
            completion,
            service,
            {
                k: v
                for k, v in cp.items()
                if k
                not in {
                    "checkpoint_id",
                    "expected_snapshot_state",
                    "validated_snapshot_state",
                    "state_observability",
                    "state_completion_pack",
                    "rq3_apply_service_qa",
                }
            },
            contract,
        )
        if app_logs:
            visible = UserData(user_id, app_logs, ()).visible_count(checkpoint)
            referenced = [(k, o.evidence_app_log_ids) for k, o in observability.items()]
            referenced += [
                (f"{k} item {i.qa_id}", i.gold_evidence_ids) for k, items in service.items() for i in items
            ]
            for key, ids in referenced:
                for log_id in ids:
                    if log_id not in position_of:
                        raise where.fail(
                            f"evidence id {log_id!r} is not an event of the stream", checkpoint=cid, key=key
                        )
                    if position_of[log_id] >= visible:
                        raise where.fail(
                            f"evidence id {log_id!r} comes after the checkpoint's last visible event",
                            checkpoint=cid,
                            key=key,
                        )
        checkpoints.append(checkpoint)
    metadata = {
        k: v
        for k, v in raw.items()
        if k not in {"checkpoints", "user_id", "task_contract_version", "research_frame_version"}
    }
    return UserData(
        user_id,
        app_logs,
        tuple(checkpoints),
        contract,
        str(raw.get("research_frame_version") or RESEARCH_FRAME_VERSION),
        metadata,
        path.parent,
    )


def is_user_folder(folder: Path) -> bool:
    """True when ``folder`` holds both files of a user."""
    return (folder / APP_LOG_FILE).is_file() and (folder / TASK_PACK_FILE).is_file()


def user_folders(root: Path | str) -> list[Path]:
    """The user folders under ``root`` (``root`` itself when it is one), sorted by name.

    Raises:
        DatasetError: ``root`` does not exist or holds no user folder.
    """
    root = Path(root)
    if not root.is_dir():
        raise DatasetError(f"{root}: no such folder of DynamicMem users")
    if is_user_folder(root):
        return [root]
    folders = sorted(p for p in root.iterdir() if p.is_dir() and is_user_folder(p))
    if not folders:
        raise DatasetError(f"{root}: no user folder with both {APP_LOG_FILE} and {TASK_PACK_FILE}")
    return folders


def load_user(folder: Path | str) -> UserData:
    """Read and validate one user folder (both files, cross-checked).

    Raises:
        DatasetError: A file is missing, not JSON, or malformed; the message names file, user,
            checkpoint and key.
    """
    folder = Path(folder)
    packs_path = folder / TASK_PACK_FILE
    packs = _read_json(packs_path)
    user_id = str(packs.get("user_id") or folder.name) if isinstance(packs, Mapping) else folder.name
    app_logs = load_app_logs(folder / APP_LOG_FILE, user_id=user_id)
    return parse_task_packs(packs, path=packs_path, user_id=user_id, app_logs=app_logs)
