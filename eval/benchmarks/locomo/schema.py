"""LoCoMo records: a conversation (sessions of turns) and its QA items, as the released file holds them.

Category numbers are the released file's; their names follow the released evaluation code
(snap-research/LoCoMo ``task_eval/evaluation_stats.py``, ``CATEGORY_MAPPING``): 1 multi-hop,
2 temporal, 3 open-domain, 4 single-hop, 5 adversarial. mem0's evaluation (mem0ai/mem0
``evaluation/metrics/llm_judge.py``) uses the same numbers and leaves 5 out of its tables. The LoCoMo
paper's own prose orders the categories differently; the code, which produced every published table,
is what the rows follow.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

# The category numbering is REALTALK's too: it lives below both benchmarks.
from memsuite.eval.retrieval_qa.categories import ADVERSARIAL as ADVERSARIAL
from memsuite.eval.retrieval_qa.categories import CATEGORY_NAMES as CATEGORY_NAMES
from memsuite.eval.retrieval_qa.categories import CATEGORY_ORDER as CATEGORY_ORDER


@dataclass(frozen=True)
class Turn:
    """One dialog turn."""

    dia_id: str
    """``D<session>:<turn>``, the id evidence lists refer to."""
    speaker: str
    text: str
    blip_caption: str | None = None
    """Caption of the image the speaker shared (the image itself is not released)."""


@dataclass(frozen=True)
class Session:
    """One dated session of a conversation."""

    number: int
    """N of ``session_N``."""
    date_time: str
    """``session_N_date_time`` as written, e.g. "1:56 pm on 8 May, 2023"."""
    turns: tuple[Turn, ...]


@dataclass(frozen=True)
class Question:
    """One QA item."""

    index: int
    """Position in the conversation's ``qa`` list (the question id within the unit)."""
    question: str
    category: int
    answer: str | None
    """Gold answer as text (numbers converted); None for adversarial items, which have none."""
    adversarial_answer: str | None
    """Category 5: the tempting wrong answer."""
    evidence: tuple[str, ...]
    """Well-formed evidence dia_ids, after repair (see :mod:`memsuite.eval.benchmarks.locomo.loader`)."""
    raw_evidence: tuple[str, ...] = ()
    """The evidence list as released."""

    @property
    def category_name(self) -> str:
        return CATEGORY_NAMES.get(self.category, f"category-{self.category}")


@dataclass(frozen=True)
class Conversation:
    """One released item: ``sample_id``, its two speakers, sessions in order, questions."""

    sample_id: str
    speaker_a: str
    speaker_b: str
    sessions: tuple[Session, ...]
    questions: tuple[Question, ...]

    @property
    def turns(self) -> list[Turn]:
        """Every turn, in conversation order."""
        return [turn for session in self.sessions for turn in session.turns]


@dataclass
class EvidenceRepairs:
    """What the loader did to malformed evidence ids (reported in the run's summary, never fatal)."""

    repaired: int = 0
    """Malformed entries turned into well-formed ids (``"D8:6; D9:17"`` -> two ids, ``"D:11:26"``)."""
    dropped: int = 0
    """Malformed entries with no unambiguous reading (a bare ``"D"``)."""
    unknown: int = 0
    """Well-formed ids that name no turn of their conversation (kept: they count as not found)."""
    examples: list[dict[str, object]] = field(default_factory=list)
    """``{"sample_id", "question", "raw", "action", "ids"}`` per entry, for the summary."""

    def of(self, sample_ids: Iterable[str], max_questions: int | None = None) -> EvidenceRepairs:
        """The repairs of these conversations only (and of their first ``max_questions`` questions)."""
        chosen = set(sample_ids)
        entries = [
            e
            for e in self.examples
            if e["sample_id"] in chosen and (max_questions is None or int(e["question"]) < max_questions)
        ]
        actions = [e["action"] for e in entries]
        return EvidenceRepairs(
            actions.count("repaired"), actions.count("dropped"), actions.count("unknown"), entries
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "repaired": self.repaired,
            "dropped": self.dropped,
            "unknown": self.unknown,
            "entries": list(self.examples),
        }
