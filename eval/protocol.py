"""What the one runner needs from a benchmark, and the row it writes per question.

A benchmark (MEME, DynamicMem, WMB-100K) supplies its work units (episodes, users, categories) and a
protocol: a function that drives one memory system through one unit -- ingest, questions, answers,
judging -- and yields one :class:`Row` per question. The runner (``eval/run/runner.py``) owns the loop
over systems x units, resuming, progress and writing; it never branches on a system or benchmark name.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

from memsuite.memory_systems.base import MemorySystem
from memsuite.memory_systems.llm.protocol import ChatClient

#: Version of the row layout in rows.jsonl.
ROW_SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Row:
    """One (system, unit, question) result: a line of ``rows.jsonl``."""

    system: str
    """Registry name (plus variant suffix) of the memory system."""
    benchmark: str
    """Registry name of the benchmark."""
    unit_id: str
    """Work unit: MEME episode id, DynamicMem user/checkpoint, WMB category."""
    question_id: str
    """Question id, unique within the unit."""
    question: str
    """The question or query text."""
    gold: Any
    """Gold answer (string or structure as the benchmark defines it)."""
    context: str
    """What the memory system returned (the context handed to the answer LLM)."""
    answer: str | None = None
    """The answer LLM's answer, or None when the protocol asks no LLM (retrieval-only)."""
    verdicts: dict[str, Any] = field(default_factory=dict)
    """Judge name -> verdict dict (at least ``correct``: bool); also protocol labels."""
    usage: dict[str, Any] = field(default_factory=dict)
    """Per-row resource use: latency_ms of the retrieval, answer tokens, ..."""
    metadata: dict[str, Any] = field(default_factory=dict)
    """Benchmark-specific fields (task type, phase before/after, qtype, ...)."""
    schema_version: int = ROW_SCHEMA_VERSION

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Row:
        return cls(**data)


@dataclass
class RunContext:
    """What a protocol gets besides the system and the unit. Passed explicitly, never global."""

    benchmark: str = ""
    """The benchmark's name, from its declaration: the protocol writes it in its rows, and its judges
    are looked up under it."""
    k: int = 5
    """Retrieval depth handed to ``retrieve``/``search``."""
    answer_llm: ChatClient | None = None
    """An ``LLMClient`` for answers, or None (retrieval-only scoring)."""
    judges: tuple[str, ...] = ("rule",)
    """Judge names to apply to every row (the benchmark's definition names them)."""
    judge_llm: ChatClient | None = None
    """An ``LLMClient`` for LLM judges (the run's judge_llm, else its answer_llm), or None."""
    seed: int = 0
    workdir: Path | None = None
    """Scratch folder of this unit (snapshots, saved stores)."""
    options: dict[str, Any] = field(default_factory=dict)
    """Benchmark-specific settings from the config."""


class Benchmark(Protocol):
    """A benchmark as the runner sees it (its name comes from its declaration, in ``RunContext``)."""

    def units(self) -> list[str]:
        """Ids of the work units, in order."""
        ...

    def run_unit(self, system: MemorySystem, unit_id: str, ctx: RunContext) -> Iterator[Row]:
        """Drive ``system`` through one unit from a reset state; yield one row per question."""
        ...

    def summarize(self, rows: list[Row]) -> dict[str, Any]:
        """Scores of a set of rows, in the benchmark's own result layout."""
        ...
