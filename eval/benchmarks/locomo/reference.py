"""LoCoMo's reference rows: systems that are given what no memory can know, to bound the others.

The published LoCoMo comparisons (mem0 arXiv 2504.19413) print a "full-context" row, the whole
conversation handed to the answer model; a gold-evidence row (only the question's evidence turns) is
the answer model's ceiling. Both are registered memory systems, so configs name them like any other
(``full_context``, ``gold_evidence``), but they declare :class:`ReferenceContext`: the LoCoMo protocol
asks them :meth:`ReferenceContext.reference_context` instead of ``retrieve``, once per question, and
cuts the result to the answer model's window by dropping the oldest turns first.

They store what ``ingest_session`` gives them exactly as bm25 does (one document per turn in LoCoMo's
RAG format) and keep bm25's ``search`` / ``retrieve``, so the memory-system contract holds for them
anywhere else.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

from memsuite.baselines.bm25 import BM25Memory
from memsuite.memory_systems.records import Hit
from memsuite.memory_systems.registry import register


class ReferenceContext(ABC):
    """A reference row: its context comes from the conversation and the question's gold evidence."""

    @abstractmethod
    def reference_context(
        self, question: str, *, namespace: str = "default", evidence: Sequence[str] | None = None
    ) -> list[Hit]:
        """The turns handed to the answer model, in conversation order.

        Args:
            question: The question asked.
            namespace: The conversation's namespace.
            evidence: The question's gold evidence ``dia_id``s.
        """


@register("full_context")
class FullContextMemory(BM25Memory, ReferenceContext):
    """bm25 storage whose reference context is the whole namespace, oldest first."""

    name = "full_context"

    def reference_context(
        self, question: str, *, namespace: str = "default", evidence: Sequence[str] | None = None
    ) -> list[Hit]:
        """Every memory of ``namespace`` in insertion order (``question`` and ``evidence`` unused)."""
        del question, evidence
        return [Hit(r.id, r.text, 0.0, r.metadata) for r in self.records(namespace=namespace)]


@register("gold_evidence")
class GoldEvidenceMemory(BM25Memory, ReferenceContext):
    """bm25 storage whose reference context is the question's evidence turns.

    A question without well-formed evidence gets no context.
    """

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
