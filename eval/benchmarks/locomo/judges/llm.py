"""LoCoMo's answer prompts and the LLM judge of the published mem0/Zep comparisons.

Sources (public code, read through the code index; prompts restated in memsuite's words, the rules
kept):

- Answer prompt -- snap-research/LoCoMo ``task_eval/gpt_utils.py`` (``QA_PROMPT``,
  ``QA_PROMPT_CAT_5``, ``get_cat_5_answer``, ``get_gpt_answers``): the context, then a request for a
  short-phrase answer in the context's own words; temperature 0, at most 32 tokens. Category 2 adds
  an instruction to answer with an approximate date from the conversation's dates. Category 5 is
  asked as any other question (open format), or as a multiple choice (choice format: options from
  :func:`.adversarial.choice_options`, lettered (a), (b), ...; a reply naming an option is read as its
  text). LoCoMo's own two-way choice (the trap or "not mentioned") is the choice format's ancestor.
- LLM judge -- mem0ai/mem0 ``evaluation/metrics/llm_judge.py`` (``ACCURACY_PROMPT``,
  ``evaluate_llm_judge``): label the generated answer CORRECT or WRONG against the gold answer, generous
  when it touches the same topic, and for time questions when it names the same date or period in
  any format (relative references included); one sentence of reasoning, then the label, returned as
  JSON ``{"label": ...}``; temperature 0. mem0 judges with gpt-4o-mini and skips category 5.
- Category-5 judge (no published one: every published comparison drops the category): the same call
  and label, with the test restated for a question the conversation does not answer: CORRECT only when
  the answer says the conversation does not tell and asserts neither the trap (``adversarial_answer``,
  shown to the judge) nor any other answer to the question.

A failed call (endpoint failure, or a reply without exactly one label) gives ``correct: None`` with the
failure kind: it is never a wrong answer, and rates leave it out and count it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memsuite.eval.benchmarks.locomo.schema import ADVERSARIAL, Question
from memsuite.eval.retrieval_qa.adversarial import NOT_MENTIONED as NOT_MENTIONED
from memsuite.eval.retrieval_qa.adversarial import chosen_option
from memsuite.memory_systems.llm.protocol import ChatClient

#: The released runs ask for short answers (gpt_utils.py: 32 tokens).
ANSWER_MAX_TOKENS = 32
JUDGE_MAX_TOKENS = 200

_ANSWER_TEMPLATE = (
    "{context}\n\n"
    "Using the context above, answer the question below in the form of a short phrase. Where you can,"
    " use the exact words of the context.\n\nQuestion: {question} Short answer:"
)
_CHOICE_TEMPLATE = (
    "{context}\n\nUsing the context above, answer the question below.\n\n"
    "Question: {question} Pick the correct answer: {options}. Answer with the letter of your choice:"
)
_TEMPORAL_HINT = " Answer with an approximate date, using the DATE of the conversation."

_JUDGE_TEMPLATE = """Label an answer to a question as 'CORRECT' or 'WRONG'. You are given:
    (1) a question, asked by one user of another user,
    (2) the 'gold' (ground-truth) answer,
    (3) a generated answer,
and you grade the generated answer as CORRECT or WRONG.

The question asks about something one user should know about the other from their earlier \
conversations. The gold answer is usually short and names the topic, e.g.:
Question: Do you remember what I got the last time I went to Hawaii?
Gold answer: A shell necklace
The generated answer may be much longer: grade generously. If it touches on the same topic as the \
gold answer, it is CORRECT.

For questions about time, the gold answer is a date, month, year or similar. The generated answer may \
be longer or use relative references ("last Tuesday", "next month"): grade generously. If it refers to \
the same date or period as the gold answer, it is CORRECT, whatever the format ("May 7th" vs "7 May").

The case to grade:
Question: {question}
Gold answer: {gold}
Generated answer: {answer}

First give a one-sentence explanation, then finish with CORRECT or WRONG. Never write both CORRECT and \
WRONG. Return the label as JSON with the key "label"."""


_ADVERSARIAL_JUDGE_TEMPLATE = """Label an answer to a question as 'CORRECT' or 'WRONG'. You are given:
    (1) a question, asked by one user of another user, about their earlier conversations,
    (2) a tempting wrong answer,
    (3) a generated answer,
and you grade the generated answer as CORRECT or WRONG.

The conversations never say what the question asks: its premise is false or unsupported (often it \
asks about one person something only the other did). The right answer says that the conversation does \
not tell. The tempting wrong answer is what someone who mixed up the people or the facts would say.

The generated answer is CORRECT only if it says the conversation does not give this information AND it \
asserts neither the tempting wrong answer nor any other answer to the question, hedged or not ("it is \
not mentioned, but probably ..." is WRONG). Explaining what the conversation does say about something \
else is fine as long as it is not offered as the answer. Any answer that states or guesses an answer is \
WRONG.

The case to grade:
Question: {question}
Tempting wrong answer: {trap}
Generated answer: {answer}

First give a one-sentence explanation, then finish with CORRECT or WRONG. Never write both CORRECT and \
WRONG. Return the label as JSON with the key "label"."""


def answer_prompt(question: Question, context: str, *, options: Sequence[str] | None = None) -> str:
    """The answer prompt of one question; a category-5 question with ``options`` asks the choice."""
    if question.category == ADVERSARIAL and options:
        listed = " ".join(f"({chr(ord('a') + i)}) {text}" for i, text in enumerate(options))
        return _CHOICE_TEMPLATE.format(context=context, question=question.question, options=listed)
    text = question.question + (_TEMPORAL_HINT if question.category == 2 else "")
    return _ANSWER_TEMPLATE.format(context=context, question=text)


def resolve_choice(reply: str, options: Sequence[str] | None) -> str:
    """A choice reply naming an option ("c", "(b)", "b) ...", the option's text) as that option's text;
    anything else, and every reply without options, as is (stripped)."""
    said = reply.strip()
    chosen = chosen_option(said, options) if options else None
    return said if chosen is None else options[chosen]


def judge_prompt(question: str, gold: str, answer: str) -> str:
    """The user message of one judge call."""
    return _JUDGE_TEMPLATE.format(question=question, gold=gold, answer=answer)


def parse_label(data: Any, text: str) -> bool | None:
    """CORRECT -> True, WRONG -> False, from the JSON ``label`` or else the reply's text; None if unclear."""
    label = data.get("label") if isinstance(data, dict) else None
    if isinstance(label, str) and label.strip().upper() in ("CORRECT", "WRONG"):
        return label.strip().upper() == "CORRECT"
    upper = text.upper()
    has_correct, has_wrong = "CORRECT" in upper.replace("INCORRECT", ""), "WRONG" in upper
    if has_correct != has_wrong:
        return has_correct
    return None


def judge_adversarial_prompt(question: str, trap: str | None, answer: str) -> str:
    """The user message of one category-5 judge call."""
    return _ADVERSARIAL_JUDGE_TEMPLATE.format(question=question, trap=trap or "(none given)", answer=answer)


def judge_adversarial_llm(client: ChatClient, question: str, trap: str | None, answer: str) -> dict[str, Any]:
    """One category-5 judge call (module docstring); failures as :func:`judge_llm`'s."""
    return _judge_call(client, judge_adversarial_prompt(question, trap, answer))


def judge_llm(client: ChatClient, question: str, gold: str, answer: str) -> dict[str, Any]:
    """One judge call; a failed or unreadable call gives ``correct: None`` with its failure kind."""
    return _judge_call(client, judge_prompt(question, gold, answer))


def _judge_call(client: ChatClient, prompt: str) -> dict[str, Any]:
    result = client.chat_json(
        [{"role": "user", "content": prompt}],
        phase="judge",
        temperature=0.0,
        max_tokens=JUDGE_MAX_TOKENS,
    )
    verdict: dict[str, Any] = {
        "judge": "llm",
        "prompt_tokens": result.prompt_tokens,
        "completion_tokens": result.completion_tokens,
    }
    if result.failure is not None:
        return {
            **verdict,
            "correct": None,
            "failure": result.failure.kind,
            "reason": result.failure.message[:300],
        }
    correct = parse_label(result.data, result.text)
    if correct is None:
        return {**verdict, "correct": None, "failure": "unparseable_label", "reason": result.text[:300]}
    return {**verdict, "correct": correct, "reason": result.text[:300]}
