"""mem0ai 2.2.1's one LLM call, served from gold: additive (ADD-only) fact extraction.

mem0 2.x makes a single LLM call per ``add(infer=True)``: ``ADDITIVE_EXTRACTION_PROMPT`` as the system
message and ``generate_additive_extraction_prompt`` as the user message, whose ``## New Messages``
section holds the new turns (``user: ...`` lines) and whose ``## Last k Messages`` section quotes
earlier ones. It makes no update or delete decisions (hash dedupe only) and ``search`` calls no LLM,
so extraction is the only kind. The reply is mem0's ``{"memory": [{"id", "text"}]}``: one memory per
gold fact of the session the new messages are, worded as the native ``facts`` oracle words them
(:func:`memsuite.baselines.gold_facts.worded`); a filler session gives no memory.
"""

from __future__ import annotations

from typing import Any

from memsuite.baselines.adapters import mem0ai as adapter
from memsuite.baselines.gold_facts import worded
from memsuite.eval.oracle.kinds import OracleRequest, PromptFamily, PromptKind, Unservable

VERSION = "2.2.1"
_NEW = "## New Messages\n"
_AFTER_NEW = "\n\n## Observation Date\n"


def new_messages(prompt: str) -> str:
    """The ``## New Messages`` section of mem0's extraction prompt."""
    start = prompt.rfind(_NEW)
    end = prompt.find(_AFTER_NEW, start)
    if start < 0 or end < 0:
        raise Unservable("mem0 extraction prompt without its '## New Messages' section")
    return prompt[start + len(_NEW) : end]


def extraction_reply(request: OracleRequest) -> dict[str, Any]:
    unit = request.need_unit()
    session = unit.session_in(new_messages(request.text("user")))
    if session is None:
        raise Unservable(f"mem0 extraction: the new messages are no session of unit {unit.unit_id!r}")
    return {"memory": [{"id": str(i), "text": worded(fact)} for i, fact in enumerate(session.facts)]}


KINDS = (
    PromptKind(
        name="mem0.extract",
        markers=(
            "You are a Memory Extractor — a precise, evidence-bound processor",
            "## New Messages",
            "## Observation Date",
        ),
        reply=extraction_reply,
        library="mem0ai",
        version=VERSION,
        sources=("mem0/configs/prompts.py",),
    ),
)
FAMILY = PromptFamily(systems=(adapter,), kinds=KINDS)
