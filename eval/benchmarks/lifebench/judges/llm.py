"""LifeBench's answer prompts and its LLM judge of open answers against ``score_points``.

The release ships no scoring code for its QA; each open question carries ``score_points``, a rubric of
parts each worth some points. The judge (the run's judge LLM, else the answer LLM; temperature 0) is
given the question, the reference answer, the numbered rubric parts with their points and the model's
answer, and replies in JSON ``{"earned": [p1, p2, ...]}``: the points earned on each part, from 0 to
that part's points. The score is points earned over points possible; ``correct`` is score >= 0.5. A
failed call, or a reply that is not one number per part within its range, is ``correct: None`` with
the failure kind: never a wrong answer; rates leave it out and count it.

Answer prompts: the retrieved records, the day the question is asked (``Today is <YYYY-MM-DD>``: the
question's time), then the question; a multiple-choice question lists its options and asks for the
letter alone; an open one asks for a short answer and to say so when the records do not tell.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memsuite.memory_systems.llm.protocol import ChatClient

ANSWER_MAX_TOKENS = 128
JUDGE_MAX_TOKENS = 200

_OPEN = (
    "Records from the user's phone:\n\n{context}\n\nToday is {asked}. Using the records above, answer the "
    "user's question in one or two sentences. If the records do not tell, say that you are unable to "
    "answer.\n\nQuestion: {question}\nAnswer:"
)
_CHOICE = (
    "Records from the user's phone:\n\n{context}\n\nToday is {asked}. Using the records above, choose the "
    "one right option for the user's question. Reply with its letter only.\n\nQuestion: {question}\n"
    "{options}\nAnswer:"
)
_JUDGE = """Grade a model's answer to a question about a user's life against a scoring rubric.

Question: {question}
Reference answer: {gold}
Rubric (part: points possible):
{rubric}
Model's answer: {answer}

For each rubric part, give the points the model's answer earns, from 0 to the part's points. Reply in \
JSON: {{"earned": [<points for part 1>, <points for part 2>, ...]}}"""


def answer_prompt(question: str, asked: str, context: str, options: Sequence[tuple[str, str]]) -> str:
    """The answer model's message for one question (module docstring)."""
    if options:
        listed = "\n".join(f"{letter}. {content}" for letter, content in options)
        return _CHOICE.format(context=context, asked=asked, question=question, options=listed)
    return _OPEN.format(context=context, asked=asked, question=question)


def judge_prompt(question: str, gold: str, points: Sequence[tuple[str, float]], answer: str) -> str:
    """The user message of one rubric-grading call."""
    rubric = "\n".join(f"{i}. {text}: {score:g}" for i, (text, score) in enumerate(points, 1))
    return _JUDGE.format(question=question, gold=gold, rubric=rubric, answer=answer)


def parse_earned(data: Any, points: Sequence[tuple[str, float]]) -> list[float] | None:
    """The points earned per part when the reply gives one number per part within its range; else None."""
    earned = data.get("earned") if isinstance(data, dict) else None
    if not isinstance(earned, list) or len(earned) != len(points):
        return None
    out = []
    for value, (_, possible) in zip(earned, points, strict=True):
        if isinstance(value, str):
            try:
                value = float(value.strip())
            except ValueError:
                return None
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= possible:
            return None
        out.append(float(value))
    return out


def judge_points(
    client: ChatClient, question: str, gold: str, points: Sequence[tuple[str, float]], answer: str
) -> dict[str, Any]:
    """One rubric-grading call (module docstring)."""
    result = client.chat_json(
        [{"role": "user", "content": judge_prompt(question, gold, points, answer)}],
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
    earned = parse_earned(result.data, points)
    if earned is None:
        return {**verdict, "correct": None, "failure": "unparseable_points", "reason": result.text[:300]}
    possible = sum(score for _, score in points)
    score = sum(earned) / possible if possible else 0.0
    return {**verdict, "earned": earned, "possible": possible, "score": score, "correct": score >= 0.5}
