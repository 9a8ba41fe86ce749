"""a-mem 0.2.6's two LLM calls per added note, served from gold.

The A-MEM adapter adds each turn of a session as a note (``"role: content"``). a-mem then asks:

- ``amem.analyze`` (``AgenticMemorySystem.analyze_content``): keywords, a context sentence and tags
  for the note. A perfect model's analysis of a turn: the gold facts of the turn's session that the
  turn states (their value, or for a deletion request their entity's name, is in it); keywords their
  entity names and values, the context the facts worded as the native ``facts`` oracle words them
  (:func:`memsuite.baselines.gold_facts.worded`), tags the entity names. A turn stating no gold fact gets
  no keywords or tags and a-mem's default context, ``General``.
- ``amem.evolve`` (``AgenticMemorySystem.process_memory``): whether to link the new note to its five
  nearest notes and rewrite their context and tags. The reply links the new note to every neighbour
  that states a fact about one of the new note's entities (``strengthen``) and leaves the neighbours'
  context and tags as they are (each list as long as the neighbours, as a-mem's prompt requires).

Both replies fit the call's json_schema. a-mem's ``search`` makes no LLM call.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from memsuite.baselines.adapters import amem as adapter
from memsuite.baselines.gold_facts import OracleFact, worded
from memsuite.eval.oracle.chunks import states
from memsuite.eval.oracle.gold import UnitGold, normalise
from memsuite.eval.oracle.kinds import OracleRequest, PromptFamily, PromptKind, Unservable

VERSION = "0.2.6"
LIBRARY = "a-mem"
DEFAULT_CONTEXT = "General"
_ANALYSIS_START = "Content for analysis:"
_NEW_CONTENT = re.compile(r"^\s*content: (?P<content>.*?)\n\s*keywords: ", re.M | re.S)
_NEIGHBOUR = re.compile(
    r"^memory_id:(?P<id>\S+)\ttalk start time:[^\t]*\tmemory content: (?P<content>.*?)"
    r"\tmemory context: (?P<context>.*?)\tmemory keywords: .*?\tmemory tags: (?P<tags>.*)$",
    re.M,
)


def facts_of_note(unit: UnitGold, content: str) -> list[OracleFact]:
    """The gold facts a note (one turn of the unit) states.

    Raises:
        Unservable: The note is no turn of the unit.
    """
    flat = normalise(content)
    sessions = [s for s in unit.sessions if any(turn and turn in flat for turn in s.turns)]
    if not sessions:
        raise Unservable(f"a-mem: the note {flat[:80]!r} is no turn of unit {unit.unit_id!r}")
    found = [fact for s in sessions for fact in s.facts if states(fact, flat)]
    return list(dict.fromkeys(found))


def analysis(facts: list[OracleFact]) -> dict[str, Any]:
    names = list(dict.fromkeys(f.name for f in facts))
    keywords = list(dict.fromkeys([*names, *(f.value for f in facts if f.value)]))
    context = " ".join(worded(f) for f in facts) or DEFAULT_CONTEXT
    return {"keywords": keywords, "context": context, "tags": names}


def analyze_reply(request: OracleRequest) -> dict[str, Any]:
    text = request.text("user")
    start = text.rfind(_ANALYSIS_START)
    if start < 0:
        raise Unservable("a-mem analysis prompt without its 'Content for analysis:' line")
    return analysis(facts_of_note(request.need_unit(), text[start + len(_ANALYSIS_START) :]))


def _tags(literal: str) -> list[str]:
    try:
        value = ast.literal_eval(literal.strip())
    except (ValueError, SyntaxError):
        return []
    return [str(v) for v in value] if isinstance(value, list) else []


def evolve_reply(request: OracleRequest) -> dict[str, Any]:
    unit = request.need_unit()
    text = request.text("user")
    new = _NEW_CONTENT.search(text)
    if new is None:
        raise Unservable("a-mem evolution prompt without the new note's 'content:' line")
    facts = facts_of_note(unit, new["content"])
    entities = {f.entity for f in facts}
    neighbours = list(_NEIGHBOUR.finditer(text))
    linked = [n["id"] for n in neighbours if entities & {f.entity for f in facts_of_note(unit, n["content"])}]
    return {
        "should_evolve": bool(linked),
        "actions": ["strengthen"] if linked else [],
        "suggested_connections": linked,
        "tags_to_update": analysis(facts)["tags"],
        "new_context_neighborhood": [n["context"] for n in neighbours],
        "new_tags_neighborhood": [_tags(n["tags"]) for n in neighbours],
    }


def _kind(name: str, markers: tuple[str, ...], reply: Any) -> PromptKind:
    return PromptKind(
        name=f"amem.{name}",
        markers=markers,
        reply=reply,
        library=LIBRARY,
        version=VERSION,
        sources=("agentic_memory/memory_system.py",),
    )


KINDS = (
    _kind(
        "analyze",
        ("Generate a structured analysis of the following content by:", _ANALYSIS_START),
        analyze_reply,
    ),
    _kind(
        "evolve",
        (
            "You are an AI memory evolution agent responsible for managing and evolving a knowledge base.",
            "The nearest neighbors memories (each line starts with memory_id):",
        ),
        evolve_reply,
    ),
)
FAMILY = PromptFamily(systems=(adapter,), kinds=KINDS)
