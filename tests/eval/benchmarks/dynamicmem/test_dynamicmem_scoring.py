"""DynamicMem scoring on hand-worked values: fields, the rule judge, identity gates, evidence, summaries."""

from __future__ import annotations

import pytest

from memsuite.eval.benchmarks.dynamicmem import scoring
from memsuite.eval.benchmarks.dynamicmem.scoring import Field, FieldJudgment
from memsuite.eval.protocol import Row

RUN = {
    "schedule": {"frequency_type": "weekly", "days_of_week": [0, 2, 4]},
    "timing": {"start_time": "06:30"},
    "location": "Harrowmere Park loop",
}


def test_value_fields_are_sorted_leaf_paths_and_lists_stay_whole():
    predicted = {"timing": {"start_time": "06:33"}, "schedule": {"days_of_week": "Mon"}}
    fields = scoring.value_fields(RUN, predicted)
    assert [f.path for f in fields] == [
        "location",
        "schedule.days_of_week",
        "schedule.frequency_type",
        "timing.start_time",
    ]
    assert fields[1].gold == [0, 2, 4] and fields[1].predicted == "Mon"
    assert fields[0].predicted is None  # missing at the same path
    assert [f.path for f in scoring.value_fields("bicycling", "walking")] == ["value"]
    assert scoring.value_fields(["a", "b"], ["a"])[0].gold == ["a", "b"]


def test_field_score_is_core_plus_detail():
    assert FieldJudgment("x", 1, 2).score == pytest.approx(1.0)
    assert FieldJudgment("x", 1, 1).score == pytest.approx(0.9)
    assert FieldJudgment("x", 1, 0).score == pytest.approx(0.8)
    assert FieldJudgment("x", 0, 2).score == pytest.approx(0.2)
    assert FieldJudgment("x", 0, 0).score == 0.0


def test_rule_judge_on_a_habit_hand_worked():
    predicted = {
        "schedule": {"frequency_type": "Weekly", "days_of_week": "Monday and Wednesday"},
        "timing": {"start_time": "06:33"},
        "location": "the Harrowmere Park",
    }
    judged = {j.path: (j.core, j.detail) for j in scoring.rule_judge(scoring.value_fields(RUN, predicted))}
    # location: key-token recall 2/3 (core); token F1 2/3 -> detail 1
    # days: Jaccard {0,2} vs {0,2,4} = 2/3 (core), not equal -> detail 1
    # frequency: equal after normalisation -> 1, 2; start time 3 minutes off -> core, detail 1
    assert judged == {
        "location": (1, 1),
        "schedule.days_of_week": (1, 1),
        "schedule.frequency_type": (1, 2),
        "timing.start_time": (1, 1),
    }
    judgments = scoring.rule_judge(scoring.value_fields(RUN, predicted))
    assert scoring.item_score(judgments) == pytest.approx((0.9 + 0.9 + 1.0 + 0.9) / 4)


@pytest.mark.parametrize(
    ("gold", "predicted", "expected"),
    [
        ("06:30", "6:30 am", (1, 2)),
        ("18:30", "6:30 pm", (1, 2)),
        ("06:30", "06:38", (0, 0)),  # more than 5 minutes: wrong core
        ("Product Manager", "product manager", (1, 2)),
        ("Product Manager", "Senior Product Manager at Corvane", (1, 1)),  # F1 4/7
        ("Product Manager", "Manager", (1, 1)),  # half of the key tokens
        ("Product Manager", "Engineer", (0, 0)),
        ("bicycling", "cycling", (0, 0)),  # one key token: all of it is needed
        ("Pellastone", None, (0, 0)),
        ("Pellastone", "<fill the blank>", (0, 0)),
    ],
)
def test_rule_judge_cases(gold, predicted, expected):
    judgment = scoring.judge_field_rule(Field("value", gold, predicted))
    assert (judgment.core, judgment.detail) == expected


def test_weekday_names_and_indexes_compare_as_sets():
    field = Field("schedule.days_of_week", [1, 3], "Tuesdays and Thursdays")
    assert (scoring.judge_field_rule(field).core, scoring.judge_field_rule(field).detail) == (1, 2)
    assert scoring.judge_field_rule(Field("schedule.days_of_week", [1, 3], [5])).core == 0


def test_identity_gate_zeroes_the_item():
    points = [
        {
            "point_id": "g",
            "point_role": "identity_gate",
            "reference_value": "run",
            "point_text": "about the run",
        },
        {"point_id": "p1", "source_field_path": "timing.start_time", "reference_value": "06:30"},
        {"point_id": "p2", "source_field_path": "location", "reference_value": "Harrowmere Park loop"},
    ]
    wrong_routine = "Reminder: your swim is at 06:30 at Harrowmere Park loop."
    fields = scoring.service_fields("user_communication", "ref", points, wrong_routine)
    assert [f.path for f in fields] == ["identity_gate", "timing.start_time", "location"]
    assert all(f.message for f in fields)
    assert scoring.item_score(scoring.rule_judge(fields)) == 0.0
    right = "Your run starts at 06:30 at Harrowmere Park."
    judgments = scoring.rule_judge(scoring.service_fields("user_communication", "ref", points, right))
    # gate passes and is not averaged; time exact (1.0); location recall 2/3 in a message -> 0.9
    assert scoring.item_score(judgments) == pytest.approx(0.95)
    verdict = scoring.verdict_of(judgments)
    assert verdict["correct"] is True and verdict["score"] == pytest.approx(0.95)


def test_structured_service_fields_follow_the_reference_output():
    reference = {
        "restaurant_search_filters": {"preferred_cuisine": "Ethiopian stews", "cuisine_to_avoid": "burgers"}
    }
    predicted = {"restaurant_search_filters": {"preferred_cuisine": "Ethiopian stew", "cuisine_to_avoid": ""}}
    fields = scoring.service_fields("information_request_construction", reference, [], predicted)
    judged = {j.path: (j.core, j.detail) for j in scoring.rule_judge(fields)}
    # "Ethiopian stew": half the key tokens (core), token F1 0.5 (detail 1); an empty field fails
    assert judged == {
        "restaurant_search_filters.cuisine_to_avoid": (0, 0),
        "restaurant_search_filters.preferred_cuisine": (1, 1),
    }


def test_negative_point_passes_when_the_forbidden_content_is_absent():
    point = {"point_id": "n", "polarity": "negative", "reference_value": "live conference"}
    ok = scoring.rule_judge(
        scoring.service_fields("user_communication", "r", [point], "Book the webinar series.")
    )
    bad = scoring.rule_judge(
        scoring.service_fields("user_communication", "r", [point], "Book the live conference.")
    )
    assert ok[0].core == 1 and bad[0].core == 0


def test_evidence_prf_and_release_conventions():
    prf = scoring.evidence_prf(["a", "b", "c", "d"], ["a", "b", "x"])
    assert prf["precision"] == pytest.approx(2 / 3) and prf["recall"] == pytest.approx(0.5)
    assert prf["f1"] == pytest.approx(4 / 7) and prf["exact"] == 0.0
    assert scoring.evidence_prf([], [])["recall"] == 1.0 and scoring.evidence_prf([], [])["precision"] == 1.0
    assert scoring.evidence_prf([], ["x"]) == {"precision": 0.0, "recall": 0.0, "f1": 0.0, "exact": 0.0}
    assert scoring.evidence_prf(["a"], []) == {"precision": 0.0, "recall": 0.0, "f1": 0.0, "exact": 0.0}


def test_value_f1_and_exact_match():
    assert scoring.token_f1({"city": "Pellastone", "neighborhood": "Rookmoor"}, {"city": "Pellastone"}) == (
        pytest.approx(2 / 3)
    )
    assert scoring.exact_match({"city": "Pellastone "}, {"city": "pellastone"}) == 1.0
    assert scoring.exact_match([0, 2], [0, 2, 4]) == 0.0
    assert scoring.token_f1("x", None) == 0.0


def test_llm_judge_hook_parses_fills_gaps_and_reports_failures():
    fields = scoring.value_fields({"a": "x", "b": "y"}, {"a": "x", "b": "z"})
    seen = []

    def call(messages):
        seen.append(messages)
        return {
            "field_judgments": [
                {"field_path": "a", "analysis": "same", "core_correct": "true", "detail_quality": 5},
            ]
        }

    judgments = scoring.llm_judge(call)(fields, {"task": "state completion"})
    assert [(j.path, j.core, j.detail) for j in judgments] == [
        ("a", 1, 2),
        ("b", 0, 0),
    ]  # clamped; missing -> 0
    assert '"fields_to_judge"' in seen[0][1]["content"] and "Core" not in seen[0][0]["content"][:10]
    assert scoring.llm_judge(lambda messages: None)(fields, {}) is None


def _row(
    unit, checkpoint, key, task, scores=None, change="new", category="habits", retrieved=(), gold_ids=()
):
    verdicts = {}
    if scores is not None:
        judgments = [
            FieldJudgment(f"f{i}", 1 if s >= 0.8 else 0, {1.0: 2, 0.9: 1, 0.8: 0, 0.0: 0}[s])
            for i, s in enumerate(scores)
        ]
        verdicts["rule"] = scoring.verdict_of(judgments)
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
