"""Published BEAM answer scores printed beside ours: only numbers with a source we can cite.

None yet. The paper (Tavakoli et al., "Beyond a Million Tokens", ICLR 2026, arXiv 2510.27246) reports
its long-context, RAG and LIGHT rows per ability and scale, but its tables could not be read from a
primary source here (the public repository, mohammadtavakoli78/BEAM, ships the data and evaluation
code, not the tables); secondary summaries quote only relative gains. A row belongs here once it is
transcribed from the paper itself, with its answer model, judge model and setting.

How any such row's protocol differs from ours: BEAM answers with each model given the whole
conversation (long-context) or retrieved message pairs (its RAG baseline, dense retrieval) or LIGHT's
three memories, and judges with an LLM per rubric item; it publishes no retrieval figures. Our evidence
tables score retrieval alone, without an LLM, and our answer tables are comparable only for a run with
the same answer and judge models.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class PublishedRow:
    system: str
    scale: str
    overall: float
    """Answer score, %."""
    source: str
    by_ability: dict[str, float] = field(default_factory=dict)


PUBLISHED: tuple[PublishedRow, ...] = ()
PUBLISHED_NOTE = (
    "No published BEAM row is listed: the paper's per-ability tables (arXiv 2510.27246) could not be read "
    "from a primary source here (eval/benchmarks/beam/paper.py). Its protocol differs from a retrieval-only "
    "run: answers from a model given the whole conversation, retrieved message pairs or LIGHT's memories, "
    "each judged per rubric item by an LLM; it reports no retrieval figures."
)
