"""Typed records of WMB-100K v2.1: conversation turns, questions, Part A documents (WMB-100K v2.1 README).

Field names are the release's own (``datasets/{category}.jsonl``, ``datasets/all_questions.json``,
``documents/{domain}.txt`` in wontopos/WMB-100K; see :mod:`memsuite.eval.benchmarks.wmb.loader`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

#: Question types of v2.1 in the reference scorer's reporting order (scripts/score.py).
QTYPES = (
    "S1Situational",
    "S2MultiMemory",
    "S3CrossCategory",
    "S4Temporal",
    "S5Adversarial",
    "S6Contradiction",
    "S7ReasoningChain",
    "FalseMemory",
)
#: The situational types: judged on the memories returned (everything but the false-memory probes).
SITUATIONAL_QTYPES = QTYPES[:7]
#: The scored type of the README's headline ("Part B: 1,000 S1 questions x 0.1").
HEADLINE_QTYPE = "S1Situational"
FALSE_MEMORY = "FalseMemory"

#: Conversation categories, in the order of datasets/meta.json and scripts/adapter_template.py.
CATEGORIES = (
    "daily_life",
    "relationships",
    "work_career",
    "health_fitness",
    "travel_places",
    "media_taste",
    "finance_goals",
    "education_skills",
    "pets_hobbies",
    "beliefs_values",
)
#: Quick mode's categories: the reference adapters' "first three" (src/types.rs lists the same set).
QUICK_CATEGORIES = CATEGORIES[:3]
#: A question id containing this is a Part A (document) question (scripts/score.py).
PART_A_MARKER = ".DOC."


@dataclass(frozen=True)
class Turn:
    """One line of a category file: a conversation turn."""

    line: int
    """1-based line number in its file. The key of a turn: ``turn_id`` repeats within a file."""
    turn_id: int
    """The release's turn id; NOT unique (overlapping blocks restart it: ..., 102, 103, 101, 102, ...)."""
    category: str
    """Conversation category (daily_life, ...)."""
    speaker: str
    """"user" or "assistant"."""
    text: str
    """What was said (may be empty; empty turns are not stored)."""
    embedded_facts: tuple[str, ...] = ()
    """Ids of the benchmark facts this turn states (e.g. "daily_life.004")."""
    fact_type: str | None = None
    """How the fact is introduced ("initial", ...), or None for filler."""

    @property
    def memory_text(self) -> str:
        """The text stored as one memory: ``"{speaker}: {text}"`` (the reference adapters' format)."""
        return f"{self.speaker}: {self.text}"


@dataclass(frozen=True)
class Conversation:
    """The turns loaded from one category file (the whole file or a prefix of it)."""

    category: str
    """Category of every turn."""
    turns: tuple[Turn, ...]
    """Turns in file order."""
    path: Path | None = None
    """File the turns came from."""
    _lines_by_id: dict[int, tuple[int, ...]] = field(
        init=False, repr=False, compare=False, hash=False, default_factory=dict
    )
    _turn_by_line: dict[int, Turn] = field(
        init=False, repr=False, compare=False, hash=False, default_factory=dict
    )

    def __post_init__(self) -> None:
        lines: dict[int, list[int]] = {}
        for turn in self.turns:
            lines.setdefault(turn.turn_id, []).append(turn.line)
            self._turn_by_line[turn.line] = turn
        self._lines_by_id.update((turn_id, tuple(found)) for turn_id, found in lines.items())

    def lines_of(self, turn_id: int) -> tuple[int, ...]:
        """Every line carrying ``turn_id`` (empty when none does): a gold id matches all of them."""
        return self._lines_by_id.get(turn_id, ())

    def turn_at(self, line: int) -> Turn:
        """The turn on ``line``.

        Raises:
            KeyError: No turn was loaded from that line.
        """
        return self._turn_by_line[line]

    def has_turn_ids(self, turn_ids: Iterable[int]) -> bool:
        """True when every id is carried by at least one loaded line."""
        return all(turn_id in self._lines_by_id for turn_id in turn_ids)


@dataclass(frozen=True)
class Question:
    """One entry of all_questions.json."""

    id: str
    """Unique id, e.g. "daily_life.S1.001", "daily_life_relationships.S3.001", "law.DOC.S1.004"."""
    category: str
    """Category (Part B) or document domain (Part A) whose memories answer it."""
    qtype: str
    """One of :data:`QTYPES`."""
    text: str
    """The situational question, used verbatim as the search query."""
    gold_answer: str
    """Reference answer; never shown to the judge (README, fairness note)."""
    required_memories: tuple[str, ...]
    """What the returned memories must contain; S2-S7 entries may start with "turn_N: ", S3 entries
    with "from <category>: ". Empty for false-memory probes."""
    gold_turn_ids: tuple[int, ...]
    """Turn ids of the evidence in ``category``'s file (empty for S3, Part A and probes)."""
    points: float
    """Points per correct answer (0.1; 0 for probes)."""
    false_penalty: float
    """Penalty per false positive (0.25 for probes, else 0)."""
    category2: str | None = None
    """Second category of an S3 cross-category question; both namespaces are searched."""

    @property
    def is_part_a(self) -> bool:
        """A Part A (documents) question: its id contains ``.DOC.``."""
        return PART_A_MARKER in self.id

    @property
    def is_false_memory(self) -> bool:
        """A false-memory probe: correct iff nothing is returned."""
        return self.qtype == FALSE_MEMORY

    @property
    def namespaces(self) -> tuple[str, ...]:
        """Namespaces to search, in order: the category, then ``category2`` when it differs."""
        if self.category2 and self.category2 != self.category:
            return (self.category, self.category2)
        return (self.category,)


@dataclass(frozen=True)
class Document:
    """One Wikipedia article of a Part A domain file."""

    domain: str
    """Document domain (law, history, ...)."""
    title: str
    """Article title from the banner above it."""
    text: str
    """Article text, stripped."""
    index: int
    """Position of the article in its file, from 0."""
