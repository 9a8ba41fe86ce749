"""langmem 0.0.30's one LLM call per ``MemoryStoreManager`` invocation, served from gold as tool calls.

The manager (``langmem/knowledge/extraction.py``) first searches its store with the session's last
message (no LLM), then hands the conversation and the memories found to trustcall 0.0.39, which makes
one tool-calling request: the system message ``You are a memory subroutine for an AI.`` and langmem's
instructions with the session as ``<session_...>`` in the user message. With memories found, trustcall
appends them to the system message (``<instance id=... schema_type="Memory">``) and offers
``PatchDoc`` (a JSON patch of one memory) and ``RemoveDoc`` (its id) beside ``Memory`` (a new memory),
with ``tool_choice="any"`` (sent as ``required``).

The reply is what a perfect model following those instructions does with the session's gold facts,
worded as the native ``facts`` oracle words them (:func:`memsuite.baselines.gold_facts.worded`):

- a new value of an entity patches the memory shown for that entity (``replace /content``) and removes
  other shown memories of it; with none shown it is a new ``Memory``;
- a deletion request removes every shown memory of the entity's value and is itself kept as a new
  ``Memory`` (unless the same text is shown), shown memories or not: the request is information the
  user gave, and every library's oracle records it (docs/libraries.md, "The oracle's policy");
- a rule or a dependency is a new ``Memory`` unless the same text is shown.

A memory is tied to its entity by its text (a gold fact's wording): what the search did not show, a
perfect model cannot patch or remove either, so that loss is the library's own search. A session
without facts gets a reply without calls.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from memsuite.baselines.adapters import langmem as adapter
from memsuite.baselines.gold_facts import OracleFact, worded
from memsuite.eval.oracle.kinds import OracleRequest, PromptFamily, PromptKind, ToolCalls, Unservable

VERSION = "0.0.30"
TRUSTCALL_VERSION = "0.0.39"
_MARKERS = ("You are a memory subroutine for an AI.", "Enrich, prune, and organize memories based on any new")
_SESSION = re.compile(r"<session_[0-9a-f-]+>\n(?P<body>.*?)\n</session_[0-9a-f-]+>", re.S)
_INSTANCE = re.compile(
    r'<instance id=(?P<id>\S+) schema_type="(?P<kind>[^"]*)">\n(?P<doc>.*?)\n</instance>', re.S
)


def offered_tools(body: dict[str, Any]) -> set[str]:
    """Names of the functions a request offers."""
    return {
        str(t.get("function", {}).get("name"))
        for t in body.get("tools") or []
        if isinstance(t, dict) and isinstance(t.get("function"), dict)
    }


def shown_memories(system_text: str) -> list[tuple[str, str]]:
    """(id, content) of every memory trustcall shows in the system message, in order."""
    shown = []
    for match in _INSTANCE.finditer(system_text):
        try:
            doc = ast.literal_eval(match["doc"])
        except (ValueError, SyntaxError) as exc:
            raise Unservable(f"langmem: a shown memory is not a literal: {match['doc'][:80]!r}") from exc
        content = doc.get("content") if isinstance(doc, dict) else None
        if isinstance(content, str):
            shown.append((match["id"], content))
    return shown


def _patch(memory_id: str, text: str) -> tuple[str, dict[str, Any]]:
    return (
        "PatchDoc",
        {
            "json_doc_id": memory_id,
            "planned_edits": "Replace the content with the new value.",
            "patches": [{"op": "replace", "path": "/content", "value": text}],
        },
    )


def extraction_reply(request: OracleRequest) -> ToolCalls:
    unit = request.need_unit()
    if not all(marker in request.text() for marker in _MARKERS):
        raise Unservable("a trustcall update prompt that is not langmem's")
    match = _SESSION.search(request.text("user"))
    if match is None:
        raise Unservable("langmem extraction prompt without its <session_...> block")
    session = unit.session_in(match["body"])
    if session is None:
        raise Unservable(f"langmem extraction: the session is no session of unit {unit.unit_id!r}")
    tools = offered_tools(request.body)
    by_text: dict[str, OracleFact] = {worded(f): f for s in unit.sessions for f in s.facts}
    shown = [(mid, text, by_text.get(text)) for mid, text in shown_memories(request.text("system"))]
    removed: set[str] = set()
    calls: list[tuple[str, dict[str, Any]]] = []

    def remove(memory_id: str) -> None:
        if "RemoveDoc" in tools and memory_id not in removed:
            removed.add(memory_id)
            calls.append(("RemoveDoc", {"json_doc_id": memory_id}))

    for fact in session.facts:
        text = worded(fact)
        about = [
            mid for mid, _, known in shown if known and known.entity == fact.entity and mid not in removed
        ]
        if fact.kind == "delete":
            for memory_id, shown_text, _ in shown:
                if memory_id in about and shown_text != text:
                    remove(memory_id)
            if not any(shown_text == text for _, shown_text, _ in shown):
                calls.append(("Memory", {"content": text}))
        elif fact.sets_value:
            values = [mid for mid, _, known in shown if known and known.sets_value and mid in about]
            if values and "PatchDoc" in tools:
                calls.append(_patch(values[0], text))
                for memory_id in values[1:]:
                    remove(memory_id)
            else:
                calls.append(("Memory", {"content": text}))
        elif not any(shown_text == text for _, shown_text, _ in shown):
            calls.append(("Memory", {"content": text}))
    return ToolCalls(tuple(calls))


KINDS = (
    # With memories found, trustcall's update prompt: pinned to trustcall, whose format it parses.
    PromptKind(
        name="langmem.extract_updates",
        markers=(
            "Generate JSONPatches to update the existing schema instances.",
            "If you need to extract or insert *new* instances of the schemas",
            "<existing>",
        ),
        reply=extraction_reply,
        library="trustcall",
        version=TRUSTCALL_VERSION,
        sources=("trustcall/_base.py",),
    ),
    PromptKind(
        name="langmem.extract",
        markers=_MARKERS,
        reply=extraction_reply,
        library="langmem",
        version=VERSION,
        sources=("langmem/knowledge/extraction.py",),
    ),
)
FAMILY = PromptFamily(systems=(adapter,), kinds=KINDS)
