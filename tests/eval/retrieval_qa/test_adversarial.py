"""Category 5 (adversarial): the open rule on answers of our own, and the choice format's options on the
real dev file."""

from __future__ import annotations

from pathlib import Path

import pytest

from memsuite.eval.benchmarks.locomo.protocol import LocomoBenchmark
from memsuite.eval.retrieval_qa.adversarial import (
    NOT_MENTIONED,
    chosen_option,
    judge_adversarial,
)
from memsuite.eval.retrieval_qa.category_rule import judge_rule

DEV = Path("locomo") / "locomo.dev.json"
QUESTION = "What country is Melanie's grandma from?"
TRAP = "Sweden"


def verdict(answer: str, options=None):
    return judge_adversarial(answer, TRAP, QUESTION, options)["correct"]


def test_a_refusal_passes():
    assert verdict("Not mentioned in the conversation.")
    assert verdict("The conversation never says which country Melanie's grandma is from.")
    assert verdict("Sorry, I don't have that information.")
    assert verdict("There is no mention of Sweden or of any country for her grandma.")  # named, not asserted


def test_a_refusal_that_then_asserts_the_trap_or_another_answer_fails():
    assert verdict("It is not mentioned, but probably Sweden.") is False
    assert verdict("The conversation does not say; her grandma is from Sweden.") is False
    assert verdict("I don't know, maybe Norway.") is False  # another answer, hedged
    assert verdict("Not stated, though I think it is Norway.") is False
    found = judge_adversarial("No information available. Her grandma is from Norway.", TRAP, QUESTION)
    assert found["correct"] is None and "norway" in found["undecided"]  # stated flat: an answer or not


def test_a_confident_answer_fails():
    assert verdict("Sweden") is False
    assert verdict("Melanie's grandma came from Sweden.") is False
    assert verdict("Norway.") is False
    assert verdict("") is False


def test_the_rule_judge_dispatches_category_5():
    assert judge_rule(5, None, "Not mentioned.", adversarial_answer=TRAP, question=QUESTION)["correct"]
    assert (
        judge_rule(5, None, "Probably Sweden.", adversarial_answer=TRAP, question=QUESTION)["correct"]
        is False
    )


def test_a_choice_is_scored_by_the_letter():
    options = ("Sweden", "a pottery class", NOT_MENTIONED, "Paris")
    assert verdict("c", options) and verdict("(C)", options) and verdict(NOT_MENTIONED, options)
    trap = judge_adversarial("a", TRAP, QUESTION, options)
    assert trap["correct"] is False and trap["choice"] == "a" and "the trap" in trap["reason"]
    assert judge_adversarial("(d) Paris", TRAP, QUESTION, options)["reason"].endswith("a distractor")
    assert verdict("It is not mentioned anywhere.", options)  # no option named: the open rule
    assert chosen_option("a pottery class", options) == 1 and chosen_option("an island", options) is None


@pytest.mark.shared_data("locomo")
def test_choice_options_on_the_dev_file(shared_data):
    benchmark = LocomoBenchmark(
        shared_data / Path("locomo") / "locomo.dev.json",
        conversations=["conv-26"],
        adversarial_format="choice",
    )
    conversation = benchmark.conversations["conv-26"]
    golds = {q.answer for q in conversation.questions if q.answer and q.category != 5}
    adversarial = [q for q in conversation.questions if q.category == 5]
    for question in adversarial:
        options = benchmark.options_of(conversation, question, seed=0)
        assert len(options) == 4 and NOT_MENTIONED in options and question.adversarial_answer in options
        assert all(o in golds for o in options if o not in (NOT_MENTIONED, question.adversarial_answer))
        assert options == benchmark.options_of(conversation, question, seed=0)  # reruns ask the same
    where = [benchmark.options_of(conversation, q, seed=0).index(NOT_MENTIONED) for q in adversarial]
    assert len(set(where)) == 4  # "not mentioned" is not always in one place
    assert benchmark.options_of(conversation, adversarial[0], seed=1) != benchmark.options_of(
        conversation, adversarial[0], seed=0
    ) or benchmark.options_of(conversation, adversarial[1], seed=1) != benchmark.options_of(
        conversation, adversarial[1], seed=0
    )
    assert benchmark.options_of(conversation, conversation.questions[0], seed=0) is None  # category 1-4
    with pytest.raises(Exception, match="adversarial_format must be one of"):
        LocomoBenchmark(shared_data / "locomo" / "locomo.dev.json", adversarial_format="letters")


@pytest.mark.shared_data("locomo")
def test_categories_choose_the_questions(shared_data):
    only = LocomoBenchmark(shared_data / DEV, conversations=["conv-26"], categories=[5], max_questions=4)
    asked = only.questions_of("conv-26")
    assert len(asked) == 4 and all(q.category == 5 for q in asked) and only.source["questions"] == 4
    for bad in ([], [6], 5):
        with pytest.raises(Exception, match="categories must be a non-empty list of 1-5"):
            LocomoBenchmark(shared_data / DEV, categories=bad)
