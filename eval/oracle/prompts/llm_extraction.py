"""``llm_extraction``'s two LLM calls, served from gold (the paradigm's ``oracle: memory`` mode, as replies).

- ``llm_extraction.extract``: the session's gold fact sentences (``{"facts": [...]}``), on the chunk
  holding the session's first turn (:func:`memsuite.eval.oracle.chunks.session_facts`);
- ``llm_extraction.decide``: per new fact, UPDATE the entity's value memory among the memories shown
  (ADD when none is shown), ADD a rule or dependency, DELETE every shown memory of an entity the user
  asked to forget (``NONE`` for a fact already stored).
"""

from __future__ import annotations

import json
from typing import Any

from memsuite.baselines import llm_extraction as paradigm
from memsuite.eval.oracle.chunks import fact_index, fact_of, section, session_facts
from memsuite.eval.oracle.gold import normalise
from memsuite.eval.oracle.kinds import OracleRequest, OwnPrompt, PromptFamily, PromptKind, Unservable


def extraction_reply(request: OracleRequest) -> dict[str, Any]:
    return {"facts": [fact.text for fact in session_facts(request, request.text("user"))]}


def _json_after(text: str, header: str) -> Any:
    found = section(text, header + "\n", "\n\n")
    try:
        return json.loads(found)
    except ValueError as exc:
        raise Unservable(f"llm_extraction decision prompt: {header} is not JSON") from exc


def decision_reply(request: OracleRequest) -> dict[str, Any]:
    text = request.text("user")
    memories, facts = _json_after(text, paradigm.MEMORIES_HEADER), _json_after(text, paradigm.FACTS_HEADER)
    index = fact_index(request.need_unit())
    shown = [
        (str(m.get("id")), str(m.get("text") or ""), fact_of(index, str(m.get("text") or "")))
        for m in memories
    ]
    decisions: list[dict[str, Any]] = []
    deleted: set[str] = set()
    # entity -> the decision that now holds its value (an UPDATE of a shown memory, or an ADD)
    holder: dict[str, dict[str, Any]] = {}
    for fact_text in facts:
        fact = fact_of(index, str(fact_text))
        if fact is None:
            raise Unservable(f"llm_extraction decision: {str(fact_text)[:80]!r} is no gold fact of the unit")
        mine = [(i, t) for i, t, f in shown if f is not None and f.entity == fact.entity and i not in deleted]
        if fact.kind == "delete":
            for memory_id, _ in mine:
                decisions.append({"id": memory_id, "event": "DELETE"})
                deleted.add(memory_id)
            holder.pop(fact.entity, None)
            decisions = [d for d in decisions if d.get("entity") != fact.entity or d["event"] == "DELETE"]
            continue
        if any(normalise(t) == normalise(fact.text) for _, t in mine):
            continue  # already stored as it is: NONE
        if fact.sets_value and fact.entity in holder:
            holder[fact.entity]["text"] = fact.text  # a second value in one call: the later one holds
            continue
        values = [(i, t) for i, t, f in shown if f is not None and f.entity == fact.entity and f.sets_value]
        values = [(i, t) for i, t in values if i not in deleted]
        if fact.sets_value and values:
            memory_id, old = values[-1]
            decision = {"id": memory_id, "text": fact.text, "event": "UPDATE", "old_memory": old}
        else:
            decision = {"text": fact.text, "event": "ADD"}
        decision["entity"] = fact.entity
        decisions.append(decision)
        if fact.sets_value:
            holder[fact.entity] = decision
    return {"memory": [{k: v for k, v in d.items() if k != "entity"} for d in decisions]}


KINDS = (
    PromptKind(
        name="llm_extraction.extract",
        markers=(
            "You pick out facts worth remembering from a conversation between a user and an assistant.",
            'Reply with JSON only: {"facts": ["...", "..."]}',
        ),
        reply=extraction_reply,
        prompts=(OwnPrompt(paradigm, "EXTRACT_PROMPT"),),
    ),
    PromptKind(
        name="llm_extraction.decide",
        markers=(
            "You keep a memory store up to date. You get existing memories (each with an id) and new facts.",
            "Existing memories (JSON):",
            "New facts (JSON):",
        ),
        reply=decision_reply,
        prompts=(
            OwnPrompt(paradigm, "UPDATE_PROMPT"),
            OwnPrompt(paradigm, "MEMORIES_HEADER"),
            OwnPrompt(paradigm, "FACTS_HEADER"),
        ),
    ),
)
FAMILY = PromptFamily(systems=(paradigm,), kinds=KINDS)
