"""llama-index-core 0.14.25's two LLM calls of ``FactExtractionMemoryBlock``, served from gold as XML.

``Memory`` keeps recent messages in its short-term queue; when the queue passes its token limit the
oldest messages are flushed to the memory blocks. The fact block (``memory_blocks/fact.py``,
``_aput``) then sends the flushed messages followed by ``DEFAULT_FACT_EXTRACT_PROMPT`` (the facts it
holds as ``<existing_facts>``) and appends each ``<fact>`` of the reply not already held; past
``max_facts`` it sends the messages and ``DEFAULT_FACT_CONDENSE_PROMPT``, whose reply replaces the
whole list.

- ``llamaindex.extract_facts``: the gold facts of every session whose first turn is among the flushed
  messages (a session's facts are extracted when its first message leaves short-term memory; a later
  part of the same session, and filler, give none), worded as the native ``facts`` oracle words them
  (:func:`memsuite.baselines.gold_facts.worded`), less those already held.
- ``llamaindex.condense_facts``: the held facts as a perfect condensation keeps them: each entity's
  latest value only, no value of an entity the user asked to forget (the request itself is kept),
  rules and dependencies as they are; a fact that is no gold wording is kept unchanged.
"""

from __future__ import annotations

import re

from memsuite.baselines.adapters import llamaindex_memory as adapter
from memsuite.baselines.gold_facts import OracleFact, worded
from memsuite.eval.oracle.gold import normalise
from memsuite.eval.oracle.kinds import OracleRequest, PromptFamily, PromptKind, Unservable

VERSION = "0.14.25"
LIBRARY = "llama-index-core"
_FACT = re.compile(r"<fact>(.*?)</fact>", re.S)
_EXISTING = re.compile(r"<existing_facts>(?P<facts>.*?)</existing_facts>", re.S)


def held_facts(prompt: str) -> list[str]:
    """The facts the block holds, as its prompt's ``<existing_facts>`` lists them."""
    match = _EXISTING.search(prompt)
    if match is None:
        raise Unservable("llama-index fact prompt without its <existing_facts> section")
    return [fact.strip() for fact in _FACT.findall(match["facts"]) if fact.strip()]


def facts_xml(facts: list[str]) -> str:
    return "<facts>\n" + "".join(f"  <fact>{fact}</fact>\n" for fact in facts) + "</facts>"


def extract_reply(request: OracleRequest) -> str:
    unit = request.need_unit()
    *flushed, prompt = request.messages
    text = normalise("\n\n".join(str(m.get("content") or "") for m in flushed))
    held = set(held_facts(str(prompt.get("content") or "")))
    new = [
        worded(fact)
        for session in unit.sessions
        if session.turns and session.turns[0] in text
        for fact in session.facts
    ]
    return facts_xml([fact for fact in dict.fromkeys(new) if fact not in held])


def condensed(held: list[str], known: dict[str, OracleFact]) -> list[str]:
    """``held`` as a perfect condensation keeps it (see the module docstring), in held order."""
    keep: dict[str, str] = {}  # a slot (an entity's value, or the fact's own text) -> its text
    for text in held:
        fact = known.get(text)
        if fact is None or not (fact.sets_value or fact.kind == "delete"):
            keep.setdefault(text, text)
            continue
        slot = f"value:{fact.entity}"
        if fact.kind == "delete":
            keep.pop(slot, None)
            keep[f"forget:{fact.entity}"] = text
        else:
            keep.pop(slot, None)  # the latest value takes the entity's place at the end
            keep[slot] = text
    return list(keep.values())


def condense_reply(request: OracleRequest) -> str:
    unit = request.need_unit()
    held = held_facts(request.text("user"))
    known = {worded(f): f for s in unit.sessions for f in s.facts}
    return facts_xml(condensed(held, known))


def _kind(name: str, markers: tuple[str, ...], reply) -> PromptKind:
    return PromptKind(
        name=f"llamaindex.{name}",
        markers=markers,
        reply=reply,
        library=LIBRARY,
        version=VERSION,
        sources=("llama_index/core/memory/memory_blocks/fact.py",),
    )


KINDS = (
    _kind(
        "extract_facts",
        (
            "You are a precise fact extraction system designed to identify key information from",
            "<existing_facts>",
            "Return ONLY the extracted facts in this exact format:",
        ),
        extract_reply,
    ),
    _kind(
        "condense_facts",
        (
            "You are a precise fact condensing system designed to identify key information from",
            "<existing_facts>",
            "Return ONLY the condensed facts in this exact format:",
        ),
        condense_reply,
    ),
)
FAMILY = PromptFamily(systems=(adapter,), kinds=KINDS)
