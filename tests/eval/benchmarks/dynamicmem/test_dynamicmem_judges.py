"""DynamicMem's field judges on hand-worked values: fields, rule judge, identity gates, LLM judge hook."""

from __future__ import annotations

import pytest

from memsuite.eval.benchmarks.dynamicmem import judges
from memsuite.eval.benchmarks.dynamicmem.judges import Field, FieldJudgment

RUN = {
    "schedule": {"frequency_type": "weekly", "days_of_week": [0, 2, 4]},
    "timing": {"start_time": "06:30"},
    "location": "Harrowmere Park loop",
}


def test_value_fields_are_sorted_leaf_paths_and_lists_stay_whole():
    predicted = {"timing": {"start_time": "06:33"}, "schedule": {"days_of_week": "Mon"}}
    fields = judges.value_fields(RUN, predicted)
    assert [f.path for f in fields] == [
        "location",
        "schedule.days_of_week",
        "schedule.frequency_type",
        "timing.start_time",
    ]
    assert fields[1].gold == [0, 2, 4] and fields[1].predicted == "Mon"
    assert fields[0].predicted is None  # missing at the same path
    assert [f.path for f in judges.value_fields("bicycling", "walking")] == ["value"]
    assert judges.value_fields(["a", "b"], ["a"])[0].gold == ["a", "b"]


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
    judged = {j.path: (j.core, j.detail) for j in judges.rule_judge(judges.value_fields(RUN, predicted))}
    # location: key-token recall 2/3 (core); token F1 2/3 -> detail 1
    # days: Jaccard {0,2} vs {0,2,4} = 2/3 (core), not equal -> detail 1
    # frequency: equal after normalisation -> 1, 2; start time 3 minutes off -> core, detail 1
    assert judged == {
        "location": (1, 1),
        "schedule.days_of_week": (1, 1),
        "schedule.frequency_type": (1, 2),
        "timing.start_time": (1, 1),
    }
    judgments = judges.rule_judge(judges.value_fields(RUN, predicted))
    assert judges.item_score(judgments) == pytest.approx((0.9 + 0.9 + 1.0 + 0.9) / 4)


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
    judgment = judges.judge_field_rule(Field("value", gold, predicted))
    assert (judgment.core, judgment.detail) == expected


def test_weekday_names_and_indexes_compare_as_sets():
    field = Field("schedule.days_of_week", [1, 3], "Tuesdays and Thursdays")
    assert (judges.judge_field_rule(field).core, judges.judge_field_rule(field).detail) == (1, 2)
    assert judges.judge_field_rule(Field("schedule.days_of_week", [1, 3], [5])).core == 0


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
    fields = judges.service_fields("user_communication", "ref", points, wrong_routine)
    assert [f.path for f in fields] == ["identity_gate", "timing.start_time", "location"]
    assert all(f.message for f in fields)
    assert judges.item_score(judges.rule_judge(fields)) == 0.0
    right = "Your run starts at 06:30 at Harrowmere Park."
    judgments = judges.rule_judge(judges.service_fields("user_communication", "ref", points, right))
    # gate passes and is not averaged; time exact (1.0); location recall 2/3 in a message -> 0.9
    assert judges.item_score(judgments) == pytest.approx(0.95)
    verdict = judges.verdict_of(judgments)
    assert verdict["correct"] is True and verdict["score"] == pytest.approx(0.95)


def test_structured_service_fields_follow_the_reference_output():
    reference = {
        "restaurant_search_filters": {"preferred_cuisine": "Ethiopian stews", "cuisine_to_avoid": "burgers"}
    }
    predicted = {"restaurant_search_filters": {"preferred_cuisine": "Ethiopian stew", "cuisine_to_avoid": ""}}
    fields = judges.service_fields("information_request_construction", reference, [], predicted)
    judged = {j.path: (j.core, j.detail) for j in judges.rule_judge(fields)}
    # "Ethiopian stew": half the key tokens (core), token F1 0.5 (detail 1); an empty field fails
    assert judged == {
        "restaurant_search_filters.cuisine_to_avoid": (0, 0),
        "restaurant_search_filters.preferred_cuisine": (1, 1),
    }


def test_negative_point_passes_when_the_forbidden_content_is_absent():
    point = {"point_id": "n", "polarity": "negative", "reference_value": "live conference"}
    ok = judges.rule_judge(
        judges.service_fields("user_communication", "r", [point], "Book the webinar series.")
    )
    bad = judges.rule_judge(
        judges.service_fields("user_communication", "r", [point], "Book the live conference.")
    )
    assert ok[0].core == 1 and bad[0].core == 0


def test_value_f1_and_exact_match():
    assert judges.token_f1({"city": "Pellastone", "neighborhood": "Rookmoor"}, {"city": "Pellastone"}) == (
        pytest.approx(2 / 3)
    )
    assert judges.exact_match({"city": "Pellastone "}, {"city": "pellastone"}) == 1.0
    assert judges.exact_match([0, 2], [0, 2, 4]) == 0.0
    assert judges.token_f1("x", None) == 0.0


def test_llm_judge_hook_parses_fills_gaps_and_reports_failures():
    fields = judges.value_fields({"a": "x", "b": "y"}, {"a": "x", "b": "z"})
    seen = []

    def call(messages):
        seen.append(messages)
        return {
            "field_judgments": [
                {"field_path": "a", "analysis": "same", "core_correct": "true", "detail_quality": 5},
            ]
        }

    judgments = judges.llm_judge(call)(fields, {"task": "state completion"})
    assert [(j.path, j.core, j.detail) for j in judgments] == [
        ("a", 1, 2),
        ("b", 0, 0),
    ]  # clamped; missing -> 0
    assert '"fields_to_judge"' in seen[0][1]["content"] and "Core" not in seen[0][0]["content"][:10]
    assert judges.llm_judge(lambda messages: None)(fields, {}) is None
