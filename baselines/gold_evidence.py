"""Reference system ``gold_evidence``: only the question's evidence turns as context (the answer
model's ceiling on LoCoMo).

A system cannot know a question's evidence, so this one is a reference row, not a memory: it stores
turns exactly as bm25 does and answers :meth:`reference_context` with the stored turns whose
``dia_id`` is among the evidence ids the protocol passes, in conversation order. The LoCoMo protocol
asks that instead of ``retrieve`` (eval/benchmarks/locomo/protocol.py); a question without
well-formed evidence gets no context. ``search``/``retrieve`` are bm25's (the contract holds).
"""

from __future__ import annotations

from collections.abc import Sequence

from baselines.bm25 import BM25Memory
from memory_systems.records import Hit
from memory_systems.registry import register


@register("gold_evidence")
class GoldEvidenceMemory(BM25Memory):
    """bm25 storage whose reference context is the question's evidence turns."""

    name = "gold_evidence"

    def reference_context(
        self, question: str, *, namespace: str = "default", evidence: Sequence[str] | None = None
    ) -> list[Hit]:
        """The memories whose metadata ``dia_id`` is in ``evidence``, in insertion order."""
        del question
        wanted = set(evidence or ())
        return [
            Hit(r.id, r.text, 0.0, r.metadata)
            for r in self.records(namespace=namespace)
            if (r.metadata or {}).get("dia_id") in wanted
        ]
