"""The MEME LLM judge: the paper's rubric per task, JSON ``{"correct", "reason"}``, temperature 0.

A judge call that fails (endpoint error, unparseable JSON after one repair retry) yields a verdict
with ``correct=None``; callers count these, never crash.
"""

from __future__ import annotations

from collections.abc import Sequence

from memsuite.eval.benchmarks.meme.judges.rule import Verdict
from memsuite.memory_systems.llm.protocol import ChatClient

_RUBRIC = {
    "ER": "Correct if the answer contains the expected value verbatim (ignoring case and whitespace).",
    "Agg": "Correct only if every expected value is present in the answer.",
    "Tr": "Correct only if all expected values are present in chronological order (oldest first).",
    "Cas": (
        "Correct only if the answer gives the expected NEW value as the sole definitive answer."
        " Incorrect if it gives the old value, both values, hedges, uses future tense ('will be'),"
        " or says it doesn't know."
    ),
    "Abs": (
        "Correct if the answer expresses uncertainty about the value or acknowledges that the upstream"
        " dependency changed. Incorrect if it confidently states the old value."
    ),
    "Del": (
        "Correct if the answer says it has no such information and does not reveal the deleted value."
        " Incorrect if it reveals the deleted value."
    ),
    "before": "Correct if the answer semantically matches the expected value.",
}

_SYSTEM = (
    "You grade answers of a memory-augmented assistant. Reply with a JSON object "
    '{"correct": true or false, "reason": "<one sentence>"} and nothing else.'
)


def judge_prompt(
    task: str, phase: str, question: str, gold: str, answer: str, *, old_value: str | None
) -> str:
    """The user message of a judge call (the rubric for the task and phase, then the case)."""
    rubric = _RUBRIC["before"] if phase == "before" else _RUBRIC[task]
    lines = [
        f"Task type: {task} ({phase} the upstream change)",
        f"Rubric: {rubric}",
        f"Question: {question}",
        f"Expected answer: {gold}",
    ]
    if old_value and phase == "after" and task in ("Cas", "Abs", "Del"):
        lines.append(f"Old / deleted value: {old_value}")
    lines.append(f"Answer to grade: {answer}")
    return "\n".join(lines)


def judge_llm(
    client: ChatClient,
    task: str,
    question: str,
    answer: str,
    gold: str,
    *,
    phase: str = "after",
    old_value: str | None = None,
    values: Sequence[str] = (),
) -> Verdict:
    """Ask the LLM judge; a failed call gives ``Verdict(correct=None)``.

    Args:
        client: An ``LLMClient`` (memory_systems/llm/).
        task: Short task code.
        question: The question asked.
        answer: The answer to grade.
        gold: The gold answer.
        phase: "before" or "after".
        old_value: The pre-change or deleted value, shown to the judge for Cas/Abs/Del.
        values: Unused (the gold string carries the values); accepted for a uniform judge signature.
    """
    del values
    messages = [
        {"role": "system", "content": _SYSTEM},
        {"role": "user", "content": judge_prompt(task, phase, question, gold, answer, old_value=old_value)},
    ]
    result = client.chat_json(messages, phase="judge", temperature=0.0, max_tokens=200)
    if result.failure is not None:
        return Verdict(
            None, f"judge failed: {result.failure.kind}: {result.failure.message}"[:300], judge="llm"
        )
    data = result.data if isinstance(result.data, dict) else {}
    correct = data.get("correct")
    if isinstance(correct, str):
        correct = {"true": True, "false": False, "yes": True, "no": False}.get(correct.strip().lower())
    if not isinstance(correct, bool):
        return Verdict(None, f"judge reply lacks a boolean 'correct': {result.text[:200]!r}", judge="llm")
    return Verdict(correct, str(data.get("reason", ""))[:500], judge="llm")
