"""DynamicMem scores from rows: the two task scores and their diagnostics.

Pure functions (DynamicMem paper, arXiv 2606.22877; the release's ``evaluation/eval_tce.py`` holistic track):

- **State Completion** of a checkpoint = mean over all fields of all asked keys;
  **Personalized Service** = mean over items, an item being the mean of its fields, or 0 when an
  identity-gate field fails.
- **Diagnostics**: value token F1 and exact match of the predicted value; evidence precision / recall
  / F1 by ``app_log_id`` against the gold evidence ids -- of the retrieved events (needs no answer
  model, so a retrieval-only run has it) and of the ids the answer cites. Retention vs update: the
  same scores split by whether a key's gold changed since the previous checkpoint (``retained``,
  ``updated``, or ``new`` when the key was not asked before).

The field-level Core + Detail verdicts these are built from are :mod:`.judges`'.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from memsuite.eval.analysis.metrics import mean
from memsuite.eval.answer import failed
from memsuite.eval.benchmarks.dynamicmem.judges import exact_match, token_f1
from memsuite.eval.protocol import Row

#: Row ``metadata["task"]`` values.
STATE_COMPLETION = "state_completion"
PERSONALIZED_SERVICE = "personalized_service"
#: Row ``metadata["change"]`` values.
CHANGE_LABELS = ("retained", "updated", "new")


def evidence_prf(gold_ids: Iterable[str], predicted_ids: Iterable[str]) -> dict[str, float]:
    """Set precision, recall, F1 and exactness of predicted evidence ids (the release's conventions:
    an empty gold set has recall 1 only for an empty prediction; an empty prediction has precision 1
    only for an empty gold set)."""
    gold = {str(i) for i in gold_ids if str(i).strip()}
    pred = {str(i) for i in predicted_ids if str(i).strip()}
    recall = (1.0 if not pred else 0.0) if not gold else len(gold & pred) / len(gold)
    precision = (1.0 if not gold else 0.0) if not pred else len(gold & pred) / len(pred)
    f1 = 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)
    return {"precision": precision, "recall": recall, "f1": f1, "exact": float(gold == pred)}


def _checkpoint_order(label: str) -> tuple[int, str]:
    """C1 < C2 < ... < C10; anything else after them."""
    return (int(label[1:]), "") if label[1:].isdigit() else (10**9, label)


def _field_scores(row: Row, judge: str) -> list[float] | None:
    verdict = row.verdicts.get(judge)
    if not isinstance(verdict, Mapping) or verdict.get("fields") is None:
        return None
    return [float(f["score"]) for f in verdict["fields"]]


def _row_metrics(row: Row, judge: str, keeps_events: bool = True) -> dict[str, Any]:
    """Every per-row quantity the summary averages (None where it does not apply). ``keeps_events``:
    whether the system's hits carry event ids at all; a memory of extracted facts keeps none, and the
    retrieved events' evidence metrics do not apply to it (rather than being 0)."""
    md = row.metadata
    gold_ids = md.get("gold_evidence_ids") or []
    out: dict[str, Any] = {}
    if keeps_events:
        for name, value in evidence_prf(gold_ids, md.get("retrieved_app_log_ids") or []).items():
            out[f"evidence_{name}"] = value
    # An answer was given when the row has a "prediction" key and the call did not fail: a failed call
    # is left out of every answer metric (eval/answer.py), never scored 0.
    answered = "prediction" in md and not md.get("answer_failure")
    if answered and md.get("predicted_evidence_ids") is not None:
        for name, value in evidence_prf(gold_ids, md["predicted_evidence_ids"]).items():
            out[f"answer_evidence_{name}"] = value
    verdict = row.verdicts.get(judge)
    score = verdict.get("score") if isinstance(verdict, Mapping) else None
    out["score"] = float(score) if score is not None else None
    out["fields"] = _field_scores(row, judge)
    if md.get("task") == STATE_COMPLETION and answered:
        out["value_f1"] = token_f1(row.gold, md.get("prediction"))
        out["exact_match"] = exact_match(row.gold, md.get("prediction"))
    return out


#: The pseudo-judge of a comparison on retrieval: the Evidence F1 of a state key's retrieved events.
EVIDENCE_F1 = "evidence_f1"


def key_outcome(row: Row, judge: str) -> float | None:
    """A State Completion key's value, for paired comparisons: the mean of its field scores under
    ``judge`` (``evidence_f1``: the F1 of its retrieved events); None for other rows and for keys
    left out (no answer, a failed call)."""
    if row.metadata.get("task") != STATE_COMPLETION:
        return None
    # One row alone: hits without any event id are a memory that keeps none.
    keeps_events = bool(row.metadata.get("retrieved_app_log_ids")) or not row.usage.get("hits")
    metrics = _row_metrics(row, "rule" if judge == EVIDENCE_F1 else judge, keeps_events)
    if judge == EVIDENCE_F1:
        return metrics.get("evidence_f1")
    fields = metrics["fields"]
    return sum(fields) / len(fields) if fields else None


_ITEM_METRICS = (
    "evidence_precision",
    "evidence_recall",
    "evidence_f1",
    "answer_evidence_precision",
    "answer_evidence_recall",
    "answer_evidence_f1",
    "value_f1",
    "exact_match",
)


def keeps_events(rows: Iterable[Row]) -> bool:
    """Whether a system's hits carry event ids (any row retrieved one): a memory of extracted facts
    keeps none."""
    return any(row.metadata.get("retrieved_app_log_ids") for row in rows)


def user_values(
    rows: Iterable[Row], judge: str, events: bool = True
) -> dict[tuple[str, str], dict[str, list[float]]]:
    """(checkpoint, user) -> metric -> the values a curve averages within that user (fields, items);
    ``events``: :func:`keeps_events` of the system's rows (without, no retrieved-evidence metric)."""
    per_user: dict[tuple[str, str], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        key = (row.metadata.get("checkpoint", "?"), row.unit_id)
        metrics = _row_metrics(row, judge, events)
        task = row.metadata.get("task")
        if task == STATE_COMPLETION:
            if metrics["fields"] is not None:
                per_user[key]["state_completion"].extend(metrics["fields"])
                if metrics["score"] is not None:
                    per_user[key]["state_completion_by_key"].append(metrics["score"])
            prefix = ""
        else:
            if metrics["score"] is not None:
                per_user[key]["personalized_service"].append(metrics["score"])
            prefix = "service_"
        for name in _ITEM_METRICS:
            if metrics.get(name) is not None:
                per_user[key][prefix + name].append(metrics[name])
    return per_user


def _curves(rows: list[Row], labels: list[str], judge: str, events: bool) -> dict[str, list[float | None]]:
    """Per checkpoint: each metric averaged within a user, then over users (each user weighs the same)."""
    per_user = user_values(rows, judge, events)
    names = sorted({name for values in per_user.values() for name in values})
    curves: dict[str, list[float | None]] = {}
    for name in names:
        curve = []
        for label in labels:
            user_means = [mean(v[name]) for (cp, _), v in per_user.items() if cp == label and v.get(name)]
            curve.append(mean(user_means))
        curves[name] = curve
    return curves


def summarize(rows: Iterable[Row], judge: str = "rule") -> dict[str, Any]:
    """DynamicMem scores of one system's rows: per-checkpoint C1..Cn curves and their splits.

    Args:
        rows: Rows written by the DynamicMem protocol (``metadata``: task, checkpoint, category,
            change, retrieved/gold/predicted evidence ids, prediction).
        judge: Whose field verdicts to score ("rule" or "llm").

    Returns:
        ``{"judge", "checkpoints": ["C1", ...], "users", "curves": {metric: [value per checkpoint]},
        "overall": {metric: mean over checkpoints}, "retained" / "updated" / "new": {metric: curve},
        "by_category": {category: {metric: curve}}, "counts": {...}}``. Metrics: ``state_completion``
        (mean over fields), ``state_completion_by_key`` (mean of per-key scores, the release's
        aggregation), ``personalized_service``, ``value_f1``, ``exact_match``, ``evidence_*`` of the
        retrieved events and ``answer_evidence_*`` of the cited ones, and the ``service_`` versions
        of the evidence metrics. A value is None where nothing was scored (e.g. a retrieval-only
        run has no State Completion). Rows whose answer or judge call failed are left out of the
        answer metrics and counted: ``n_failed`` (per checkpoint) and ``counts.n_failed``.
    """
    rows = list(rows)
    labels = sorted({r.metadata.get("checkpoint", "?") for r in rows}, key=_checkpoint_order)
    events = keeps_events(rows)
    curves = _curves(rows, labels, judge, events)
    splits = {
        label: _curves([r for r in rows if r.metadata.get("change") == label], labels, judge, events)
        for label in CHANGE_LABELS
    }
    categories = sorted({r.metadata.get("category") for r in rows if r.metadata.get("category")})
    by_category = {
        c: _curves([r for r in rows if r.metadata.get("category") == c], labels, judge, events)
        for c in categories
    }
    answer_failures = sum(1 for r in rows if r.metadata.get("answer_failure"))
    left_out = [r for r in rows if failed(r, judge)]
    n_failed = [sum(1 for r in left_out if r.metadata.get("checkpoint", "?") == cp) for cp in labels]
    judge_failures = sum(
        1 for r in rows if isinstance(r.verdicts.get(judge), Mapping) and r.verdicts[judge].get("failure")
    )
    return {
        "judge": judge,
        "checkpoints": labels,
        "users": len({r.unit_id for r in rows}),
        "curves": curves,
        "overall": {name: mean(v for v in curve if v is not None) for name, curve in curves.items()},
        **splits,
        "by_category": by_category,
        "counts": {
            "rows": len(rows),
            "state_completion_keys": sum(1 for r in rows if r.metadata.get("task") == STATE_COMPLETION),
            "service_items": sum(1 for r in rows if r.metadata.get("task") == PERSONALIZED_SERVICE),
            "answered": sum(1 for r in rows if r.answer is not None),
            "answer_failures": answer_failures,
            "judge_failures": judge_failures,
            "n_failed": len(left_out),
        },
        "n_failed": n_failed,
    }
