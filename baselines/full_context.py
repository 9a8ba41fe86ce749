"""Reference system ``full_context``: the whole conversation as the answer model's context.

The published LoCoMo comparisons (mem0 arXiv 2504.19413, its "full-context" row; LoCoMo's own
full-conversation runs) hand the answer model the entire conversation, cut to its window. This system
stores what ``ingest_session`` gives it exactly as bm25 does (one document per turn when the benchmark
gives turn documents) and answers :meth:`reference_context` with every stored memory in order; the
LoCoMo protocol asks that instead of ``retrieve`` and drops the oldest turns first when the window is
too small (eval/benchmarks/locomo/protocol.py).

``search``/``retrieve`` are bm25's, so the system honours the memory-system contract anywhere else.
"""

from __future__ import annotations

from collections.abc import Sequence

from baselines.bm25 import BM25Memory
from memory_systems.records import Hit
from memory_systems.registry import register


@register("full_context")
class FullContextMemory(BM25Memory):
    """bm25 storage whose reference context is the whole namespace, oldest first."""

    name = "full_context"

    def reference_context(
        self, question: str, *, namespace: str = "default", evidence: Sequence[str] | None = None
    ) -> list[Hit]:
        """Every memory of ``namespace`` in insertion order (``question`` and ``evidence`` unused)."""
        del question, evidence
        return [Hit(r.id, r.text, 0.0, r.metadata) for r in self.records(namespace=namespace)]
