"""LoCoMo's rule judge: the J rubric and the category-5 rule in phrasings of our own, and its agreement
with Zep's published gpt-4o-mini grades."""

import json

from memsuite.eval.benchmarks.locomo.judges.rule import judge_rule


def verdict(category, gold, answer):
    return judge_rule(category, gold, answer)["correct"]


def test_dates_in_any_format_and_a_different_date():
    assert verdict(2, "3 February 2022", "Priya flew out on Feb 3rd, 2022.")
    assert verdict(2, "3 February 2022", "She flew on 2022-02-03")
    assert verdict(2, "3 February 2022", "She flew on 5 February 2022.") is False
    assert verdict(2, "The week before 20 October 2022", "Around October 15, 2022.")
    assert verdict(2, "The week before 20 October 2022", "On 25 October 2022.") is False


def test_the_same_topic_is_generous_and_another_topic_is_wrong():
    assert verdict(4, "pottery and painting", "She likes painting, and she tried pottery last summer.")
    assert verdict(1, "kayaking, chess, baking sourdough", "He enjoys chess and sourdough baking.")
    assert verdict(4, "a lighthouse painting", "He gave her a cookbook.") is False


def test_numbers_must_match():
    assert verdict(1, "three times", "He has moved 3 times.")
    assert verdict(1, "three times", "He has moved 5 times.") is False


def test_a_refusal_on_an_answerable_question_is_wrong():
    assert verdict(4, "a lighthouse painting", "That is not mentioned in the conversation.") is False


def test_category_5_wants_not_mentioned():
    assert verdict(5, None, "Not mentioned in the conversation")
    assert verdict(5, None, "We never talked about that; no information on it.")
    assert verdict(5, None, "She adopted a parrot.") is False


def test_a_few_gold_words_is_undecided():
    found = judge_rule(4, "a vintage brass telescope for stargazing", "a telescope")
    assert found["correct"] is None and found["undecided"]


def test_agreement_with_zeps_published_grades(shared_data):
    """At least 0.85 agreement on the answers the rules decide, pooled over the dev conversations."""
    grades = json.loads((shared_data / "published" / "locomo" / "zep_locomo_grades.dev.json").read_text())
    agree = decided = undecided = 0
    for items in grades.values():
        for item in items:
            mine = judge_rule(item["category"], item["golden_answer"], item["answer"])["correct"]
            if mine is None:
                undecided += 1
                continue
            decided += 1
            agree += mine == item["grade"]
    assert agree / decided >= 0.85, agree / decided
    assert undecided / (decided + undecided) <= 0.15
