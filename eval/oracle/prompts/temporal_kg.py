"""``temporal_kg``'s one LLM call, served from gold (the paradigm's ``oracle: memory`` mode, as a reply).

``temporal_kg.extract``: the gold extraction (:func:`memsuite.baselines.temporal_kg.oracle_extraction`)
of the facts of the session the chunk is, on the chunk holding its first turn.
"""

from __future__ import annotations

from typing import Any

from memsuite.baselines import temporal_kg as paradigm
from memsuite.eval.oracle.chunks import session_facts
from memsuite.eval.oracle.kinds import OracleRequest, OwnPrompt, PromptFamily, PromptKind


def temporal_reply(request: OracleRequest) -> dict[str, Any]:
    extraction = paradigm.oracle_extraction(list(session_facts(request, request.text("user"))))
    return {"facts": extraction.facts, "dependencies": extraction.dependencies, "forget": extraction.forget}


KINDS = (
    PromptKind(
        name="temporal_kg.extract",
        markers=(
            "You turn a conversation session into knowledge-graph facts.",
            '"dependencies": [{"dependent": X, "source": Y, "if_source_changes": Z}]',
        ),
        reply=temporal_reply,
        prompts=(OwnPrompt(paradigm, "EXTRACT_PROMPT"),),
    ),
)
FAMILY = PromptFamily(systems=(paradigm,), kinds=KINDS)
