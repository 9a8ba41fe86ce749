"""Two-option questions: the option a gold names and the option an answer chooses."""

from memsuite.eval.answer_rules.options import chosen_option, gold_option, question_options

QUESTION = "Who did I meet first, the woman selling jam at the farmer's market or the tourist from Australia?"


def test_the_options_a_question_ends_with():
    assert question_options(QUESTION) == (
        "the woman selling jam at the farmer's market",
        "the tourist from australia",
    )
    assert question_options("What did I buy for my sister?") is None


def test_the_option_named_first_is_chosen():
    options = question_options(QUESTION)
    assert gold_option(options, "the woman selling jam", QUESTION) == 0
    assert chosen_option(options, "The jam seller at the market, then the tourist.", QUESTION) == 0
    assert (
        chosen_option(options, "You met the tourist from Australia before the woman selling jam.", QUESTION)
        == 1
    )
    assert chosen_option(options, "I don't know.", QUESTION) is None


def test_words_of_the_question_outside_the_options_name_neither():
    asked = "Which trip did I take first, the one to Europe with family or the solo trip to Thailand?"
    options = question_options(asked)
    assert chosen_option(options, "The trip to Europe with family.", asked) == 0
    assert gold_option(options, "The solo trip to Thailand", asked) == 1
