"""The WMB-100K protocol: units are categories; one row per Part B question (WMB-100K v2.1 README).

Per unit (a category), as the reference adapters do (scripts/adapter_template.py): store every
non-empty turn as ``"{speaker}: {text}"`` under namespace = category, then search each Part B
question of the category with ``search(text, k, namespace=category)`` and record the memories
returned and the latency of the search call alone (``time.perf_counter``, ms).

S3 cross-category questions also search ``category2`` and merge the two result lists without
duplicate texts. The runner builds a fresh system per unit, so a unit ingests every namespace its
questions search: with ``cross_category="ingest"`` (default) a category's unit also ingests the
partner categories of its S3 questions (more ingestion, the full protocol); ``"skip"`` leaves S3
questions with a second category out. The reference template times both searches of an S3 question
together, and so does this protocol.

Abstention: the contract has no "nothing relevant" answer, so a per-system relevance cutoff
(``min_score``, from ``ctx.options`` or the constructor: one number, or ``{system name: number,
"default": number}``) drops hits scoring below it. Every hit is recorded with its score before the
cutoff, so :func:`memsuite.eval.benchmarks.wmb.calibration.calibrate` can choose the cutoff offline.

Row layout: ``context`` = the returned memories joined with newlines (what the judge reads, before its
3,000-character cut); ``usage`` = ``{"latency_ms", "search_calls"}``; ``metadata`` = ``qtype``,
``category``, ``category2``, ``part``, ``namespaces``, ``required_memories``, ``gold_turn_ids``,
``k``, ``min_score``, ``memories`` (returned, after the cutoff), ``hits`` (every hit before it:
text, score, namespace, id, lines, turn_ids, gold) and ``gold_turn_retrieved`` (a returned memory
sits on a line carrying a gold turn id; None without gold ids) and ``context_is_whole_memory``.
Verdicts: ``rule`` (the coverage judge) and, when asked for, ``llm`` (defined in :mod:`.judges`
and run by the shared step, :mod:`memsuite.eval.answer`: a failed judge call gives ``correct: None`` with
the failure kind, left out of the scores); probes get "correct iff nothing returned" under every
judge name.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from memsuite.eval.answer import judge, memory_flags
from memsuite.eval.benchmarks.wmb.catalogue import DATA
from memsuite.eval.benchmarks.wmb.judges import JudgeFn, WMBCase
from memsuite.eval.benchmarks.wmb.loader import (
    find_questions_file,
    find_turn_file,
    gold_turns_loaded,
    load_questions,
    load_turns,
)
from memsuite.eval.benchmarks.wmb.schema import CATEGORIES, Conversation, Question
from memsuite.eval.benchmarks.wmb.scoring import WMB_LAYOUT, kept_hits, result_json, wmb_scores
from memsuite.eval.budget import hits_within
from memsuite.eval.data.shared import data_path, shared_data_file
from memsuite.eval.protocol import JudgeScores, Row, RunContext, Scores
from memsuite.memory_systems.base import MemorySystem
from memsuite.memory_systems.errors import ConfigError
from memsuite.memory_systems.records import Hit
from memsuite.memory_systems.tokens import count_tokens

logger = logging.getLogger(__name__)

QUESTION_SETS = ("all", "gold_in_turns")
CROSS_CATEGORY_MODES = ("ingest", "skip")
JUDGE_MODES = ("quick", "official")
#: The shared dev sample's folder under the shared data folder.


def resolve_min_score(option: Any, system_name: str) -> float | None:
    """The abstention cutoff of one system.

    Args:
        option: None (no cutoff), a number (every system), or ``{system name: number, "default": number}``.
        system_name: The system's registry name.

    Returns:
        The cutoff, or None when none applies.

    Raises:
        ConfigError: The option or the system's entry is not a number.
    """
    value = option
    if isinstance(option, Mapping):
        value = option.get(system_name, option.get("default"))
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(f"wmb min_score for {system_name!r} must be a number or null, got {value!r}")
    return float(value)


def _choice(name: str, value: Any, choices: Sequence[str]) -> str:
    if value not in choices:
        raise ConfigError(f"wmb {name} must be one of {', '.join(choices)}, got {value!r}")
    return value


def _under(root: Path | None, path: str | Path) -> Path:
    path = Path(path)
    return path if path.is_absolute() or root is None else root / path


def default_data_dir() -> Path:
    """The shared dev sample folder (:func:`memsuite.eval.data.shared.shared_data_file`).

    Raises:
        ConfigError: It is not there; the message names the variable to set and the release.
    """
    release = "a clone of wontopos/WMB-100K (or its datasets/ folder)"
    return shared_data_file(
        DATA.dev, default=DATA.default, benchmark="wmb", release=release, folder=True, option=DATA.option
    )


class WMBBenchmark:
    """WMB-100K Part B as units (categories) and a protocol, for the runner.

    Args:
        data_dir: A clone of wontopos/WMB-100K, its ``datasets/`` folder, or any folder holding the
            files named below. A relative path is taken from the current directory. Default: the
            shared dev sample ``wmb100k`` (:func:`memsuite.eval.data.shared.shared_data_file`).
        categories: Units to run, in order; default every category that has Part B questions, in the
            release's order.
        questions_file: The questions (default ``all_questions.json`` found in ``data_dir``); relative
            paths are under ``data_dir``.
        turn_files: ``{category: file}`` overriding ``{category}.jsonl``, e.g. a prefix
            ``daily_life.prefix.jsonl``; relative paths are under ``data_dir``.
        questions: "all" Part B questions of a category, or "gold_in_turns": only those answerable
            from the loaded turns (see :func:`memsuite.eval.benchmarks.wmb.loader.select_within_turns`) -- for
            prefixes and ``max_turns``.
        cross_category: "ingest" the partner categories S3 questions search, or "skip" those questions.
        min_score: Default abstention cutoff (``ctx.options["min_score"]`` wins); see
            :func:`resolve_min_score`.
        batch_size: Turns per ``store`` call.
        max_turns: Load at most this many turns per category (a prefix), or all.
        judge_mode: "quick" (one LLM judge) or "official" (three, majority of two).
        llm_judges: Callables prompt -> reply for the ``llm`` judge (the LLM layer plugs in here).

    Raises:
        ConfigError: A bad option (the message names it and the valid choices).
        DatasetError: The questions file is missing or malformed.
    """

    def __init__(
        self,
        data_dir: str | Path | None = None,
        *,
        categories: Sequence[str] | None = None,
        questions_file: str | Path | None = None,
        turn_files: Mapping[str, str | Path] | None = None,
        questions: str = "all",
        cross_category: str = "ingest",
        min_score: Any = None,
        batch_size: int = 1000,
        max_turns: int | None = None,
        judge_mode: str = "quick",
        llm_judges: Sequence[JudgeFn] | None = None,
    ) -> None:
        if data_dir is None and (questions_file is None or not Path(questions_file).is_absolute()):
            data_dir = default_data_dir()
        self.data_dir = (
            data_path(data_dir, benchmark="wmb", option="data_dir") if data_dir is not None else None
        )
        self.question_set = _choice("questions", questions, QUESTION_SETS)
        self.cross_category = _choice("cross_category", cross_category, CROSS_CATEGORY_MODES)
        self.judge_mode = _choice("judge_mode", judge_mode, JUDGE_MODES)
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ConfigError(f"wmb batch_size must be a positive integer, got {batch_size!r}")
        if max_turns is not None and (
            isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1
        ):
            raise ConfigError(f"wmb max_turns must be a positive integer or null, got {max_turns!r}")
        self.batch_size, self.max_turns = batch_size, max_turns
        resolve_min_score(min_score, "default")  # fail at construction, not mid-run
        self.min_score = min_score
        self.llm_judges = tuple(llm_judges or ())
        self.turn_files = {cat: _under(self.data_dir, p) for cat, p in (turn_files or {}).items()}
        path = (
            _under(self.data_dir, questions_file)
            if questions_file is not None
            else find_questions_file(self.data_dir)
        )
        self.questions = tuple(q for q in load_questions(path) if not q.is_part_a)
        with_questions = {q.category for q in self.questions}
        known = [c for c in CATEGORIES if c in with_questions] + sorted(with_questions - set(CATEGORIES))
        if categories is None:
            categories = known
        if isinstance(categories, str):
            categories = [categories]
        for category in categories:
            if category not in with_questions and category not in CATEGORIES:
                raise ConfigError(f"wmb: unknown category {category!r}; known: {', '.join(known)}")
        self.categories = tuple(categories)
        self._conversations: dict[str, Conversation] = {}

    # -- data ------------------------------------------------------------------------------------
    def units(self) -> list[str]:
        """The categories to run, in order."""
        return list(self.categories)

    def conversation(self, category: str) -> Conversation:
        """The loaded turns of a category (read once, then kept).

        Raises:
            DatasetError: The file is missing or malformed.
        """
        if category not in self._conversations:
            if category in self.turn_files:
                path = self.turn_files[category]
            elif self.data_dir is not None:
                path = find_turn_file(self.data_dir, category)
            else:
                raise ConfigError(f"wmb: no turn file for {category!r}: give data_dir or turn_files")
            self._conversations[category] = load_turns(path, category=category, limit=self.max_turns)
        return self._conversations[category]

    def questions_of(self, category: str) -> list[Question]:
        """The Part B questions a category's unit asks, after the question-set and S3 options."""
        chosen = []
        for question in self.questions:
            if question.category != category:
                continue
            if len(question.namespaces) > 1 and self.cross_category == "skip":
                continue
            if self.question_set == "gold_in_turns" and not (
                question.is_false_memory or gold_turns_loaded(question, self.conversation(category))
            ):
                continue
            chosen.append(question)
        return chosen

    # -- protocol --------------------------------------------------------------------------------
    def run_unit(self, system: MemorySystem, unit_id: str, ctx: RunContext) -> Iterator[Row]:
        """Ingest the category (and S3 partners), then search, judge and yield one row per question.

        Raises:
            ConfigError: Unknown unit.
            DatasetError: A turn file is missing or malformed.
        """
        if unit_id not in self.categories:
            raise ConfigError(f"wmb: unknown unit {unit_id!r}; units: {', '.join(self.categories)}")
        if not ctx.judges:
            ctx = replace(ctx, judges=("rule",))
        questions = self.questions_of(unit_id)
        # Namespaces this unit's questions search, the unit's own first (a fresh system per unit).
        namespaces = [unit_id]
        for question in questions:
            namespaces.extend(ns for ns in question.namespaces if ns not in namespaces)
        for namespace in namespaces:
            self._ingest(system, namespace)
        min_score = resolve_min_score(ctx.options.get("min_score", self.min_score), system.name)
        text_lines = {ns: _lines_by_text(self.conversation(ns)) for ns in namespaces}
        flags = memory_flags(system, unit_id, ctx.k)  # queries do not change memory: count it once
        for question in questions:
            yield self._ask(system, question, ctx, min_score, text_lines, flags)

    def _ingest(self, system: MemorySystem, namespace: str) -> None:
        conversation = self.conversation(namespace)
        turns = [turn for turn in conversation.turns if turn.text.strip()]
        system.reset(namespace=namespace)
        with system.timed("ingest"):
            for start in range(0, len(turns), self.batch_size):
                batch = turns[start : start + self.batch_size]
                system.store(
                    [turn.memory_text for turn in batch],
                    namespace=namespace,
                    metadata=[{"category": namespace, "line": t.line, "turn_id": t.turn_id} for t in batch],
                )
            system.finalize(namespace=namespace)
            # A system that indexes lazily (bm25s rebuilds on the first search after a change) would
            # bill that to the first question; the README times search calls "not including
            # ingestion", so one untimed, unrecorded search here moves it into ingestion.
            system.search("warm-up", k=1, namespace=namespace)
        logger.info("%s: stored %d turns of %s", system.name, len(turns), namespace)

    def _ask(
        self,
        system: MemorySystem,
        question: Question,
        ctx: RunContext,
        min_score: float | None,
        text_lines: Mapping[str, Mapping[str, tuple[int, ...]]],
        flags: Mapping[str, Any],
    ) -> Row:
        k = ctx.k
        gold_lines = set()
        for turn_id in question.gold_turn_ids:
            gold_lines.update(self.conversation(question.category).lines_of(turn_id))
        hits: list[dict[str, Any]] = []
        latency_ms = 0.0
        for namespace in question.namespaces:
            with system.timed("retrieve"):
                started = time.perf_counter()
                found = system.search(question.text, k=k, namespace=namespace)
                latency_ms += (time.perf_counter() - started) * 1000
            conversation = self.conversation(namespace)
            for hit in found:
                meta = hit.metadata or {}
                if meta.get("category") == namespace and isinstance(meta.get("line"), int):
                    lines: tuple[int, ...] = (meta["line"],)
                else:  # a system that rewrites metadata: locate the memory by its exact text
                    lines = text_lines[namespace].get(hit.text, ())
                hits.append(
                    {
                        "text": hit.text,
                        "score": float(hit.score),
                        "namespace": namespace,
                        "id": hit.id,
                        "lines": list(lines),
                        "turn_ids": [conversation.turn_at(line).turn_id for line in lines],
                        "gold": namespace == question.category and bool(gold_lines.intersection(lines)),
                    }
                )
        returned = kept_hits(hits, min_score, merge=len(question.namespaces) > 1)
        # The run's context budget, in rank order, on what the cutoff kept.
        handed = hits_within([Hit(str(h["id"]), h["text"], h["score"]) for h in returned], ctx.context_tokens)
        returned = returned[: len(handed.hits)]  # a prefix: the budget keeps whole hits in rank order
        memories = [hit.text for hit in handed.hits]
        context = "\n".join(memories)
        case = WMBCase(question, tuple(memories), self.llm_judges, self.judge_mode == "official")
        usage: dict[str, Any] = {"latency_ms": latency_ms, "search_calls": len(question.namespaces)}
        verdicts = judge(ctx, case, None, context, usage)
        return Row(
            system=system.name,
            benchmark=ctx.benchmark,
            unit_id=question.category,  # == the unit: a unit asks its own category's questions
            question_id=question.id,
            question=question.text,
            gold=question.gold_answer,
            context=context,
            verdicts=verdicts,
            usage=usage,
            metadata={
                "qtype": question.qtype,
                "category": question.category,
                "category2": question.category2,
                "part": "A" if question.is_part_a else "B",
                "context_tokens": count_tokens(context),
                "context_cut": handed.cut,
                "namespaces": list(question.namespaces),
                "required_memories": list(question.required_memories),
                "gold_turn_ids": list(question.gold_turn_ids),
                "k": k,
                "min_score": min_score,
                "memories": memories,
                "hits": hits,
                "gold_turn_retrieved": any(h["gold"] for h in returned) if question.gold_turn_ids else None,
                **flags,
            },
        )

    def summarize(self, rows: list[Row]) -> Scores:
        """Scores per judge (:func:`~.scoring.wmb_scores`) and the reference result JSON.

        The result JSON uses the ``llm`` judge when the rows carry it, else the coverage rule.
        """
        judges = sorted({name for row in rows for name in row.verdicts}) or ["rule"]
        primary = "llm" if "llm" in judges else "rule"
        return Scores(
            {judge: JudgeScores(wmb_scores(rows, judge)) for judge in judges},
            {"result_json": result_json(rows, judge=primary, official=self.judge_mode == "official")},
            WMB_LAYOUT,
        )


def _lines_by_text(conversation: Conversation) -> dict[str, tuple[int, ...]]:
    """Memory text -> every line storing it (overlapping blocks repeat turns verbatim)."""
    lines: dict[str, list[int]] = {}
    for turn in conversation.turns:
        lines.setdefault(turn.memory_text, []).append(turn.line)
    return {text: tuple(found) for text, found in lines.items()}
