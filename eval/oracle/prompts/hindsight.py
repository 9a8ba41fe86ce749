"""hindsight-api-slim 1.1.0's LLM call in ``retain``, served from gold.

The Hindsight adapter retains a session as one document (``"role: content"`` lines); Hindsight cuts it
into chunks (3,000 characters by default, so a MEME session is one) and, for each, makes one call in its
default ``concise`` extraction mode (``engine/retain/fact_extraction.py``: the system prompt
``CONCISE_FACT_EXTRACTION_PROMPT``, the user message ``_build_user_message``'s "Extract facts from the
following chunk." with the chunk after ``Content:``; ``response_format`` a JSON schema of
``FactExtractionResponse``). The entities of each fact come in the same reply, and Hindsight resolves
them against the bank's entities without an LLM; consolidation (observations) is off in the adapter,
and ``recall`` makes no LLM call.

A perfect extraction lists each gold fact the chunk states as one fact, worded as the native ``facts``
oracle words them (:func:`memsuite.baselines.gold_facts.worded`) in ``what``, the other dimensions
"N/A" (the prompt's word for none), ``fact_type`` ``world`` (the prompt's class for what the user
states), and as entities what the wording names: the entity, its value and, for a rule or dependency,
the upstream entity. A fact is stated by a chunk when its value (for a
deletion, its entity's name) occurs in it. The markers are checked against the Hindsight of the
adapter's own venv (:data:`memsuite.eval.oracle.kinds.OWN_VENV_LIBRARIES`).
"""

from __future__ import annotations

from typing import Any

from memsuite.baselines.adapters import hindsight as adapter
from memsuite.baselines.gold_facts import OracleFact, worded
from memsuite.eval.oracle.chunks import facts_of_chunk
from memsuite.eval.oracle.kinds import OWN_VENV_LIBRARIES, OracleRequest, PromptFamily, PromptKind, Unservable

VERSION = "1.1.0"
LIBRARY = "hindsight-api-slim"
_CONTENT = "\nContent:\n"

OWN_VENV_LIBRARIES[LIBRARY] = adapter.site_packages


def entities(fact: OracleFact) -> list[str]:
    """What the fact's wording names: its entity, its value and, for a rule or dependency, the upstream
    entity it is tied to (the prompt asks for the people, places and concepts a fact mentions)."""
    return [e for e in dict.fromkeys((fact.name, fact.value, fact.source_name)) if e]


def extraction(facts: list[OracleFact]) -> dict[str, Any]:
    return {
        "facts": [
            {
                "what": worded(fact),
                "when": "N/A",
                "where": "N/A",
                "who": "N/A",
                "why": "N/A",
                "fact_kind": "conversation",
                "fact_type": "world",
                "entities": entities(fact),
            }
            for fact in facts
        ]
    }


def _chunk(request: OracleRequest) -> str:
    text = request.text("user")
    if _CONTENT not in text:
        raise Unservable("hindsight extraction prompt without its Content: section")
    return text.split(_CONTENT, 1)[1]


def extraction_reply(request: OracleRequest) -> dict[str, Any]:
    return extraction(facts_of_chunk(request.need_unit(), _chunk(request), "hindsight"))


KINDS = (
    PromptKind(
        name="hindsight.extract_facts",
        markers=(
            "Extract SIGNIFICANT facts from text. Be SELECTIVE - only extract facts worth remembering",
            "FACT FORMAT - BE CONCISE",
            "Extract facts from the following chunk.",
        ),
        reply=extraction_reply,
        library=LIBRARY,
        version=VERSION,
        sources=("hindsight_api/engine/retain/fact_extraction.py",),
        roles=("system", "user"),
    ),
)
FAMILY = PromptFamily(systems=(adapter,), kinds=KINDS)
