"""DynamicMem scoring on hand-worked rows: evidence precision / recall, curves and summaries."""

from __future__ import annotations

import pytest

from memsuite.eval.benchmarks.dynamicmem import judges, scoring
from memsuite.eval.benchmarks.dynamicmem.judges import FieldJudgment
from memsuite.eval.protocol import Row


def test_evidence_prf_and_release_conventions():
    prf = scoring.evidence_prf(["a", "b", "c", "d"], ["a", "b", "x"])
    assert prf["precision"] == pytest.approx(2 / 3) and prf["recall"] == pytest.approx(0.5)
    assert prf["f1"] == pytest.approx(4 / 7) and prf["exact"] == 0.0
    assert scoring.evidence_prf([], [])["recall"] == 1.0 and scoring.evidence_prf([], [])["precision"] == 1.0
    assert scoring.evidence_prf([], ["x"]) == {"precision": 0.0, "recall": 0.0, "f1": 0.0, "exact": 0.0}
    assert scoring.evidence_prf(["a"], []) == {"precision": 0.0, "recall": 0.0, "f1": 0.0, "exact": 0.0}


def _row(
    unit, checkpoint, key, task, scores=None, change="new", category="habits", retrieved=(), gold_ids=()
):
    verdicts = {}
    if scores is not None:
        judgments = [
            FieldJudgment(f"f{i}", 1 if s >= 0.8 else 0, {1.0: 2, 0.9: 1, 0.8: 0, 0.0: 0}[s])
            for i, s in enumerate(scores)
        ]
        verdicts["rule"] = judges.verdict_of(judgments)
    return Row(
        "bm25",
        "dynamicmem",
        unit,
        f"{checkpoint}/{key}",
        "q",
        "gold",
        "ctx",
        "answer" if scores is not None else None,
        verdicts,
        {},
        {
            "task": task,
            "checkpoint": checkpoint,
            "state_key": key,
            "category": category,
            "change": change,
            "retrieved_app_log_ids": list(retrieved),
            "gold_evidence_ids": list(gold_ids),
            **({"prediction": "answer"} if scores is not None else {}),
        },
    )


def test_summarize_hand_worked_curves_splits_and_user_averaging():
    sc, ps = scoring.STATE_COMPLETION, scoring.PERSONALIZED_SERVICE
    rows = [
        _row("u1", "C1", "k1", sc, [1.0, 0.8], retrieved=["a", "b"], gold_ids=["a", "c"]),
        _row("u1", "C1", "k2", sc, [0.0], category="preferences", gold_ids=["d"]),
        _row("u1", "C1", "k1", ps, [0.9]),
        _row("u1", "C2", "k1", sc, [1.0, 1.0], change="retained"),
        _row("u1", "C2", "k2", sc, [0.8], change="updated", category="preferences"),
        _row("u2", "C1", "k1", sc, [0.0], gold_ids=["z"]),
    ]
    summary = scoring.summarize(rows)
    assert summary["checkpoints"] == ["C1", "C2"] and summary["users"] == 2
    curves = summary["curves"]
    # C1: u1 pools fields (1.0 + 0.8 + 0.0) / 3 = 0.6, u2 = 0.0 -> mean over users 0.3; C2: u1 only
    assert curves["state_completion"] == pytest.approx([0.3, (1.0 + 1.0 + 0.8) / 3])
    assert curves["state_completion_by_key"][0] == pytest.approx((0.45 + 0.0) / 2)
    assert curves["personalized_service"] == [pytest.approx(0.9), None]
    assert curves["evidence_recall"][0] == pytest.approx(((0.5 + 0.0) / 2 + 0.0) / 2)
    assert summary["retained"]["state_completion"] == [None, pytest.approx(1.0)]
    assert summary["updated"]["state_completion"] == [None, pytest.approx(0.8)]
    assert summary["by_category"]["preferences"]["state_completion"] == [
        pytest.approx(0.0),
        pytest.approx(0.8),
    ]
    assert summary["overall"]["state_completion"] == pytest.approx((0.3 + 2.8 / 3) / 2)


def test_retrieval_only_rows_give_evidence_but_no_state_completion():
    rows = [_row("u1", "C1", "k1", scoring.STATE_COMPLETION, None, retrieved=["a"], gold_ids=["a", "b"])]
    summary = scoring.summarize(rows)
    assert "state_completion" not in summary["curves"]
    assert summary["curves"]["evidence_recall"] == [pytest.approx(0.5)]
    assert summary["curves"]["evidence_precision"] == [pytest.approx(1.0)]
    assert summary["counts"]["answered"] == 0


def test_retrieved_evidence_f1_does_not_apply_to_hits_without_event_ids():
    def row(retrieved, hits):
        meta = {"task": scoring.STATE_COMPLETION, "checkpoint": "C1", "gold_evidence_ids": ["log_1"],
                "retrieved_app_log_ids": retrieved}  # fmt: skip
        return Row("sys", "dynamicmem", "u1", "k", "?", "v", "", usage={"hits": hits}, metadata=meta)

    assert scoring.key_outcome(row(["log_1"], 1), scoring.EVIDENCE_F1) == 1.0
    assert scoring.key_outcome(row([], 0), scoring.EVIDENCE_F1) == 0.0  # nothing retrieved: a miss
    assert scoring.key_outcome(row([], 3), scoring.EVIDENCE_F1) is None  # facts without event ids: no F1


def test_a_memory_that_keeps_no_events_has_no_retrieved_evidence_curve():
    def row(retrieved, hits, checkpoint):
        meta = {"task": scoring.STATE_COMPLETION, "checkpoint": checkpoint, "gold_evidence_ids": ["log_1"],
                "retrieved_app_log_ids": retrieved, "change": "new"}  # fmt: skip
        return Row("sys", "dynamicmem", "u1", "k", "?", "v", "", usage={"hits": hits}, metadata=meta)

    facts = scoring.summarize([row([], 2, "C1"), row([], 0, "C2")])
    assert facts["curves"].get("evidence_f1") is None
    events = scoring.summarize([row(["log_1"], 2, "C1"), row([], 0, "C2")])
    assert events["curves"]["evidence_f1"] == [1.0, 0.0]  # nothing retrieved at C2: a miss
