"""BEAM's rubric judge, restated in memsuite's words with every rule kept.

Source: BEAM's public evaluation code (mohammadtavakoli78/BEAM: ``unified_llm_judge_base_prompt`` in
its prompts, the per-ability ``evaluate_*`` functions and ``event_ordering_score``), read through the
code index; nothing copied.

Every ability (:func:`judge_llm`): each rubric item is judged on its own by one call. The judge gets
the question, the rubric item and the response, and scores the item 1.0 (fully complies), 0.5 (an
element present with minor inaccuracies, or some but not all parts of a compound item) or 0.0
(missing or wrong), replying with a JSON object ``{"score", "reason"}``. Its rules:

- the rubric item is a positive requirement (something the response should include or do) or a
  negative constraint (something it should not: "no", "not", "avoid", "absent");
- the response must address the question; an off-topic or evasive one scores 0.0, and a negative
  constraint holds only when the response is responsive and the prohibited element is absent;
- meaning, not wording: paraphrases and synonyms count, case, punctuation and whitespace are
  ignored, numbers, currencies and dates count in any equivalent form ($68,000 = 68k), and an
  expected number or duration is compared by value;
- style is neutral: tone, hedging, length and verbosity never cost points; a format is judged only
  when the item itself requires one;
- a compound item (parts joined by "and" or commas) scores 1.0 with every part, 0.5 with some, 0.0
  with none.

The question's ``score`` is the mean of its items' scores. (BEAM's released functions add
``int(score)`` for every ability but event ordering, which truncates a 0.5 to 0; the verdict keeps that
reading too, as ``score_int``.)

Event ordering (:func:`judge_event_ordering`) is scored as BEAM's ``event_ordering_score`` does: the
response is split at every newline into a list of items; each item, in order, is matched to the
first rubric item not yet matched that a yes/no equivalence call says describes the same event or
fact (a blank line matches nothing, as no model says two snippets are the same event when one is
empty); matched items stand for their rubric item. Then precision, recall and F1 of the matched
list against the rubric list, and Kendall's tau-b between the two lists' rank vectors over their union
(an item absent from a list takes rank ``len(union) + 1``), normalised to ``(tau_b + 1) / 2``. The
ability's ``score`` is ``tau_norm * F1``; the rubric judge's mean is kept beside it (``rubric_score``).
An undefined tau (fewer than two distinct items) counts as 0.

``correct`` is True when the score is 1.0 (every item fully met), False otherwise. A failed judge call
(or a reply without a score of 0, 0.5 or 1) gives ``correct: None`` with its failure: never a wrong
answer.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from memsuite.eval.benchmarks.beam.schema import BeamQuestion
from memsuite.memory_systems.llm.protocol import ChatClient

ANSWER_MAX_TOKENS = 600
JUDGE_MAX_TOKENS = 300
EQUIVALENCE_MAX_TOKENS = 5
SCORES = (0.0, 0.5, 1.0)

RUBRIC_PROMPT = """You grade one response against one rubric criterion.

Question the user asked: {question}
Rubric criterion: {item}
Response to grade: {response}

How to grade:
1. Decide whether the criterion is a positive requirement (the response should include or do
something) or a negative constraint (it should not: words such as "no", "not", "avoid", "absent").
2. The response must address the question. If it is off-topic or evasive, the score is 0.0. A negative
constraint is met only when the response addresses the question and the prohibited element is absent.
3. Judge meaning, not wording: accept paraphrases and synonyms; ignore case, punctuation and
whitespace; numbers, currencies and dates count in any equivalent form ("$68,000", "68k", "sixty-eight
thousand dollars"); when the criterion expects a number or a duration, compare the values.
4. Style does not count: never penalise tone, hedging, length or verbosity. Judge a format only when
the criterion itself requires one (an itemised list, one sentence, code blocks).
5. A criterion of several parts joined by "and" or commas: all parts present is full compliance, some
parts is partial, none is no compliance.

Scores:
- 1.0: full compliance (the required element is present and correct, or the prohibited one is absent
and the response is responsive);
- 0.5: partial compliance (the element is present with minor inaccuracies or incomplete, or the
prohibited element appears only at the edges);
- 0.0: no compliance (the element is missing or wrong, the prohibited element is present, or the
response does not address the question).

Reply with only a JSON object: {{"score": <1.0, 0.5 or 0.0>, "reason": "<why>"}}"""

EQUIVALENCE_PROMPT = (
    "Answer YES if the two snippets below describe the same event or fact, and NO otherwise. "
    "Reply with the one word only.\n\nFirst snippet: {reference}\n\nSecond snippet: {candidate}"
)


def rubric_prompt(question: BeamQuestion, item: str, response: str) -> str:
    """The judge's message for one rubric item (module docstring)."""
    return RUBRIC_PROMPT.format(question=question.question, item=item, response=response)


def _failure(verdict: dict[str, Any], result: Any) -> dict[str, Any]:
    return {
        **verdict,
        "correct": None,
        "failure": result.failure.kind,
        "reason": result.failure.message[:300],
    }


def _item_score(data: Any) -> float | None:
    if not isinstance(data, dict):
        return None
    try:
        score = float(data.get("score"))
    except (TypeError, ValueError):
        return None
    return score if score in SCORES else None


def score_items(client: ChatClient, question: BeamQuestion, response: str) -> dict[str, Any]:
    """Every rubric item judged by one call each; ``score`` their mean (module docstring)."""
    verdict: dict[str, Any] = {"judge": "llm", "ability": question.ability}
    items = []
    for item in question.rubric:
        result = client.chat_json(
            [{"role": "user", "content": rubric_prompt(question, item, response)}],
            phase="judge",
            temperature=0.0,
            max_tokens=JUDGE_MAX_TOKENS,
        )
        if result.failure is not None:
            return _failure(verdict, result)
        score = _item_score(result.data)
        if score is None:
            return {
                **verdict,
                "correct": None,
                "failure": "no_verdict",
                "reason": f"no score in {result.text!r}"[:300],
            }
        reason = str((result.data or {}).get("reason", ""))[:200]
        items.append({"item": item, "score": score, "reason": reason})
    if not items:
        return {**verdict, "correct": None, "undefined": "the question has no rubric"}
    score = sum(i["score"] for i in items) / len(items)
    score_int = sum(int(i["score"]) for i in items) / len(items)
    return {**verdict, "score": score, "score_int": score_int, "correct": score == 1.0, "items": items}


def kendall_tau_b(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Kendall's tau-b of two paired rank vectors; None when undefined (a vector of one value)."""
    concordant = discordant = ties_x = ties_y = 0
    n = len(x)
    for i in range(n):
        for j in range(i + 1, n):
            dx, dy = x[i] - x[j], y[i] - y[j]
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                ties_x += 1
            elif dy == 0:
                ties_y += 1
            elif (dx > 0) == (dy > 0):
                concordant += 1
            else:
                discordant += 1
    denominator = math.sqrt((concordant + discordant + ties_x) * (concordant + discordant + ties_y))
    return (concordant - discordant) / denominator if denominator else None


def ordering_score(reference: Sequence[str], system: Sequence[str]) -> dict[str, float]:
    """Precision, recall, F1, normalised tau-b and their product, of an aligned system list against
    the reference list (module docstring)."""
    tp = len(set(reference) & set(system))
    fp = sum(x not in reference for x in system)
    fn = sum(x not in system for x in reference)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    union = list(dict.fromkeys([*reference, *system]))
    tie = len(union) + 1

    def ranks(seq: Sequence[str]) -> list[float]:
        position = {item: i + 1 for i, item in enumerate(seq)}
        return [float(position.get(u, tie)) for u in union]

    tau = kendall_tau_b(ranks(reference), ranks(system))
    tau_norm = (tau + 1) / 2 if tau is not None else 0.0
    return {"precision": precision, "recall": recall, "f1": f1, "tau_norm": tau_norm, "score": tau_norm * f1}


def judge_event_ordering(client: ChatClient, question: BeamQuestion, response: str) -> dict[str, Any]:
    """Event ordering's score (module docstring), with the rubric judge's mean beside it."""
    verdict: dict[str, Any] = {"judge": "llm", "ability": question.ability}
    reference = list(question.rubric)
    used: set[int] = set()
    aligned = []
    for line in response.split("\n"):
        match = None
        if line.strip():
            for index, item in enumerate(reference):
                if index in used:
                    continue
                result = client.chat(
                    [{"role": "user", "content": EQUIVALENCE_PROMPT.format(reference=item, candidate=line)}],
                    phase="judge",
                    temperature=0.0,
                    max_tokens=EQUIVALENCE_MAX_TOKENS,
                )
                if result.failure is not None:
                    return _failure(verdict, result)
                if "yes" in (result.text or "").lower():
                    match = index
                    break
        if match is None:
            aligned.append(line)
        else:
            used.add(match)
            aligned.append(reference[match])
    ordering = ordering_score(reference, aligned)
    rubric = score_items(client, question, response)
    if rubric.get("correct") is None:
        return {**rubric, "ordering": ordering}
    return {
        **verdict,
        "score": ordering["score"],
        "correct": ordering["score"] == 1.0,
        "ordering": ordering,
        "rubric_score": rubric["score"],
        "items": rubric["items"],
    }


def judge_llm(client: ChatClient, question: BeamQuestion, response: str) -> dict[str, Any]:
    """The verdict of BEAM's judge on one response (module docstring)."""
    if question.ability == "event_ordering":
        return judge_event_ordering(client, question, response)
    return score_items(client, question, response)


ANSWER_PROMPT = (
    "Below are messages from your earlier conversation with the user, the most relevant first, each "
    "under its batch and date where known.\n\n{context}\n\nUsing only these messages, answer the user's "
    "question. Be direct and concise.\n\nQuestion: {question}\nAnswer:"
)


def answer_prompt(question: BeamQuestion, context: str) -> str:
    """The answer model's message: the retrieved messages, then the question as released."""
    return ANSWER_PROMPT.format(context=context, question=question.question)
