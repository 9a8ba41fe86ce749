"""REALTALK's answer prompt and LLM score, restated from the release (danny911kr/REALTALK
``eval_memory/qa_tool.py``; prompts in memsuite's words, the rules kept).

- Answer prompt (``QA_PROMPT``): the context, then a request for a short-phrase answer; a question about
  a date is answered with an approximate date ("in the 1800s", "before Jan 2021") where the chat gives
  no exact one.
- LLM score (``gpt_score``): the question, the ground truth and the model's answer, and a request for a
  score between 0 (completely incorrect) and 1 (completely correct), returned as JSON ``{"score": s}``.
  The release sends it to the answer model (its ``evaluate_model`` argument goes unused); here it goes
  to the run's judge LLM (``judge_llm``, else the answer LLM), temperature 0.

A failed call, or a reply without a number in [0, 1] under ``score``, gives ``correct: None`` with the
failure kind: never a wrong answer; rates leave it out and count it. ``correct`` is ``score >= 0.5``.
"""

from __future__ import annotations

from typing import Any

from memsuite.memory_systems.llm.protocol import ChatClient

#: A short phrase (the release sets no limit; LoCoMo's released runs used 32 tokens).
ANSWER_MAX_TOKENS = 64
JUDGE_MAX_TOKENS = 100

_ANSWER_TEMPLATE = (
    "{context}\n\n"
    "Using the conversation above, answer the question below with a short phrase. If the question asks"
    ' about a date and the conversation gives none exactly, give the approximate date ("in the 1800s",'
    ' "before Jan 2021").\n\nQuestion: {question}\nAnswer:'
)
_SCORE_TEMPLATE = """Grade a model's answer to a question against its ground-truth answer.

Question: {question}
Ground truth: {gold}
Model's answer: {answer}

Give a score between 0 and 1: 0 when the model's answer is completely wrong, 1 when it is completely \
right. Reply in JSON: {{"score": <score>}}"""


def answer_prompt(question: str, context: str) -> str:
    """The answer prompt of one question (module docstring)."""
    return _ANSWER_TEMPLATE.format(context=context, question=question)


def score_prompt(question: str, gold: str, answer: str) -> str:
    """The user message of one LLM-score call."""
    return _SCORE_TEMPLATE.format(question=question, gold=gold, answer=answer)


def parse_score(data: Any) -> float | None:
    """The ``score`` of a JSON reply when it is a number in [0, 1] (a numeric string too); else None."""
    value = data.get("score") if isinstance(data, dict) else None
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        return None
    return float(value)


def judge_llm(client: ChatClient, question: str, gold: str, answer: str) -> dict[str, Any]:
    """One LLM-score call (module docstring)."""
    result = client.chat_json(
        [{"role": "user", "content": score_prompt(question, gold, answer)}],
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
    score = parse_score(result.data)
    if score is None:
        return {**verdict, "correct": None, "failure": "unparseable_score", "reason": result.text[:300]}
    return {**verdict, "score": score, "correct": score >= 0.5, "reason": result.text[:300]}
