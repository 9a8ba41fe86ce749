"""LongMemEval's rule judge: each per-type rule in phrasings of our own, and its agreement with the
official gpt-4o-mini verdicts on the published answer sets."""

import json

import pytest

from memsuite.eval.benchmarks.longmemeval.judges.rule import judge_rule
from memsuite.eval.benchmarks.longmemeval.loader import LmeFile
from memsuite.eval.benchmarks.longmemeval.schema import LmeQuestion


def q(answer, qtype="single-session-user", qid="q1", question="?"):
    return LmeQuestion(qid, qtype, question, answer, "2024/01/02 (Tue) 10:00", (), ())


def verdict(question, response):
    return judge_rule(question, response)["correct"]


def test_containment_with_normalised_forms():
    assert verdict(q("a teal raincoat"), "You bought the Teal raincoat.")
    assert verdict(q("4"), "Four, as far as I can tell.")
    assert verdict(q("14 March 2024"), "That was on March 14th, 2024.")
    assert verdict(q("14 March 2024"), "That was on 2024-03-15.") is False  # a different date
    assert verdict(q("4"), "You have 6 of them.") is False


def test_temporal_counts_off_by_one_but_not_by_two():
    temporal = q("9 days", "temporal-reasoning")
    assert verdict(temporal, "It took 10 days.")
    assert verdict(temporal, "Eight days passed.")
    assert verdict(temporal, "It took 11 days.") is False
    assert verdict(q("9 days"), "It took 10 days.") is False  # only temporal questions allow it


def test_knowledge_update_needs_the_updated_value():
    update = q("the Riverside branch", "knowledge-update")
    assert verdict(update, "You moved from the Hillcrest branch to the Riverside branch.")
    assert verdict(q("41", "knowledge-update"), "You used to have 35, now 41 stamps.")
    assert verdict(q("41", "knowledge-update"), "You have 35 stamps.") is False  # only the previous value


def test_abstention_is_a_recognised_refusal():
    unanswerable = q("You never mentioned a boat.", qid="q9_abs")
    assert verdict(unanswerable, "You haven't told me about that; I don't have that information.")
    assert verdict(unanswerable, "Your boat is called Marlin.") is False


def test_a_refusal_on_an_answerable_question_is_wrong():
    assert verdict(q("Lisbon"), "There is no information about that in our chats.") is False


def test_preference_is_met_by_using_the_users_details():
    wanted = (
        "The user would prefer suggestions using their sourdough starter and rye flour. "
        "They might not prefer generic recipes."
    )
    rubric = q(wanted, "single-session-preference")
    assert verdict(rubric, "Try a rye loaf fed from your sourdough starter.")
    assert verdict(rubric, "Try a banana bread or some muffins.") is False
    assert verdict(rubric, "I don't have any information about your baking.") is False


def test_most_of_the_gold_is_a_paraphrase_and_a_fragment_is_wrong():
    gold = q("a ceramic vase from the flea market")
    assert verdict(gold, "a ceramic vase from a market stall")
    assert verdict(gold, "a vase") is False


def test_off_by_one_is_forgiven_for_days_only():
    assert verdict(q("7 days", "temporal-reasoning"), "It took 8 days.")
    assert verdict(q("15", "temporal-reasoning"), "The final answer is 14.") is False


def test_the_final_stated_answer_is_judged_not_the_reasoning():
    counted = q("5")
    wrong_then_right = "Step 1: at first you listed 3 jars. Step 2: two more came. So the total is 5 jars."
    right_then_wrong = "Step 1: you had 5 jars. Step 2: two broke. Therefore, you have 3 jars."
    assert verdict(counted, wrong_then_right)
    assert verdict(counted, right_then_wrong) is False
    assert verdict(counted, "Step 1: you had 5 jars in May. Step 2: let me check") is False  # no conclusion


def test_gold_alternatives_are_accepted():
    gold = q("12 days. 13 days (counting both ends) is also acceptable.", "multi-session")
    assert verdict(gold, "13 days")
    assert verdict(gold, "12 days")
    assert verdict(gold, "14 days") is False


@pytest.mark.shared_data("longmemeval", "longmemeval_published")
def test_agreement_with_the_published_verdicts(shared_data):
    """Each published set: at least 0.85 agreement counting every undecided answer as a disagreement,
    at least 0.87 on all the sets pooled, and at most 1 % undecided.

    The rules restate the official rubric; see the issue note for how they were kept from fitting these
    verdicts. This checks they still hold on the real answers.
    """
    folder = shared_data / "published" / "longmemeval"
    oracle = LmeFile(shared_data / "longmemeval" / "longmemeval_oracle.dev.json")
    questions = {i: oracle.question(i) for i in oracle.ids}
    files = sorted(folder.glob("*.jsonl"))
    assert len(files) == 7
    pooled = total = 0
    for path in files:
        agree = decided = undecided = 0
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            mine = judge_rule(questions[record["question_id"]], record["hypothesis"])["correct"]
            if mine is None:
                undecided += 1
                continue
            decided += 1
            agree += mine == record["autoeval_label"]["label"]
        assert agree / (decided + undecided) >= 0.85, (path.name, agree / decided)
        assert undecided / (decided + undecided) <= 0.01, (path.name, undecided)
        pooled, total = pooled + agree, total + decided + undecided
    assert pooled / total >= 0.87


@pytest.mark.parametrize("response", ["", "   "])
def test_an_empty_answer_is_wrong(response):
    assert verdict(q("Lisbon"), response) is False


def test_a_two_option_question_is_answered_by_the_option_named_first():
    gold = q("I went to the bake sale first.", "temporal-reasoning",
             question="Which did I go to first, the charity gala or the bake sale?")  # fmt: skip
    assert verdict(gold, "**Answer:** The bake sale.")
    assert verdict(gold, "You went to the bake sale first, and to the charity gala a month later.")
    assert verdict(gold, "The charity gala came first; the bake sale was after it.") is False
    assert verdict(gold, "The charity gala.") is False
    # A word of the question outside the options names neither ("trip").
    asked = "Which trip did I take first, the one to Europe with family or the solo trip to Thailand?"
    trip = q("The solo trip to Thailand", "temporal-reasoning", question=asked)
    assert verdict(trip, "The trip to Europe with family was taken first.") is False
    assert verdict(trip, "Thailand, on your own, then Europe.")
    # Declining is judged as declining, whichever option it mentions.
    assert verdict(gold, "I cannot determine whether the bake sale or the gala came first.") is False


def test_a_length_of_time_is_held_in_any_units():
    asked = "How long does it take me to get ready and commute?"
    gold = q("an hour and a half", "multi-session", question=asked)
    assert verdict(gold, "1 hour (getting ready) + 30 minutes = 90 minutes in total.")
    assert verdict(gold, "It takes 1 hour 30 minutes.")
    assert verdict(gold, "About 1.5 hours.")
    assert verdict(gold, "About two hours.") is False


def test_a_gold_listing_its_off_by_one_allows_no_other():
    gold = q("6 days. 7 days (including the last day) is also acceptable.", "temporal-reasoning",
             question="How many days passed between the two concerts?")  # fmt: skip
    assert verdict(gold, "7 days")
    assert verdict(gold, "5 days") is False
    asked = "How many weeks passed between the day I bought the racket and the day it came?"
    weeks = q("1 week", "temporal-reasoning", question=asked)
    assert verdict(weeks, "2 weeks") is False  # a count of weeks, though the question says "the day"


def test_a_word_repeated_inside_the_golds_own_compound_is_held_with_it():
    gold = q("You joined a social media challenge called #PlankChallenge.", "temporal-reasoning",
             question="What social media activity did I join 5 days ago?")  # fmt: skip
    assert verdict(gold, "You joined the #PlankChallenge.")


def test_a_number_stated_only_as_one_end_of_a_range_is_not_held():
    asked = "How many weeks ago did I start using the cashback app?"
    assert verdict(q("3 weeks ago", "temporal-reasoning", question=asked), "About 2-3 weeks ago.") is False
    assert verdict(q("3 weeks ago", "temporal-reasoning", question=asked), "3 weeks ago (2-3 by my count).")
    # A range the gold itself gives, or one spanning the gold's own alternatives, is held.
    assert verdict(q("10-12 hours", "multi-session", question="How long have I worked on it?"), "10-12 hours")
    days = q("2 days. 3 days (including the last day) is also acceptable.", "temporal-reasoning",
             question="How many days did I spend camping?")  # fmt: skip
    assert verdict(days, "You spent 2-3 days there.")
    assert verdict(q("a 70-200mm zoom lens", question="Which lens did I buy?"), "A 70-200mm zoom lens.")
