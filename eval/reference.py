"""Reference rows: systems that are given what no memory can know, to bound the others.

Published comparisons print a "full-context" row, the whole history handed to the answer model
(LoCoMo: mem0 arXiv 2504.19413; LongMemEval: its paper's long-context setting); a gold-evidence row,
only the question's evidence, is the answer model's ceiling (LongMemEval's oracle setting). Both are
registered memory systems, so configs name them like any other (``full_context``, ``gold_evidence``),
but they declare :class:`ReferenceContext` and its :attr:`~ReferenceContext.scope`, and a benchmark
builds their context instead of calling ``retrieve``:

- LoCoMo asks :meth:`ReferenceContext.reference_context` for the stored turns, once per question;
- LongMemEval renders the haystack sessions in the scope (both speakers, with their dates) from its
  own data, since its corpus documents hold only the user's side.

Either cuts the context to the answer model's window by dropping the oldest part first.

They store what ``ingest_session`` gives them exactly as bm25 does and keep bm25's ``search`` /
``retrieve``, so the memory-system contract holds for them anywhere else.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import ClassVar, Literal

from memsuite.baselines.bm25 import BM25Memory
from memsuite.memory_systems.records import Hit
from memsuite.memory_systems.registry import register


class ReferenceContext(ABC):
    """A reference row: its context comes from the conversation and the question's gold evidence."""

    #: What the answer model is given: the whole history, or only the question's gold evidence.
    scope: ClassVar[Literal["all", "evidence"]]

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
    scope = "all"

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
    scope = "evidence"

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
