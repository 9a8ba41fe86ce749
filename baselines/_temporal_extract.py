"""What the temporal knowledge graph asks the LLM, and how a reply becomes an extraction.

The prompt and its forced-tool form, the parsed :class:`Extraction` (items missing a field are
counted, not kept), and gold facts as an extraction (``oracle=True``). Private to ``baselines``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memsuite.baselines._llm_support import (
    function_tool,
)
from memsuite.baselines._temporal_graph import relation_key
from memsuite.baselines.gold_facts import OracleFact

EXTRACT_PROMPT = """\
You turn a conversation session into knowledge-graph facts. Reply with JSON only:
{"facts": [{"subject": S, "relation": R, "object": O, "fact": F}], \
"dependencies": [{"dependent": X, "source": Y, "if_source_changes": Z}], \
"forget": [{"subject": S, "relation": R}]}
facts: what is stated about an entity (person, system, project, thing). S names the entity, R is a \
short snake_case property (lives_in, uses_database, version), O is the exact value, F one sentence. \
Use the same S and R for the same property every time, so a new value replaces the old one.
dependencies: X depends on Y; Z is the value X takes if Y changes, or null if not stated.
forget: properties the user asked to forget. Use [] for an empty list."""

_NAME = {"type": "string"}
#: The extraction as a forced tool call (``protocol="tools"``; llama.cpp constrains it to the schema).
EXTRACT_TOOL = function_tool(
    "record_graph",
    "Record facts, dependencies and forget requests",
    {
        "facts": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"subject": _NAME, "relation": _NAME, "object": _NAME, "fact": _NAME},
                "required": ["subject", "relation", "object", "fact"],
            },
        },
        "dependencies": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"dependent": _NAME, "source": _NAME, "if_source_changes": _NAME},
                "required": ["dependent", "source"],
            },
        },
        "forget": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"subject": _NAME, "relation": _NAME},
                "required": ["subject"],
            },
        },
    },
)


@dataclass
class Extraction:
    facts: list[dict[str, Any]]
    dependencies: list[dict[str, Any]]
    forget: list[dict[str, Any]]
    invalid: int


def oracle_extraction(facts: list[OracleFact]) -> Extraction:
    """Gold facts as an extraction: values as ``<name> is <value>`` facts (one relation per entity, so
    a new value replaces the old), rules and dependencies as dependency edges, deletions as forgets."""
    out = Extraction([], [], [], 0)
    for fact in facts:
        if fact.sets_value and fact.value:
            out.facts.append(
                {"subject": fact.name, "relation": "is", "object": fact.value, "fact": fact.text}
            )
        elif fact.kind in ("rule", "dependency") and fact.source_name:
            outcome = fact.value if fact.kind == "rule" and fact.value else None
            out.dependencies.append(
                {"dependent": fact.name, "source": fact.source_name, "if_source_changes": outcome}
            )
        elif fact.kind == "delete":
            out.forget.append({"subject": fact.name, "relation": None})
        else:
            out.invalid += 1
    return out


def _text(item: dict[str, Any], key: str) -> str | None:
    value = item.get(key)
    if isinstance(value, int | float) and not isinstance(value, bool):
        value = str(value)
    return value.strip() if isinstance(value, str) and value.strip() else None


def _items(data: dict[str, Any], key: str, out: Extraction) -> list[Any]:
    """The list under ``key`` (missing or null: empty; anything else counts as one invalid item)."""
    value = data.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        out.invalid += 1
        return []
    return value


def parse_extraction(data: Any) -> Extraction | None:
    """The usable items of an extraction reply; None when it is not an extraction object at all.

    Items missing a required field are dropped and counted in ``invalid``.
    """
    if not isinstance(data, dict) or not any(key in data for key in ("facts", "dependencies", "forget")):
        return None
    out = Extraction([], [], [], 0)
    for item in _items(data, "facts", out):
        fields = (
            {k: _text(item, k) for k in ("subject", "relation", "object", "fact")}
            if isinstance(item, dict)
            else {}
        )
        if not fields or not all(fields[k] for k in ("subject", "relation", "object")):
            out.invalid += 1
            continue
        fields["fact"] = (
            fields["fact"]
            or f"{fields['subject']} {fields['relation'].replace('_', ' ')} {fields['object']}."
        )
        if isinstance(item.get("valid_at"), str):
            fields["valid_at"] = item["valid_at"]
        out.facts.append(fields)
    for item in _items(data, "dependencies", out):
        fields = (
            {k: _text(item, k) for k in ("dependent", "source", "if_source_changes", "relation")}
            if isinstance(item, dict)
            else {}
        )
        if not fields or not (fields["dependent"] and fields["source"]):
            out.invalid += 1
            continue
        if str(fields["if_source_changes"]).lower() in ("none", "null", "unknown"):
            fields["if_source_changes"] = None
        out.dependencies.append(fields)
    for item in _items(data, "forget", out):
        subject = _text(item, "subject") if isinstance(item, dict) else None
        if subject is None:
            out.invalid += 1
            continue
        relation = _text(item, "relation")
        out.forget.append({"subject": subject, "relation": relation_key(relation) if relation else None})
    return out
