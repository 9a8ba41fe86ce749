"""cognee 1.6.5's two LLM calls per chunk in ``cognify``, served from gold.

The Cognee adapter adds a session as one text (``"role: content"`` lines); cognee cuts it into chunks
and, for each, asks (system prompt plus the JSON schema cognee appends to it, the chunk as the user
message; ``litellm_native``'s JSON fallback in ``structured_output_framework``):

- ``cognee.summarize`` (``prompts/summarize_content.txt``, reply ``SummarizedContent``): a perfect
  summary of a chunk lists the gold facts the chunk states, worded as the native ``facts`` oracle
  words them (:func:`memsuite.baselines.gold_facts.worded`), under the prompt's two sections;
- ``cognee.graph`` (``prompts/generate_graph_prompt.txt``, reply ``KnowledgeGraph``): one node per
  entity a stated fact is about and one per value, and a ``has_value`` edge from the entity to its
  value described by the worded fact; a fact without a value (a deletion) is its entity's node only.

A fact is stated by a chunk when its value (for a deletion, its entity's name) occurs in it. cognee's
``search`` with ``CHUNKS`` makes no LLM call. The markers are checked against the cognee of the
Cognee adapter's own venv (:data:`memsuite.eval.oracle.kinds.OWN_VENV_LIBRARIES`).
"""

from __future__ import annotations

from typing import Any

from memsuite.baselines.adapters import cognee as adapter
from memsuite.baselines.gold_facts import OracleFact, worded
from memsuite.eval.oracle.chunks import facts_of_chunk
from memsuite.eval.oracle.kinds import OWN_VENV_LIBRARIES, OracleRequest, PromptFamily, PromptKind, Unservable

VERSION = "1.6.5"
LIBRARY = "cognee"
_PROMPTS = "cognee/infrastructure/llm/prompts"
NO_FACTS = "This chunk states no fact to remember."


OWN_VENV_LIBRARIES[LIBRARY] = adapter.site_packages


def summary(facts: list[OracleFact]) -> dict[str, Any]:
    if not facts:
        return {"summary": NO_FACTS}
    names = ", ".join(dict.fromkeys(f.name for f in facts))
    lines = "\n".join(f"- {worded(f)}" for f in facts)
    return {"summary": f"This chunk is about:\n- Topics: {names}\n\nFacts:\n{lines}"}


def graph(facts: list[OracleFact]) -> dict[str, Any]:
    nodes: dict[str, dict[str, str]] = {}
    edges = []
    for fact in facts:
        nodes.setdefault(
            fact.name, {"id": fact.name, "name": fact.name, "type": "Entity", "description": worded(fact)}
        )
        if fact.value:
            nodes.setdefault(
                fact.value, {"id": fact.value, "name": fact.value, "type": "Value", "description": fact.value}
            )
            edges.append(
                {
                    "source_node_id": fact.name,
                    "target_node_id": fact.value,
                    "relationship_name": "has_value",
                    "description": worded(fact),
                }
            )
    return {"nodes": list(nodes.values()), "edges": edges}


def _chunk(request: OracleRequest) -> str:
    text = request.text("user")
    if not text.strip():
        raise Unservable("cognee prompt without the chunk as its user message")
    return text


def summarize_reply(request: OracleRequest) -> dict[str, Any]:
    return summary(facts_of_chunk(request.need_unit(), _chunk(request), "cognee"))


def graph_reply(request: OracleRequest) -> dict[str, Any]:
    return graph(facts_of_chunk(request.need_unit(), _chunk(request), "cognee"))


def _kind(name: str, markers: tuple[str, ...], reply: Any, source: str) -> PromptKind:
    return PromptKind(
        name=f"cognee.{name}",
        markers=markers,
        reply=reply,
        library=LIBRARY,
        version=VERSION,
        sources=(f"{_PROMPTS}/{source}",),
        roles=("system",),
    )


KINDS = (
    _kind(
        "summarize",
        ("Summarize the chunk for retrieval.", "Second-section rules:"),
        summarize_reply,
        "summarize_content.txt",
    ),
    _kind(
        "graph",
        (
            "You are a top-tier algorithm designed for extracting information in structured formats",
            "**Nodes** represent entities and concepts.",
        ),
        graph_reply,
        "generate_graph_prompt.txt",
    ),
)
FAMILY = PromptFamily(systems=(adapter,), kinds=KINDS)
