"""The one answer-and-judge step every protocol uses: ask the answer LLM, count it, judge the row.

A protocol says what to ingest, what to ask (the answer messages and budget) and what its judges
need (the ``case``); this module makes the answer call, records its usage in the row, applies the
failed-call rule and runs the judges the run asked for, which the run context carries
(:class:`memsuite.eval.protocol.Judge`, beside :class:`Answer` and :class:`JudgeInput`). No protocol
calls the answer LLM or a judge itself.

The failed-call rule (a failed LLM call is never a wrong answer):

- the answer call failed: every judge that needs the answer gets
  ``{"correct": None, "failure": "<kind>", "failed_call": "answer", "reason": ...}`` without being
  called (an LLM judge is not asked to grade a missing answer);
- a judge's own LLM call failed (or its reply had no verdict): that judge's verdict is
  ``{"correct": None, "failure": "<kind>", "failed_call": "judge", ...}``.

Scoring leaves rows whose verdict carries ``failure`` out of rates and counts them (:func:`failed`).

Row fields written here: ``usage``: ``answer_calls`` (1 per answer call), ``answer_prompt_tokens``,
``answer_completion_tokens``, ``answer_cached``, ``answer_wall_s``, ``answer_failure``
(``"kind: message"``, only when it failed), ``judge_failures`` (failed judge calls of the row, only
when non-zero); ``metadata.context_is_whole_memory`` via :func:`memory_flags`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from memsuite.eval.budget import WINDOW_SHARE
from memsuite.eval.protocol import Answer, JudgeInput, Row, RunContext
from memsuite.memory_systems.base import MemorySystem
from memsuite.memory_systems.tokens import count_tokens, encoding

logger = logging.getLogger(__name__)

#: Kind recorded when a judge answered but its reply held no verdict (e.g. no boolean ``correct``).
NO_VERDICT = "no_verdict"


def ask(
    ctx: RunContext,
    messages: Sequence[Mapping[str, Any]],
    usage: dict[str, Any],
    *,
    max_tokens: int | None = None,
    temperature: float | None = None,
    json: bool = False,
) -> Answer | None:
    """Make the question's answer call and record it in the row's ``usage``.

    Args:
        ctx: The run context; None ``answer_llm`` means a retrieval-only run (no call, None returned).
        messages: The answer prompt.
        usage: The row's usage dict, updated in place (fields in the module docstring).
        max_tokens: Answer budget; default the endpoint config's.
        temperature: Sampling temperature; default the endpoint config's.
        json: Ask for JSON (``chat_json``: parsed into ``Answer.data``, one repair retry).
    """
    llm = ctx.answer_llm
    if llm is None:
        return None
    call = llm.chat_json if json else llm.chat
    result = call(messages, phase="answer", temperature=temperature, max_tokens=max_tokens)
    usage.update(
        answer_calls=usage.get("answer_calls", 0) + 1,
        answer_prompt_tokens=result.prompt_tokens,
        answer_completion_tokens=result.completion_tokens,
        answer_cached=result.cached,
        answer_wall_s=result.wall_s,
    )
    if result.failure is not None:
        usage["answer_failure"] = f"{result.failure.kind}: {result.failure.message}"[:300]
        return Answer(None, failure=result.failure.kind, message=result.failure.message[:300])
    return Answer(result.text, data=result.data)


def judge(
    ctx: RunContext,
    case: Any,
    answer: Answer | None,
    context: str,
    usage: dict[str, Any],
    *,
    always: Iterable[str] = (),
) -> dict[str, dict[str, Any]]:
    """Every verdict on one question: the judges in ``always`` and those the run asked for.

    Args:
        ctx: The run context (the benchmark's ``judge_set``, the ``judges`` asked for, ``judge_llm``).
        case: The question as the benchmark's judges take it.
        answer: The answer (:func:`ask`), or None without an answer call.
        context: What the memory returned.
        usage: The row's usage dict (``judge_failures`` is added when a judge call failed).
        always: Judges applied whatever the run asked for (MEME's LLM-free ``evidence``).

    Raises:
        ConfigError: An unknown judge, or (from the judge) an LLM judge without a judge LLM.
    """
    verdicts: dict[str, dict[str, Any]] = {}
    for name in dict.fromkeys([*always, *ctx.judges]):
        spec = ctx.judge(name)
        if spec.needs_answer and answer is None:
            continue
        if spec.needs_answer and answer is not None and answer.failed:
            verdicts[name] = failed_verdict(answer.failure or "", "answer", answer.message)
            continue
        # A context built outside the runner may give only answer_llm: LLM judges then use it (the
        # runner decides this itself and records it in the run header).
        client = ctx.judge_llm if ctx.judge_llm is not None else ctx.answer_llm
        llm = _Recorder(client) if spec.uses_llm and client is not None else None
        verdict = dict(spec.judge(JudgeInput(case, answer, context, llm)))
        called = llm is not None and llm.calls > 0
        if spec.uses_llm and verdict.get("correct") is None and (called or verdict.get("failure")):
            # No verdict after a judge call: the call failed (its kind), or the reply held none.
            kinds = [f.kind for f in llm.failures] if llm is not None else []
            verdict.update(failure=kinds[-1] if kinds else verdict.get("failure") or NO_VERDICT)
            verdict["failed_call"] = "judge"
        if verdict.get("failed_call") == "judge":
            usage["judge_failures"] = usage.get("judge_failures", 0) + 1
        verdicts[name] = verdict
    return verdicts


def answer_and_judge(
    ctx: RunContext,
    *,
    case: Any,
    context: str,
    messages: Sequence[Mapping[str, Any]] | None,
    usage: dict[str, Any],
    max_tokens: int | None = None,
    temperature: float | None = None,
    json: bool = False,
    always: Iterable[str] = (),
    parse: Callable[[Answer], Any] | None = None,
) -> tuple[Answer | None, dict[str, dict[str, Any]]]:
    """:func:`ask` (when ``messages`` is given) then :func:`judge`: the whole step of one question.

    ``parse`` (optional) turns a successful answer into what the judges compare (stored as
    ``Answer.data``), e.g. DynamicMem's JSON answer into its predicted value.
    """
    answer = None
    if messages is not None:
        answer = ask(ctx, messages, usage, max_tokens=max_tokens, temperature=temperature, json=json)
    if answer is not None and not answer.failed and parse is not None:
        answer = Answer(answer.text, data=parse(answer))
    return answer, judge(ctx, case, answer, context, usage, always=always)


def context_budget(ctx: RunContext, reserve_tokens: int) -> int | None:
    """Tokens of context a row may hand the answer model: the run's budget (``context_tokens``), capped
    by the window the endpoint reports less ``reserve_tokens`` (prompt and answer), with a 20 % margin
    since the answer model's tokenizer is not cl100k; None when neither is known."""
    window = ctx.answer_llm.identity().get("n_ctx") if ctx.answer_llm is not None else None
    fits = int((window - reserve_tokens) * WINDOW_SHARE) if window else None
    limits = [n for n in (ctx.context_tokens, fits) if n is not None]
    return min(limits) if limits else None


def cut_to_tokens(text: str, max_tokens: int | None) -> tuple[str, bool]:
    """``text`` cut to its first ``max_tokens`` cl100k tokens (a ranked context keeps its best), and
    whether it was cut."""
    if max_tokens is None:
        return text, False
    ids = encoding().encode_ordinary(text)
    if len(ids) <= max_tokens:
        return text, False
    return encoding().decode(ids[:max_tokens]), True


def cut_oldest(blocks: Sequence[str], max_tokens: int | None) -> int:
    """Where a chronological context starts once cut to ``max_tokens``: whole blocks are kept from the
    newest back while they fit (one token between blocks), so the oldest go first. Returns the index
    of the first block kept (``len(blocks)`` when not even the newest fits)."""
    if max_tokens is None:
        return 0
    used = 0
    for index in range(len(blocks) - 1, -1, -1):
        used += count_tokens(blocks[index]) + 1
        if used > max_tokens:
            return index + 1
    return 0


def failed_verdict(kind: str, call: str, message: str = "") -> dict[str, Any]:
    """The verdict of a judge whose input (``call`` = "answer") or own call ("judge") failed."""
    reason = f"{call} call failed: {kind}" + (f": {message}" if message else "")
    return {"correct": None, "failure": kind, "failed_call": call, "reason": reason[:300]}


def failed(row: Row, judge: str) -> bool:
    """Whether ``judge``'s verdict on ``row`` is missing because an LLM call failed (left out of rates)."""
    verdict = row.verdicts.get(judge)
    return isinstance(verdict, Mapping) and bool(verdict.get("failure"))


def failed_calls(rows: Iterable[Row]) -> dict[str, int]:
    """Failed answer and judge calls recorded in rows: ``{"answer": n, "judge": n}``."""
    answer = judge_ = 0
    for row in rows:
        answer += bool(row.usage.get("answer_failure"))
        judge_ += int(row.usage.get("judge_failures") or 0)
    return {"answer": answer, "judge": judge_}


def memory_flags(system: MemorySystem, namespace: str, k: int) -> dict[str, Any]:
    """Row metadata on the memory at question time: ``context_is_whole_memory`` when it held <= k items.

    Such a row does not test retrieval (any system returns everything); the flag is omitted when the
    system cannot list its memory.
    """
    try:
        count = len(system.records(namespace=namespace))
    except NotImplementedError:
        return {}
    return {"memory_items": count, "context_is_whole_memory": count <= k}


class _Recorder:
    """A judge LLM that remembers the failures of the calls made through it (for the verdict's kind)."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self.calls = 0
        self.failures: list[Any] = []

    def _record(self, result: Any) -> Any:
        self.calls += 1
        if result.failure is not None:
            self.failures.append(result.failure)
        return result

    def chat(self, *args: Any, **kwargs: Any) -> Any:
        return self._record(self._client.chat(*args, **kwargs))

    def chat_json(self, *args: Any, **kwargs: Any) -> Any:
        return self._record(self._client.chat_json(*args, **kwargs))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)
