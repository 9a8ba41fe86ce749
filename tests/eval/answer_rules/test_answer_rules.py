"""The shared answer rules: normalisation, containment, final answers, refusals, gold alternatives."""

import json

import pytest

from memsuite.eval.answer_rules.dates import DateValue, find_dates, find_month_parts, find_ranges, same_date
from memsuite.eval.answer_rules.lists import RULES_PATH, rule_lists
from memsuite.eval.answer_rules.responses import final_answer, gold_alternatives, polarity, refusal
from memsuite.eval.answer_rules.text import elements, match


def holds(gold: str, response: str) -> bool:
    return match(elements(gold, relative=True), elements(response)).complete


@pytest.mark.parametrize(
    "written",
    [
        "7 May 2023",
        "May 7, 2023",
        "2023-05-07",
        "the 7th of May, 2023",
        "5/7/2023",
        "May 7th 2023",
        "2023/05/07",
    ],
)
def test_one_day_in_any_format_is_one_date(written):
    assert [d for _, _, d in find_dates(written.lower())] == [DateValue(2023, 5, 7)]
    assert holds("7 May 2023", f"It happened on {written}.")


def test_a_different_day_or_only_the_month_is_not_the_date():
    assert not holds("7 May 2023", "It happened on 8 May 2023.")
    assert not holds("7 May 2023", "Sometime in May 2023.")
    # The answer may leave the year out; a more precise answer names the gold's month.
    assert holds("7 May 2023", "on May 7")
    assert holds("July 2023", "on the 14th of July, 2023")
    assert not same_date(DateValue(2023, 7, None), DateValue(2022, 7, 14))


def test_a_relative_gold_period_holds_dates_inside_it_only():
    assert holds("the weekend before 9 June 2023", "It was on June 4, 2023.")
    assert not holds("the weekend before 9 June 2023", "It was on June 10, 2023.")
    assert holds("the weekend before 9 June 2023", "the weekend before June 9")


def test_a_range_of_days_is_one_period():
    assert find_ranges("the weekend of 5-6 november 2022")[0][2:] == (
        DateValue(2022, 11, 5),
        DateValue(2022, 11, 6),
    )
    assert find_ranges("on 6 may and 7 june") == []  # two days, not a range ("between" makes one)
    assert find_ranges("between 6 and 13 august 2023")
    assert holds("November 5-6, 2022", "On 5 November 2022.")
    assert not holds("November 5-6, 2022", "On 8 November 2022.")
    assert holds("The week before 27 June 2023", "during the week of June 19-25, 2023")
    assert not holds("The week before 27 June 2023", "between 2 and 8 July 2023")


def test_a_response_period_centred_in_the_gold_period_names_it():
    assert holds("June 2023", "during the week of 14 June 2023")
    assert not holds("June 2023", "the week of 3 July 2023")
    assert holds("July 2023", "the week before 9 July 2023")
    assert holds("The week before 13 October 2023", "the week of 9 October 2023")
    assert not holds("The week before 13 October 2023", "the week of 16 October 2023")


def test_a_relative_period_states_its_count_unit_and_year():
    assert holds("2019", "Three years before 23 January 2022")
    assert not holds("2016", "Three years before 23 January 2022")
    assert holds("10 years ago", "about ten years before 27 June 2023")
    assert not holds("10 years ago", "about two years before 27 June 2023")


def test_one_is_the_number_or_the_pronoun():
    assert elements("one").numbers == (1.0,)
    assert elements("Just one pet").numbers == (1.0,)
    for pronoun in ("creating a family for kids who need one", "he saw another one", "one of her movies"):
        assert elements(pronoun).numbers == (), pronoun
    assert elements("one-on-one mentoring").numbers == ()


def test_hedges_of_a_gold_are_not_its_content_and_no_openings_are_no():
    assert elements("Most likely John's partner").words == ("john", "partner")
    assert elements("Since 2016").words == ()
    assert polarity("Not really, it was a rough stretch") is False
    assert polarity("Presumably not") is False
    assert polarity("Not mentioned in the conversation") is None


def test_case_punctuation_articles_and_number_words():
    assert holds("A Yellow Dress", "she got the yellow dress!")
    assert holds("3", "three of them")
    assert holds("twenty-one", "21")
    assert holds("$1,200", "about 1200 dollars")
    assert holds("two hundred pages", "200 pages")
    assert holds("Twice", "two times")
    assert not holds("3", "four of them")


def test_every_content_element_is_needed_and_stems_match():
    assert holds("hiking boots", "a pair of boots for hiking")
    found = match(elements("red wool scarf"), elements("a red scarf"))
    assert not found.complete and found.missing_words == ("wool",) and found.coverage == pytest.approx(2 / 3)


def test_the_final_stated_answer_is_what_a_reasoning_response_concludes():
    response = "Step 1: you said 12 in March. Step 2: you later corrected it. Therefore, the total is 15."
    assert final_answer(response) == "the total is 15."
    assert final_answer("Step 1: you mentioned 12 boxes in March.") is None  # reasons, never concludes
    assert final_answer("Fifteen boxes.") == "fifteen boxes."


def test_refusals_and_uncertain_refusals():
    assert refusal("Sorry, that was never mentioned in our chats.") == "never mentioned"
    assert refusal("I'm not sure, maybe Lisbon") is None
    assert refusal("I'm not sure", states_nothing=True) == "not sure"
    assert refusal("It is unknownst") is None  # whole words only


def test_gold_alternatives():
    alternatives = gold_alternatives("12 days. 13 days (counting both ends) is also acceptable.")
    assert alternatives == ["12 days.", "13 days"]
    assert gold_alternatives("Lisbon") == ["Lisbon"]


def test_rule_lists_are_documented_and_checked(tmp_path):
    data = json.loads(RULES_PATH.read_text(encoding="utf-8"))
    for name in ("articles", "stopwords", "refusals", "final_answer_markers", "number_words"):
        assert name in data["_doc"]
    broken = tmp_path / "rules.json"
    broken.write_text(json.dumps({**data, "refusals": []}), encoding="utf-8")
    with pytest.raises(ValueError, match="refusals"):
        rule_lists(broken)
    assert "not mentioned" in rule_lists().refusals


def test_a_part_of_a_month_is_one_period_unless_hedged():
    def parts(text):
        return [
            (first.day, last.day, first.month, first.year) for _, _, first, last in find_month_parts(text)
        ]

    assert parts("early june 2023") == [(1, 10, 6, 2023)]
    assert parts("mid-march") == [(11, 20, 3, None)]
    assert parts("the end of july, 2023") == [(21, 31, 7, 2023)]
    assert parts("the third week of june 2023") == [(15, 21, 6, 2023)]
    assert parts("the last week of december 2022") == [(-6, 31, 12, 2022)]
    assert parts("around mid-july 2023") == []
    assert parts("sometime in early june") == []
    assert parts("late march or early april 2023") == []
    # A part names a relative gold period it falls in, never a day.
    assert holds("the week before 1 January 2023", "the last week of December 2022")
    assert not holds("2 July 2023", "early July 2023")
