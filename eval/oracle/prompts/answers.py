"""Answer prompts of the benchmarks the oracle serves, and the preflight ping: replied from gold.

An answer reply is the question's gold answer whatever the context holds: the answer ceiling, marked
``gold_answer`` in the served-call log and in the run header. A question the unit does not ask is
:class:`Unservable` (a failed call), never a guess.
"""

from __future__ import annotations

import json
import re
from typing import Any

from memsuite.eval.oracle.kinds import OracleRequest, PromptFamily, PromptKind, Unservable

_MEME_QUESTION = re.compile(
    r"^Current date: (?P<date>.*?)\nQuestion: (?P<question>.*?)\n\nAnswer using only", re.M | re.S
)
_DM_QUESTION = re.compile(r"\[Question\]\n(?P<question>.*?)\n\[/Question\]", re.S)
_DM_TASK = re.compile(r"\[Assistant Task\]\n(?P<task>.*?)\n\[/Assistant Task\]", re.S)


def _gold(request: OracleRequest, question: str, date: str | None) -> Any:
    unit = request.need_unit()
    found = unit.answer_to(question, date=date, occurrence=request.seen(f"question:{question}"))
    if found is None:
        raise Unservable(f"answer prompt: question {question[:80]!r} is not asked in unit {unit.unit_id!r}")
    return found.gold


def meme_answer(request: OracleRequest) -> str:
    match = _MEME_QUESTION.search(request.text("user"))
    if match is None:
        raise Unservable("MEME answer prompt without its 'Current date:' / 'Question:' lines")
    date = match["date"].strip()
    return str(_gold(request, match["question"], None if date == "unknown" else date))


def dynamicmem_completion(request: OracleRequest) -> dict[str, Any]:
    match = _DM_QUESTION.search(request.text("user"))
    if match is None:
        raise Unservable("DynamicMem completion prompt without its [Question] block")
    gold = _gold(request, match["question"], None)
    return gold if isinstance(gold, dict) else json.loads(gold)


def dynamicmem_service(request: OracleRequest) -> dict[str, Any]:
    match = _DM_TASK.search(request.text("user"))
    if match is None:
        raise Unservable("DynamicMem service prompt without its [Assistant Task] block")
    gold = _gold(request, match["task"], None)
    return gold if isinstance(gold, dict) else json.loads(gold)


def preflight(request: OracleRequest) -> str:
    return "OK"


KINDS = (
    PromptKind(
        name="meme.answer",
        markers=("Answer using only the memory context above.", "Question: "),
        reply=meme_answer,
        gold_answer=True,
    ),
    PromptKind(
        name="dynamicmem.completion",
        markers=("[Question]", "Answer the question about the user's current state from the memory above"),
        reply=dynamicmem_completion,
        gold_answer=True,
    ),
    PromptKind(
        name="dynamicmem.service",
        markers=(
            "[Assistant Task]",
            "Complete the assistant task for this user using what the memory above says",
        ),
        reply=dynamicmem_service,
        gold_answer=True,
    ),
    # memsuite's one-token preflight request (LLMClient.ping), sent before any unit.
    PromptKind(name="preflight", markers=("Say OK.",), reply=preflight, roles=("user",), whole=True),
)
#: memsuite's driver sends these, whatever the systems.
FAMILY = PromptFamily(systems=(), kinds=KINDS)
