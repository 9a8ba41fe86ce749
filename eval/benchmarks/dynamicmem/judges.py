"""DynamicMem's field judges: a value or a message split into fields, each judged Core + Detail.

The judges (:data:`JUDGES`): ``rule`` (:func:`rule_judge`, deterministic) and ``llm``
(:func:`llm_judge`, through the run's judge LLM); each reads a :class:`FieldsCase` and gives a row verdict
(:func:`verdict_of`). Sources: DynamicMem paper, arXiv 2606.22877; the release's
``evaluation/eval_tce.py`` holistic track.

- **Fields.** A gold value is split into fields: one per leaf path of a dict (keys sorted), while a
  list or a scalar is one field (``value`` at the root). The prediction is read at the same path. A
  ``user_communication`` item's fields are its ``answer_scoring_points`` (each judged against the
  whole message; the ``identity_gate`` point checks the message is about the right state); a
  structured item's fields are the leaves of its ``reference_output``.
- **Field score** = 0.8·core + 0.2·detail/2 with core ∈ {0, 1} and detail ∈ {0, 1, 2}.

The offline field judge (:func:`judge_field_rule`, deterministic) compares normalised text:

- Text is NFKC-normalised, lower-cased, quotes folded; tokens are words, numbers and ``h:mm`` times;
  *key tokens* are the gold's tokens minus stop words.
- An exact match of the normalised texts: core 1, detail 2.
- A clock time (gold ``HH:MM``): core iff a predicted time is within 5 minutes; detail 2 exact,
  1 within 10 minutes (the release's habit-timing rule).
- Weekdays (paths ending in ``day_of_week``/``days_of_week``; indexes 0 = Monday or names): core iff
  the Jaccard overlap of the day sets is at least 0.5; detail 2 when equal, 1 when core.
- Otherwise core iff the prediction holds at least half of the gold's key tokens (all of them when
  there is only one); detail from token F1 for a value at the same path (2 if F1 ≥ 0.8, 1 if ≥ 0.5)
  or from key-token recall for a field judged against a whole message (2 if 1.0, 1 if ≥ 0.5).
- A missing prediction, or core 0, gives detail 0. A negative-polarity point passes iff its key
  tokens are absent.

The LLM judge (:func:`llm_judge`) asks a model for the same Core + Detail labels; it takes the model
call as a callable, so any client (or a fake) plugs in.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from memsuite.eval.answer import JudgeInput
from memsuite.eval.definition import Judge
from memsuite.memory_systems.errors import ConfigError

CORE_WEIGHT = 0.8
DETAIL_WEIGHT = 0.2

_FOLD = str.maketrans({"‘": "'", "’": "'", "“": '"', "”": '"', "–": "-", "—": "-"})
_TOKEN = re.compile(r"\d{1,2}:\d{2}|[a-z0-9]+")
_TIME = re.compile(r"\b(\d{1,2}):(\d{2})(?::\d{2})?\s*(a\.?m\.?|p\.?m\.?)?", re.IGNORECASE)
_STOP = frozenset(
    {
        "a",
        "an",
        "the",
        "of",
        "and",
        "or",
        "to",
        "in",
        "on",
        "at",
        "for",
        "with",
        "by",
        "from",
        "over",
        "than",
        "is",
        "are",
        "was",
        "be",
        "as",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "user",
        "users",
        "their",
        "his",
        "her",
        "s",
        "per",
        "into",
        "about",
        "more",
        "most",
    }
)
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


# -- records -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Field:
    """One scoreable unit of a gold value."""

    path: str
    """Dotted path in the value (``value`` for the root), or the point's path for message fields."""
    gold: Any
    """Gold value of the field."""
    predicted: Any
    """Predicted value at the same path, or the whole message for a message field (None if absent)."""
    criterion: str = ""
    """What the field requires, in words (the scoring point's text), for the LLM judge."""
    identity_gate: bool = False
    """A failed gate zeroes its item."""
    message: bool = False
    """True when ``predicted`` is a whole message rather than a value at the same path."""
    negative: bool = False
    """A negative-polarity point: the message must not contain the gold."""


@dataclass(frozen=True)
class FieldJudgment:
    """A judge's verdict on one field."""

    path: str
    core: int
    """1 when the prediction captures the field's central meaning, else 0."""
    detail: int
    """0 (missing or wrong), 1 (partial or imprecise), 2 (complete and accurate)."""
    analysis: str = ""
    identity_gate: bool = False

    @property
    def score(self) -> float:
        """0.8·core + 0.2·detail/2."""
        return CORE_WEIGHT * self.core + DETAIL_WEIGHT * self.detail / 2

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "score": self.score}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> FieldJudgment:
        return cls(
            str(data["path"]),
            int(data["core"]),
            int(data["detail"]),
            str(data.get("analysis") or ""),
            bool(data.get("identity_gate")),
        )


#: A judge: fields (and context for its prompt) -> one judgment per field, or None when it failed.
FieldJudge = Callable[[Sequence[Field], Mapping[str, Any]], "list[FieldJudgment] | None"]


# -- fields --------------------------------------------------------------------------------------------


def value_at(value: Any, path: str) -> Any:
    """The part of ``value`` at a dotted ``path`` (``value``/``current_value``: all of it), or None."""
    if path in ("value", "current_value", ""):
        return value
    current = value
    for part in path.split("."):
        if isinstance(current, Mapping) and part in current:
            current = current[part]
        elif isinstance(current, list) and part.isdigit() and int(part) < len(current):
            current = current[int(part)]
        else:
            return None
    return current


def value_fields(gold: Any, predicted: Any) -> list[Field]:
    """One field per leaf path of ``gold`` (dict keys sorted); a list or scalar is one field."""
    fields: list[Field] = []

    def visit(node: Any, path: str) -> None:
        if isinstance(node, Mapping) and node:
            for key in sorted(node, key=str):
                visit(node[key], f"{path}.{key}" if path else str(key))
            return
        fields.append(Field(path or "value", node, value_at(predicted, path or "value")))

    visit(gold, "")
    return fields


def _point(point: Any) -> dict[str, Any]:
    return point.to_dict() if hasattr(point, "to_dict") else dict(point)


def service_fields(
    family: str,
    reference: Any,
    points: Sequence[Any],
    predicted: Any,
    *,
    text_family: str = "user_communication",
) -> list[Field]:
    """The fields of a service item.

    Args:
        family: The item's service family.
        reference: ``reference_answer`` (text family) or ``reference_output``.
        points: The item's ``answer_scoring_points`` (records or dicts).
        predicted: The predicted message or output object.
        text_family: The family answered in free text.

    Returns:
        For the text family, one message field per scoring point (or one field for the whole
        reference when there are none); otherwise the leaf fields of ``reference``.
    """
    if family != text_family:
        if isinstance(reference, Mapping):
            return value_fields(reference, predicted)
        return [Field("value", reference, predicted)]
    message = (
        predicted
        if isinstance(predicted, str)
        else (json.dumps(predicted) if predicted is not None else None)
    )
    fields = []
    for raw in points:
        point = _point(raw)
        gate = str(point.get("point_role") or "").strip().lower() == "identity_gate"
        path = (
            "identity_gate"
            if gate
            else str(point.get("source_field_path") or point.get("target_path") or point.get("point_id"))
        )
        gold = point.get("reference_value")
        if gold is None:
            gold = point.get("point_text", "")
        fields.append(
            Field(
                path,
                gold,
                message,
                str(point.get("point_text") or ""),
                identity_gate=gate,
                message=True,
                negative=str(point.get("polarity") or "").lower() == "negative",
            )
        )
    return fields or [Field("value", reference, message, message=True)]


# -- text normalisation --------------------------------------------------------------------------------


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, Mapping):
        return [leaf for key in sorted(value, key=str) for leaf in _leaves(value[key])]
    if isinstance(value, list | tuple):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]


def normalize_text(value: Any) -> str:
    """The comparable text of a value: leaves joined, NFKC, lower case, quotes folded, spaces collapsed."""
    parts = []
    for leaf in _leaves(value):
        if leaf is None:
            continue
        parts.append(str(leaf))
    text = unicodedata.normalize("NFKC", " ".join(parts)).translate(_FOLD).lower()
    return " ".join(text.split())


def tokens(value: Any) -> list[str]:
    """Word, number and ``h:mm`` tokens of :func:`normalize_text`."""
    return _TOKEN.findall(normalize_text(value))


def _key_tokens(value: Any) -> list[str]:
    all_tokens = tokens(value)
    key = [t for t in all_tokens if t not in _STOP]
    return key or all_tokens


def _f1(gold: list[str], predicted: list[str]) -> float:
    if not gold and not predicted:
        return 1.0
    if not gold or not predicted:
        return 0.0
    counts: dict[str, int] = defaultdict(int)
    for t in gold:
        counts[t] += 1
    common = 0
    for t in predicted:
        if counts[t] > 0:
            common += 1
            counts[t] -= 1
    if common == 0:
        return 0.0
    precision, recall = common / len(predicted), common / len(gold)
    return 2 * precision * recall / (precision + recall)


def _minutes(value: Any) -> list[int]:
    out = []
    for match in _TIME.finditer(normalize_text(value)):
        hours, minutes = int(match.group(1)), int(match.group(2))
        suffix = (match.group(3) or "").replace(".", "")
        if suffix == "pm" and hours < 12:
            hours += 12
        elif suffix == "am" and hours == 12:
            hours = 0
        if hours < 24 and minutes < 60:
            out.append(hours * 60 + minutes)
    return out


def _weekdays(value: Any) -> set[int] | None:
    days: set[int] = set()
    for leaf in _leaves(value):
        if isinstance(leaf, bool):
            continue
        if isinstance(leaf, int) and 0 <= leaf <= 6:
            days.add(leaf)
            continue
        text = normalize_text(leaf)
        if text.isdigit() and 0 <= int(text) <= 6:
            days.add(int(text))
            continue
        for i, name in enumerate(_WEEKDAYS):
            if re.search(rf"\b{name[:3]}(?:{name[3:]})?s?\b", text):
                days.add(i)
    return days or None


def _missing(value: Any) -> bool:
    return (
        value is None
        or (isinstance(value, str | list | dict) and not value)
        or normalize_text(value) in ("", "<fill the blank>")
    )


# -- judges --------------------------------------------------------------------------------------------


def judge_field_rule(field: Field) -> FieldJudgment:
    """The offline deterministic Core + Detail judgment of one field (rules in the module docstring)."""

    def verdict(core: bool, detail: int, why: str) -> FieldJudgment:
        return FieldJudgment(field.path, int(core), detail if core else 0, why, field.identity_gate)

    if field.negative:
        present = _recall(field.gold, field.predicted) >= 0.5 if not _missing(field.predicted) else False
        return verdict(
            not present, 2, "negative point: the forbidden content is " + ("present" if present else "absent")
        )
    if _missing(field.predicted):
        return verdict(False, 0, "no prediction")
    if normalize_text(field.gold) == normalize_text(field.predicted):
        return verdict(True, 2, "exact match after normalisation")
    gold_text = normalize_text(field.gold)
    if re.fullmatch(r"\d{1,2}:\d{2}", gold_text):
        gold_minutes = _minutes(gold_text)[0]
        offsets = [abs(m - gold_minutes) for m in _minutes(field.predicted)]
        if offsets:
            best = min(offsets)
            return verdict(
                best <= 5, 2 if best == 0 else 1 if best <= 10 else 0, f"closest time is {best} min off"
            )
        return verdict(False, 0, "no clock time in the prediction")
    if field.path.split(".")[-1] in ("day_of_week", "days_of_week"):
        gold_days, predicted_days = _weekdays(field.gold), _weekdays(field.predicted)
        if gold_days is not None:
            if predicted_days is None:
                return verdict(False, 0, "no weekday in the prediction")
            jaccard = len(gold_days & predicted_days) / len(gold_days | predicted_days)
            return verdict(
                jaccard >= 0.5, 2 if gold_days == predicted_days else 1, f"weekday overlap {jaccard:.2f}"
            )
    key = _key_tokens(field.gold)
    recall = _recall(field.gold, field.predicted)
    core = recall >= 0.5 if len(set(key)) >= 2 else recall == 1.0
    if field.message:
        detail = 2 if recall == 1.0 else 1 if recall >= 0.5 else 0
        return verdict(core, detail, f"key-token recall {recall:.2f} in the message")
    f1 = _f1(tokens(field.gold), tokens(field.predicted))
    detail = 2 if f1 >= 0.8 else 1 if f1 >= 0.5 else 0
    return verdict(core, detail, f"key-token recall {recall:.2f}, token F1 {f1:.2f}")


def _recall(gold: Any, predicted: Any) -> float:
    key = set(_key_tokens(gold))
    if not key:
        return 1.0
    return len(key & set(tokens(predicted))) / len(key)


def rule_judge(fields: Sequence[Field], context: Mapping[str, Any] | None = None) -> list[FieldJudgment]:
    """:func:`judge_field_rule` on every field (``context`` is unused; it keeps the judge signature)."""
    return [judge_field_rule(f) for f in fields]


LLM_JUDGE_PROMPT = """You grade a memory-based assistant's answer against a reference, one field at a time.

For every field in `fields_to_judge`:
- First find the field's core: the central meaning that must be present for the answer to be
  practically right (for a routine: which days and roughly what time and place; for a preference:
  what is preferred or avoided; for an attribute: the fact itself).
- `core_correct`: true when the prediction captures that core, even with details missing; false when
  it is missing, contradicts the reference, names a different value, or is too vague.
- `detail_quality`: 2 when the supporting specifics (exact time, names, qualifiers, exclusions) are
  complete and accurate, 1 when some are missing or slightly off, 0 when they are mostly missing or
  wrong. Normally 0 when the core is wrong.
- A field with path `identity_gate` asks whether the answer is about the right routine or state at all.
- Wording, key names, order and formatting do not matter when the meaning is the same.
Write `analysis` before the labels. Return every field path exactly once.

Reply with JSON only:
{"field_judgments": [{"field_path": "...", "analysis": "...", "core_correct": true, "detail_quality": 2}]}"""


def _json_safe(value: Any) -> Any:
    try:
        json.dumps(value)
        return value
    except (TypeError, ValueError):
        return str(value)


def judge_messages(fields: Sequence[Field], context: Mapping[str, Any]) -> list[dict[str, str]]:
    """The chat messages :func:`llm_judge` sends for one item."""
    payload = {
        **{k: _json_safe(v) for k, v in context.items()},
        "fields_to_judge": [
            {
                "field_path": f.path,
                "reference_value": _json_safe(f.gold),
                "predicted_value": _json_safe(f.predicted),
                **({"criterion": f.criterion} if f.criterion else {}),
            }
            for f in fields
        ],
    }
    return [
        {"role": "system", "content": LLM_JUDGE_PROMPT},
        {"role": "user", "content": json.dumps(payload, ensure_ascii=False, indent=2)},
    ]


def parse_judgments(data: Any, fields: Sequence[Field]) -> list[FieldJudgment]:
    """Judgments from an LLM judge's JSON; a field it left out gets core 0, detail 0 (the release's rule)."""
    by_path: dict[str, Mapping[str, Any]] = {}
    items = data.get("field_judgments") if isinstance(data, Mapping) else None
    for item in items if isinstance(items, list) else []:
        if isinstance(item, Mapping) and str(item.get("field_path") or "").strip():
            by_path.setdefault(str(item["field_path"]).strip(), item)
    out = []
    for f in fields:
        item = by_path.get(f.path)
        if item is None:
            out.append(FieldJudgment(f.path, 0, 0, "missing from judge output", f.identity_gate))
            continue
        raw_core = item.get("core_correct")
        core = (
            raw_core if isinstance(raw_core, bool) else str(raw_core).strip().lower() in {"true", "1", "yes"}
        )
        try:
            detail = max(0, min(2, int(item.get("detail_quality"))))
        except (TypeError, ValueError):
            detail = 0
        out.append(FieldJudgment(f.path, int(core), detail, str(item.get("analysis") or ""), f.identity_gate))
    return out


def llm_judge(call: Callable[[list[dict[str, str]]], Any]) -> FieldJudge:
    """An LLM Core + Detail judge over ``call``.

    Args:
        call: Sends chat messages and returns the parsed JSON reply, or None when the call failed
            (e.g. ``lambda m: r.data if (r := client.chat_json(m, phase="judge")).ok else None``).

    Returns:
        A judge that makes one call per item (all of its fields at once) and returns None when the
        call failed, so the caller can record the failure instead of scoring it.
    """

    def judge(fields: Sequence[Field], context: Mapping[str, Any]) -> list[FieldJudgment] | None:
        data = call(judge_messages(fields, context))
        return None if data is None else parse_judgments(data, fields)

    return judge


# -- verdicts -------------------------------------------------------------------------------------------


def item_score(judgments: Sequence[FieldJudgment]) -> float | None:
    """Mean field score, 0 when an identity-gate field has core 0 (gates themselves are not averaged)."""
    gates = [j for j in judgments if j.identity_gate]
    if gates and not all(j.core for j in gates):
        return 0.0
    regular = [j.score for j in judgments if not j.identity_gate]
    if regular:
        return sum(regular) / len(regular)
    return 1.0 if gates else None


def verdict_of(judgments: Sequence[FieldJudgment]) -> dict[str, Any]:
    """A row verdict: ``correct`` (every core right), ``score`` (:func:`item_score`) and the fields."""
    return {
        "correct": bool(judgments) and all(j.core for j in judgments),
        "score": item_score(judgments),
        "fields": [j.to_dict() for j in judgments],
    }


def token_f1(gold: Any, predicted: Any) -> float:
    """Token F1 of the leaves of two values (the release's value-F1 diagnostic)."""
    return (
        _f1(tokens(gold), tokens(predicted)) if not _missing(predicted) else (1.0 if _missing(gold) else 0.0)
    )


def _canonical(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _canonical(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_canonical(v) for v in value]
    if isinstance(value, str):
        return normalize_text(value)
    return value


def exact_match(gold: Any, predicted: Any) -> float:
    """1.0 when the values are equal after normalising every string, else 0.0."""
    return float(_canonical(gold) == _canonical(predicted))


@dataclass(frozen=True)
class FieldsCase:
    """What DynamicMem's judges need of one key or item: its fields given a predicted value."""

    fields: Callable[[Any], list[Field]]
    """Predicted value -> the fields to judge (gold and prediction side by side)."""
    context: dict[str, Any]
    """Task description shown to the LLM judge."""


def _fields_verdict(field_judge: FieldJudge, inp: JudgeInput) -> dict[str, Any]:
    case: FieldsCase = inp.case
    judgments = field_judge(case.fields(inp.answer.data.value), case.context)
    if judgments is None:  # the judge call failed: the shared step adds its kind
        return {"correct": None, "score": None, "fields": None}
    return verdict_of(judgments)


def _llm_fields_judge(inp: JudgeInput) -> dict[str, Any]:
    if inp.llm is None:
        raise ConfigError("the dynamicmem llm judge needs judge_llm (or answer_llm) in the config")

    def call(messages: list[dict[str, str]]) -> Any:
        result = inp.llm.chat_json(messages, phase="judge")
        return result.data if result.ok else None

    return _fields_verdict(llm_judge(call), inp)


#: The judges by name, each with what it needs from a run.
JUDGES = {
    "rule": Judge(lambda inp: _fields_verdict(rule_judge, inp), needs=("answer",)),
    "llm": Judge(_llm_fields_judge, needs=("answer", "llm")),
}
