"""LongMemEval's answer prompt and its per-type LLM judge, restated from the released code.

Sources (public code, read through the code index; prompts in memsuite's words, the rules kept):

- Judge -- LongMemEval ``src/evaluation/evaluate_qa.py`` (``get_anscheck_prompt``): the judge model
  (gpt-4o-mini in the paper) answers yes or no, temperature 0, at most 10 tokens, and the verdict is
  whether "yes" occurs in its reply. The rule depends on the question type:
  - default (single-session-user, single-session-assistant, multi-session): yes when the response
    contains the correct answer, is equivalent to it, or holds every intermediate step to it; no when
    it holds only part of the information the answer needs;
  - temporal-reasoning: the same, and an off-by-one in a count of days, weeks, months etc. is no error;
  - knowledge-update: yes when the response gives the updated answer, even beside earlier information;
  - single-session-preference: the "answer" is a rubric; yes when the response recalls and uses the
    user's personal information correctly, without needing every point of the rubric;
  - abstention (``_abs``): the "answer" explains why the question cannot be answered; yes when the
    response identifies the question as unanswerable (the information is missing or incomplete).
- Answer prompt -- a question about the user's past conversations, the retrieved history with each
  piece's session date, and the date the question is asked on (``question_date``), so relative dates
  can be resolved.

A failed judge call gives ``correct: None`` with its failure kind: never a wrong answer.
"""

from __future__ import annotations

from typing import Any

from memsuite.eval.benchmarks.longmemeval.schema import LmeQuestion
from memsuite.memory_systems.llm.protocol import ChatClient

ANSWER_MAX_TOKENS = 200
#: The official judge reads at most 10 tokens of reply.
JUDGE_MAX_TOKENS = 10

_CORE = (
    "You are shown a question, its correct answer and a model's response. Reply yes if the response "
    "contains the correct answer, and no otherwise. A response that is equivalent to the correct answer, "
    "or that gives all the intermediate steps leading to it, also gets yes. A response holding only part "
    "of the information the answer needs gets no."
)
_RULES = {
    "default": _CORE,
    "temporal-reasoning": _CORE
    + " Do not count off-by-one errors in a number of days, weeks, months and the like: if the question asks"
    " for such a count and the response is off by one (19 days for 18), it is still correct.",
    "knowledge-update": (
        "You are shown a question, its correct answer and a model's response. Reply yes if the response "
        "contains the correct answer, and no otherwise. A response that also mentions earlier information "
        "beside the updated answer is correct, as long as the updated answer is the one asked for."
    ),
}
_TEMPLATE = (
    "{rules}\n\nQuestion: {question}\n\nCorrect answer: {answer}\n\nModel response: {response}\n\n"
    "Is the model response correct? Reply yes or no only."
)
_PREFERENCE = (
    "You are shown a question, a rubric describing the personalised response wanted, and a model's "
    "response. Reply yes if the response meets the rubric, and no otherwise. It need not cover every point "
    "of the rubric: it is correct when it recalls the user's personal information and uses it correctly."
    "\n\nQuestion: {question}\n\nRubric: {answer}\n\nModel response: {response}\n\n"
    "Is the model response correct? Reply yes or no only."
)
_ABSTENTION = (
    "You are shown a question that cannot be answered, an explanation of why, and a model's response. "
    "Reply yes if the response recognises that the question cannot be answered: it may say the information "
    "is incomplete, or that some other information is known but not the one asked for."
    "\n\nQuestion: {question}\n\nExplanation: {answer}\n\nModel response: {response}\n\n"
    "Does the model response recognise the question as unanswerable? Reply yes or no only."
)

_ANSWER_TEMPLATE = (
    "Below is part of the history of your chats with the user, each piece under the date of its "
    "session.\n\n{context}\n\nCurrent date: {date}\n\nUsing the history above, answer the user's question "
    "in a few words. Question: {question}\nAnswer:"
)


def judge_prompt(question: LmeQuestion, response: str) -> str:
    """The judge's user message for one question type (module docstring)."""
    values = {"question": question.question, "answer": question.answer, "response": response}
    if question.abstention:
        return _ABSTENTION.format(**values)
    if question.question_type == "single-session-preference":
        return _PREFERENCE.format(**values)
    rules = _RULES.get(question.question_type, _RULES["default"])
    return _TEMPLATE.format(rules=rules, **values)


def answer_prompt(question: LmeQuestion, context: str) -> str:
    return _ANSWER_TEMPLATE.format(context=context, date=question.question_date, question=question.question)


def judge_llm(client: ChatClient, question: LmeQuestion, response: str) -> dict[str, Any]:
    """One judge call; the verdict is whether "yes" occurs in the reply (as the official script reads it)."""
    result = client.chat(
        [{"role": "user", "content": judge_prompt(question, response)}],
        phase="judge",
        temperature=0.0,
        max_tokens=JUDGE_MAX_TOKENS,
    )
    verdict: dict[str, Any] = {"judge": "llm", "prompt_tokens": result.prompt_tokens}
    if result.failure is not None:
        return {
            **verdict,
            "correct": None,
            "failure": result.failure.kind,
            "reason": result.failure.message[:300],
        }
    return {**verdict, "correct": "yes" in (result.text or "").lower(), "reason": (result.text or "")[:100]}
