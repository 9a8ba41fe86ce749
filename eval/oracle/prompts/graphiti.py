"""graphiti-core 0.31.1's LLM calls during ``add_episode`` and ``search``, served from gold.

The graph a perfect model would build from a session's gold facts: the speaker ``User`` and one entity
``User's <name>`` per fact's entity (``User's car insurer``), and one fact edge ``User -> HAS_<NAME> ->
User's <name>`` per gold fact, whose ``fact`` is worded as the native ``facts`` oracle words it
(:func:`memsuite.baselines.gold_facts.worded`). The calls:

- ``extract_nodes.extract_message``: those entities (the speaker first);
- ``dedupe_nodes.nodes``: an extracted entity duplicates the existing entity of the same name;
- ``extract_edges.edge``: those edges, valid from the episode's reference time;
- ``dedupe_edges.resolve_edge``: an existing fact with the same text is a duplicate; a new value of an
  entity (an update, a change, a deletion request) contradicts every other fact about that entity;
- ``extract_nodes.extract_summaries_batch``: each entity's summary is its gold facts in the prompt.

Other prompts of the library (timestamps and attributes for custom types, sagas, communities) are not
made on the adapter's path; should one arrive it is refused as unrecognised, a counted failed call.

``search`` with the adapter's RRF recipe makes no LLM call. Each reply fits the call's response model
(``ExtractedEntities``, ``NodeResolutions``, ``ExtractedEdges``, ``EdgeDuplicate``, ``EdgeTimestamps``,
``SummarizedEntities``), which the library validates.
"""

from __future__ import annotations

import ast
import json
import re
from datetime import UTC, datetime
from typing import Any

from memsuite.baselines.adapters import graphiti as adapter
from memsuite.baselines.gold_facts import OracleFact, worded
from memsuite.eval.oracle.gold import SessionGold
from memsuite.eval.oracle.kinds import OracleRequest, PromptFamily, PromptKind, Unservable

VERSION = "0.31.1"
LIBRARY = "graphiti-core"
SPEAKER = "User"
_PREFIX = re.compile(r"^User's (?P<name>.+?)(?: \(exact text\))?(?::| was switched to | is tied to )")
_FORGET = re.compile(r"^User asked that everything about their (?P<name>.+) be forgotten$")


def _section(text: str, open_tag: str, close_tag: str) -> str:
    start = text.rfind(open_tag)
    end = text.find(close_tag, start)
    if start < 0 or end < 0:
        raise Unservable(f"graphiti prompt without its {open_tag} section")
    return text[start + len(open_tag) : end].strip()


def _data(section: str) -> Any:
    """A prompt section holding JSON (``to_prompt_json``) or a Python literal (a list in an f-string)."""
    try:
        return json.loads(section)
    except ValueError:
        try:
            return ast.literal_eval(section)
        except (ValueError, SyntaxError) as exc:
            raise Unservable(
                f"graphiti prompt section is neither JSON nor a literal: {section[:80]!r}"
            ) from exc


def _session(request: OracleRequest, open_tag: str, close_tag: str) -> SessionGold:
    unit = request.need_unit()
    session = unit.session_in(_section(request.text("user"), open_tag, close_tag))
    if session is None:
        raise Unservable(f"graphiti: the current message is no session of unit {unit.unit_id!r}")
    return session


def entity_name(fact: OracleFact) -> str:
    return f"{SPEAKER}'s {fact.name}"


def _relation(fact: OracleFact) -> str:
    return "HAS_" + re.sub(r"[^A-Z0-9]+", "_", fact.name.upper()).strip("_")


def subject_of(fact_text: str) -> str | None:
    """The entity name a worded fact is about (``car insurer``), or None for another fact."""
    match = _PREFIX.match(fact_text) or _FORGET.match(fact_text)
    return match["name"] if match else None


def extract_nodes(request: OracleRequest) -> dict[str, Any]:
    session = _session(request, "<CURRENT MESSAGE>", "</CURRENT MESSAGE>")
    names = list(dict.fromkeys([SPEAKER, *(entity_name(f) for f in session.facts)]))
    return {"extracted_entities": [{"name": n, "entity_type_id": 0, "episode_indices": [0]} for n in names]}


def dedupe_nodes(request: OracleRequest) -> dict[str, Any]:
    text = request.text("user")
    extracted = _data(_section(text, "<ENTITIES>", "</ENTITIES>"))
    existing = _data(_section(text, "<EXISTING ENTITIES>", "</EXISTING ENTITIES>"))
    by_name = {str(e.get("name", "")).lower(): e.get("candidate_id", -1) for e in existing}
    resolutions = []
    for i, entity in enumerate(extracted):
        name = str(entity.get("name", ""))
        duplicate = by_name.get(name.lower(), -1)
        resolutions.append({"id": entity.get("id", i), "name": name, "duplicate_candidate_id": duplicate})
    return {"entity_resolutions": resolutions}


def _reference_time(text: str) -> str | None:
    """The prompt's reference time, whole, in the form its DATETIME RULES ask for (ISO 8601, ``Z``).

    graphiti writes the episode's datetime with ``str()`` (``2023-03-05 11:24:00+00:00``, a space
    between date and time) and a ``# ISO 8601 ...`` comment after it; the time of day matters, since
    ``resolve_edge_contradictions`` invalidates an earlier edge only if it is valid strictly earlier.
    """
    match = re.search(r"<REFERENCE_TIME>(.*?)</REFERENCE_TIME>", text, re.DOTALL)
    if match is None:
        return None
    value = match[1].split("#", 1)[0].strip()
    if not value or value == "None":
        return None
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as exc:
        raise Unservable(f"graphiti: unreadable <REFERENCE_TIME> {value!r}") from exc
    when = when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)
    return when.strftime("%Y-%m-%dT%H:%M:%S") + (f".{when.microsecond:06d}" if when.microsecond else "") + "Z"


def extract_edges(request: OracleRequest) -> dict[str, Any]:
    session = _session(request, "<CURRENT_MESSAGE>", "</CURRENT_MESSAGE>")
    text = request.text("user")
    allowed = {str(e.get("name")) for e in _data(_section(text, "<ENTITIES>", "</ENTITIES>"))}
    when = _reference_time(text)
    edges = [
        {
            "source_entity_name": SPEAKER,
            "target_entity_name": entity_name(fact),
            "relation_type": _relation(fact),
            "fact": worded(fact),
            "valid_at": when,
            "invalid_at": None,
            "episode_indices": [0],
        }
        for fact in session.facts
        if entity_name(fact) in allowed and SPEAKER in allowed
    ]
    return {"edges": edges}


#: Fact wordings that say an entity's earlier value no longer holds.
_REPLACES = (" was switched to ", "be forgotten")


def resolve_edge(request: OracleRequest) -> dict[str, Any]:
    text = request.text("user")
    new = _section(text, "<NEW FACT>", "</NEW FACT>")
    existing = _data(_section(text, "<EXISTING FACTS>", "</EXISTING FACTS>")) or []
    candidates = (
        _data(_section(text, "<FACT INVALIDATION CANDIDATES>", "</FACT INVALIDATION CANDIDATES>")) or []
    )
    duplicates = [e["idx"] for e in existing if e.get("fact") == new]
    subject = subject_of(new)
    contradicted = []
    if subject is not None and (
        any(word in new for word in _REPLACES) or new.startswith(f"User's {subject}:")
    ):
        contradicted = [
            e["idx"]
            for e in [*existing, *candidates]
            if e.get("fact") != new
            and subject_of(str(e.get("fact", ""))) == subject
            # a stated dependency stays true when the value changes; only values are replaced
            and " is tied to " not in str(e.get("fact", ""))
            and " is tied to " not in new
        ]
    return {"duplicate_facts": duplicates, "contradicted_facts": contradicted}


def summaries(request: OracleRequest) -> dict[str, Any]:
    text = request.text("user")
    entities = _data(_section(text, "<ENTITIES>", "</ENTITIES>"))
    unit = request.need_unit()
    facts = [f for s in unit.sessions for f in s.facts]
    out = []
    for entity in entities:
        name = str(entity.get("name", ""))
        about = [worded(f) for f in facts if entity_name(f) == name and worded(f) in text]
        if about:
            out.append({"name": name, "summary": " ".join(about)[:500]})
    return {"summaries": out}


def _kind(name: str, markers: tuple[str, ...], reply: Any, source: str) -> PromptKind:
    return PromptKind(
        name=f"graphiti.{name}",
        markers=markers,
        reply=reply,
        library=LIBRARY,
        version=VERSION,
        sources=(f"graphiti_core/prompts/{source}.py",),
    )


KINDS = (
    _kind(
        "extract_nodes",
        ("You are an entity extraction specialist for conversational messages.", "<CURRENT MESSAGE>"),
        extract_nodes,
        "extract_nodes",
    ),
    _kind(
        "dedupe_nodes",
        ("You are an entity deduplication assistant. ", "<EXISTING ENTITIES>", "<CURRENT MESSAGE>"),
        dedupe_nodes,
        "dedupe_nodes",
    ),
    _kind(
        "extract_edges",
        ("You are an expert fact extractor that extracts fact triples from text. ", "<CURRENT_MESSAGE>"),
        extract_edges,
        "extract_edges",
    ),
    _kind(
        "resolve_edge",
        ("You are a fact deduplication assistant. ", "<NEW FACT>", "<FACT INVALIDATION CANDIDATES>"),
        resolve_edge,
        "dedupe_edges",
    ),
    _kind(
        "summaries",
        ("You are a helpful assistant that generates concise entity summaries from provided context.",),
        summaries,
        "extract_nodes",
    ),
)
FAMILY = PromptFamily(systems=(adapter,), kinds=KINDS)
