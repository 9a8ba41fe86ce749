"""LoCoMo's answer prompts and the LLM judge of the published mem0/Zep comparisons.

Sources (public code, read through the code index; prompts restated in memsuite's words, the rules
kept):

- Answer prompt -- snap-research/LoCoMo ``task_eval/gpt_utils.py`` (``QA_PROMPT``,
  ``QA_PROMPT_CAT_5``, ``get_cat_5_answer``, ``get_gpt_answers``): the context, then a request for a
  short-phrase answer in the context's own words; temperature 0, at most 32 tokens. Category 2 adds
  an instruction to answer with an approximate date from the conversation's dates. Category 5 asks a
  two-way choice between "Not mentioned in the conversation" and the adversarial answer, in an order
  drawn at random (here: seeded per run and question, so reruns match), and maps a reply of just
  "a"/"b" or "(a)"/"(b)" back to the option's text.
- LLM judge -- mem0ai/mem0 ``evaluation/metrics/llm_judge.py`` (``ACCURACY_PROMPT``,
  ``evaluate_llm_judge``): label the generated answer CORRECT or WRONG against the gold answer, generous
  when it touches the same topic, and for time questions when it names the same date or period in
  any format (relative references included); one sentence of reasoning, then the label, returned as
  JSON ``{"label": ...}``; temperature 0. mem0 judges with gpt-4o-mini and skips category 5.

A failed call (endpoint failure, or a reply without exactly one label) gives ``correct: None`` with the
failure kind: it is never a wrong answer, and rates leave it out and count it.
"""

from __future__ import annotations

import random
from typing import Any

from memsuite.eval.benchmarks.locomo.schema import ADVERSARIAL, Question

#: The released runs ask for short answers (gpt_utils.py: 32 tokens).
ANSWER_MAX_TOKENS = 32
JUDGE_MAX_TOKENS = 200
NOT_MENTIONED = "Not mentioned in the conversation"

_ANSWER_TEMPLATE = (
    "{context}\n\n"
    "Using the context above, answer the question below in the form of a short phrase. Where you can,"
    " use the exact words of the context.\n\nQuestion: {question} Short answer:"
)
_CHOICE_TEMPLATE = (
    "{context}\n\nUsing the context above, answer the question below.\n\n"
    "Question: {question} Pick the correct answer: (a) {a} (b) {b}. Short answer:"
)
_TEMPORAL_HINT = " Answer with an approximate date, using the DATE of the conversation."
#: Opening of the full-conversation context (gpt_utils.py ``CONV_START_PROMPT``, reworded).
FULL_CONTEXT_OPENING = (
    "Below is a conversation between two people, {a} and {b}. It takes place over several days; the date"
    " of each session is written at its start.\n\n"
)

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


def choice_order(seed: int, sample_id: str, index: int) -> bool:
    """Whether "not mentioned" is option (a) for this question (a coin flip fixed by seed and question)."""
    return random.Random(f"{seed}:{sample_id}:{index}").random() < 0.5


def answer_prompt(question: Question, context: str, *, seed: int, sample_id: str) -> tuple[str, dict | None]:
    """The answer prompt of one question, and for category 5 the option letter -> text map."""
    if question.category == ADVERSARIAL:
        tempting = question.adversarial_answer or question.answer or ""
        a, b = (
            (NOT_MENTIONED, tempting)
            if choice_order(seed, sample_id, question.index)
            else (tempting, NOT_MENTIONED)
        )
        prompt = _CHOICE_TEMPLATE.format(context=context, question=question.question, a=a, b=b)
        return prompt, {"a": a, "b": b}
    text = question.question + (_TEMPORAL_HINT if question.category == 2 else "")
    return _ANSWER_TEMPLATE.format(context=context, question=text), None


def resolve_choice(reply: str, options: dict[str, str] | None) -> str:
    """A category-5 reply of just a letter ("a", "(b)") as its option's text; anything else as is."""
    said = reply.strip()
    if options is None:
        return said
    lowered = said.lower()
    if len(lowered) == 1:
        return options["a"] if "a" in lowered else options["b"]
    if len(lowered) == 3 and lowered.startswith("(") and lowered.endswith(")"):
        return options["a"] if "(a)" in lowered else options["b"]
    return said


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


def judge_llm(client: Any, question: str, gold: str, answer: str) -> dict[str, Any]:
    """One judge call; a failed or unreadable call gives ``correct: None`` with its failure kind."""
    result = client.chat_json(
        [{"role": "user", "content": judge_prompt(question, gold, answer)}],
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
