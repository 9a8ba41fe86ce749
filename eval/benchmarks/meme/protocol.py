"""The MEME protocol (MEME paper, arXiv 2605.12477): reset, ingest to the before point, finalize, ask the
before-questions, ingest the rest, finalize, ask the after-questions; snapshot after every session.

One unit is one episode, in its own namespace. Every question gets exactly one ``retrieve`` (query
budget 1) and, when the run has an answer LLM, one answer call with the same prompt for every system
(temperature 0, at most 500 tokens). Verdicts per row:

- ``evidence`` (LLM-free, always): the retrieved context (in full, as the memory returned it)
  holds what the question needs -- the gold value for ER and before-questions, every value for Agg
  and Tr, the new value and the upstream change for Cas, the stated dependency (or uncertainty) and
  the change for Abs, the deletion request (or no trace of the value) for Del; the rules are in
  :mod:`memsuite.eval.benchmarks.meme.evidence`. The upstream change and the old value follow the release
  semantics (:mod:`memsuite.eval.benchmarks.meme.release`) on released and generated episodes alike: the
  change from ``root_change`` or else from the gold facts after the before-probe, the old value
  from the before-phase (a released Cascade question holds only the new value).
- ``rule`` (when there is an answer): the deterministic judge of
  :mod:`memsuite.eval.benchmarks.meme.judges.rule`.
- ``llm`` (when ``judges`` includes "llm"): the rubric judge, asked through the judge LLM.

The answer call, its usage, the failed-call rule and the judges run in the shared step
(:mod:`memsuite.eval.answer`); the judges are defined in :mod:`.judges`.

What a system retrieves is cut to the run's ``context_tokens`` budget in its rank order
(:mod:`memsuite.eval.budget`) before anything judges it: the row's ``context`` is what the memory
handed over, ``metadata.context_tokens`` its size and ``metadata.context_cut`` whether the budget cut
it. The answer model's window is a cap on top (its window minus room for the prompt and the answer,
when the endpoint says what it is): a 135M local model has 2K-8K tokens, one MEME chunk alone can
hold 4K. That cut is recorded in ``metadata``: ``answer_context_tokens``, ``context_truncated`` and
``evidence_after_cut`` (the evidence verdict on the cut context: False where the cut dropped evidence
the memory returned).
"""

from __future__ import annotations

import gzip
import json
import logging
import time
from collections.abc import Iterator, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memsuite.eval.analysis.metrics import judge_agreement
from memsuite.eval.answer import answer_and_judge, context_budget, memory_flags
from memsuite.eval.benchmarks.meme.evidence import context_holds_evidence, needed_values
from memsuite.eval.benchmarks.meme.loader import load_episodes
from memsuite.eval.benchmarks.meme.matching import contains, normalize
from memsuite.eval.benchmarks.meme.release import UpstreamChange, old_value_of, root_entity, upstream_change
from memsuite.eval.benchmarks.meme.schema import DELETION_GOLD, Episode, Question
from memsuite.eval.benchmarks.meme.scoring import meme_scores
from memsuite.eval.budget import within_budget
from memsuite.eval.data.shared import data_path
from memsuite.eval.protocol import JudgeScores, Row, RunContext, Scores
from memsuite.memory_systems.base import MemorySystem
from memsuite.memory_systems.errors import ConfigError
from memsuite.memory_systems.tokens import encoding

logger = logging.getLogger(__name__)

ANSWER_SYSTEM_PROMPT = (
    "You are an assistant with a memory of earlier conversations with the user. "
    "Answer only from the memory context you are given."
)
ANSWER_TEMPLATE = (
    "Memory context:\n{context}\n\n"
    "Current date: {date}\n"
    "Question: {question}\n\n"
    "Answer using only the memory context above. If the information is not there, say that you don't "
    "have that information. Answer with only the value, no explanation."
)
#: Room kept free in the answer model's window: prompt text, chat template, and the answer.
_PROMPT_RESERVE_TOKENS = 700
ANSWER_MAX_TOKENS = 500


def answer_messages(context: str, question: str, date: str | None) -> list[dict[str, str]]:
    """The unified answer prompt (identical for every system)."""
    user = ANSWER_TEMPLATE.format(context=context, date=date or "unknown", question=question)
    return [{"role": "system", "content": ANSWER_SYSTEM_PROMPT}, {"role": "user", "content": user}]


def cut_context(text: str, max_tokens: int | None) -> tuple[str, bool, int]:
    """(``text`` cut to ``max_tokens`` cl100k tokens, whether it was cut, tokens of the cut text)."""
    ids = encoding().encode_ordinary(text)
    if max_tokens is None or len(ids) <= max_tokens:
        return text, False, len(ids)
    return encoding().decode(ids[:max_tokens]), True, max_tokens


def evidence_verdict(
    question: Question,
    phase: str,
    context: str,
    *,
    names: Sequence[str] = (),
    change: str | UpstreamChange | None = None,
    root_names: Sequence[str] = (),
    old_value: str | None = None,
    upstream: Sequence[str] = (),
) -> dict[str, Any]:
    """Whether the retrieved context holds what the question needs (:mod:`.evidence`).

    Args:
        question: The question.
        phase: ``before`` or ``after`` the change.
        context: The retrieved context.
        names: Display names of the question's entities (to find a stated dependency or deletion).
        change: The upstream change (:func:`.release.upstream_change`), or its new
            value; None when the episode shows none (Cas and Abs then need only their own part).
        root_names: Display names of the root entity (scope the stated change).
        old_value: The value before the change / the deleted value
            (:func:`memsuite.eval.benchmarks.meme.release.old_value_of`); default :attr:`Question.old_value`.
        upstream: Display names of what the question's entities depend on (:func:`upstream_names`).
    """
    old = old_value if old_value is not None else question.old_value
    values = needed_values(question.task, phase, question.gold, question.values, old)
    held, reason = context_holds_evidence(
        context,
        task=question.task,
        phase=phase,
        values=values,
        names=names,
        change=change,
        root_names=root_names,
        upstream=upstream,
    )
    return {"correct": held, "reason": reason, "judge": "evidence"}


def entity_name(episode: Episode, eid: str) -> str:
    """Display name of entity ``eid`` (episode metadata, else a gold fact's ``name``, else the id)."""
    meta = episode.entities.get(eid) if isinstance(episode.entities, dict) else None
    if isinstance(meta, dict) and isinstance(meta.get("name"), str) and meta["name"]:
        return meta["name"]
    for session in episode.sessions:
        for fact in session.gold_facts or ():
            if fact.entity == eid and isinstance(fact.extra.get("name"), str) and fact.extra["name"]:
                return fact.extra["name"]
    return eid.replace("_", " ")


def upstream_names(episode: Episode, question: Question) -> list[str]:
    """Display names of the entities the question's entities depend on, directly or through others
    (``dependency_edges_used``; empty when the episode does not list its edges)."""
    sources: dict[str, list[str]] = {}
    for edge in episode.dependency_edges_used or ():
        sources.setdefault(edge.target, []).append(edge.source)
    seen: list[str] = []
    todo = [s for eid in question.entities for s in sources.get(eid, ())]
    while todo:
        eid = todo.pop()
        if eid not in seen and eid not in question.entities:
            seen.append(eid)
            todo += sources.get(eid, ())
    return [entity_name(episode, eid) for eid in seen]


def meme_case(episode: Episode, question: Question, phase: str) -> MemeCase:
    """What the judges need of ``question``, with the release semantics (change, root, old value)."""
    change = upstream_change(episode)
    root = change.entity if change is not None and change.entity else root_entity(episode)
    return MemeCase(
        question,
        phase,
        tuple(entity_names(episode, question)),
        change,
        (entity_name(episode, root),) if root else (),
        old_value_of(episode, question),
        tuple(upstream_names(episode, question)),
    )


def value_sessions(episode: Episode, question: Question) -> dict[str, int]:
    """Needed value -> index of the first session whose gold facts convey it (on the question's entities).

    Values of the question (and its gold for ER/Cas, whose gold is a value); a value no gold fact
    conveys is left out (released episodes without gold facts give an empty mapping).
    """
    wanted = dict.fromkeys(v for v in (*question.values, question.gold) if v and v != DELETION_GOLD)
    entities = set(question.entities)
    found: dict[str, int] = {}
    for index, session in enumerate(episode.sessions):
        for fact in session.gold_facts or ():
            if entities and fact.entity not in entities:
                continue
            for value in wanted:
                if value not in found and (
                    normalize(fact.value) == normalize(value) or contains(fact.fact_text or "", value)
                ):
                    found[value] = index
    return found


def entity_names(episode: Episode, question: Question) -> list[str]:
    """Display names of the question's entities (episode metadata or gold facts; else the id)."""
    return [entity_name(episode, eid) for eid in question.entities]


@dataclass(frozen=True)
class MemeCase:
    """What MEME's judges need of one question."""

    question: Question
    phase: str
    names: tuple[str, ...] = ()
    change: UpstreamChange | str | None = None
    root_names: tuple[str, ...] = ()
    old_value: str | None = None
    """:func:`memsuite.eval.benchmarks.meme.release.old_value_of` (None: :attr:`Question.old_value`)."""
    upstream_names: tuple[str, ...] = ()
    """:func:`upstream_names`: what the question's entities depend on (a sentence naming one links them)."""

    @property
    def old(self) -> str | None:
        return self.old_value if self.old_value is not None else self.question.old_value

    def rule_args(self) -> dict[str, Any]:
        return {"phase": self.phase, "values": self.question.values, "old_value": self.old}

    def evidence(self, context: str) -> dict[str, Any]:
        """The evidence verdict on ``context`` (:func:`evidence_verdict` with this case's facts)."""
        return evidence_verdict(
            self.question,
            self.phase,
            context,
            names=self.names,
            change=self.change,
            root_names=self.root_names,
            old_value=self.old,
            upstream=self.upstream_names,
        )


def _change_values(change: UpstreamChange | str | None) -> list[str]:
    """The upstream change's values, old and new (they name the root as well as its display name)."""
    if isinstance(change, UpstreamChange):
        return [v for v in (change.old, change.new) if v]
    return [change] if change else []


def _open_snapshots(folder: Path):
    # Level 1: every session rewrites the whole memory, and at 32k filler gzip's default level 9 spent
    # ~8 % of a bm25 + dense run compressing snapshots (perf/bench_meme.py); level 1 is ~4x
    # faster for files ~1.3x larger.
    return gzip.open(folder / "snapshots.jsonl.gz", "wt", encoding="utf-8", compresslevel=1)


class MemeBenchmark:
    """MEME as a runner benchmark: units are episodes.

    Args:
        data: A released episode file (JSON array) or a folder of episode files; default: generate.
        episodes: Number of generated episodes (when ``data`` is None).
        filler: Generated filler budget: "none", "32k" or "128k".
        seed: Generator seed.
        snapshots: Record ``snapshot()`` after every session into the unit's work folder.
        domain: Only episodes of this domain (personal_life / software_project).
        answer_max_tokens: Answer budget (the paper's 500; a small local model rambles to the cap,
            so the demo sets less).
        phrasing: Generated dialogue's phrasing family: ``dev`` (default; the judges were written
            against it), ``dev2`` / ``dev3`` / ``dev4`` (the retired first, second and third held-out
            families) or ``heldout`` (wording they were not written against).
    """

    def __init__(
        self,
        data: str | Path | None = None,
        *,
        episodes: int = 3,
        filler: str = "none",
        seed: int = 0,
        snapshots: bool = True,
        domain: str | None = None,
        answer_max_tokens: int = ANSWER_MAX_TOKENS,
        phrasing: str = "dev",
    ) -> None:
        if data is not None:
            loaded = load_episodes(data_path(data, benchmark="meme"))
            source = {"kind": "official", "path": str(data)}
        else:
            from memsuite.eval.benchmarks.meme.generator import generate_episodes

            loaded = generate_episodes(episodes, filler=filler, seed=seed, phrasing=phrasing)
            source = {"kind": "generated", "episodes": episodes, "filler": filler, "seed": seed}
            if phrasing != "dev":  # dev runs keep their earlier run.json / summary
                source["phrasing"] = phrasing
        if domain is not None:
            loaded = [e for e in loaded if e.domain == domain]
        if not loaded:
            raise ConfigError(f"no MEME episodes to run ({source})")
        self.source = source
        self.episodes: dict[str, Episode] = {e.episode_id: e for e in loaded}
        self.snapshots = snapshots
        self.answer_max_tokens = answer_max_tokens

    def units(self) -> list[str]:
        return list(self.episodes)

    def run_unit(self, system: MemorySystem, unit_id: str, ctx: RunContext) -> Iterator[Row]:
        episode = self.episodes[unit_id]
        namespace = unit_id
        system.reset(namespace=namespace)
        keep = self.snapshots and ctx.workdir is not None
        opened = _open_snapshots(ctx.workdir) if keep else nullcontext()
        failures = 0
        with opened as snapshot_file:
            index = 0
            for phase in ("before", "after"):
                for session in episode.phase_sessions(phase):
                    report = system.ingest_session(session.to_session(), namespace=namespace)
                    failures += report.failures
                    if snapshot_file is not None:
                        record = {
                            "index": index,
                            "session_id": session.session_id,
                            "phase": phase,
                            "snapshot": system.snapshot(namespace=namespace),
                        }
                        snapshot_file.write(json.dumps(record, ensure_ascii=False) + "\n")
                    index += 1
                system.finalize(namespace=namespace)
                flags = memory_flags(system, namespace, ctx.k)  # the memory the phase's questions see
                question_set = episode.question_set(phase)
                for i, question in enumerate(question_set.questions):
                    question_id = f"{phase}-{i:02d}-{question.task}"
                    yield self._ask(
                        system,
                        episode,
                        question_id,
                        phase,
                        question,
                        question_set.timestamp,
                        ctx,
                        ingest_failures=failures,
                        snapshot_index=index - 1,
                        flags=flags,
                    )

    def _ask(
        self,
        system,
        episode,
        question_id,
        phase,
        question,
        date,
        ctx,
        *,
        ingest_failures,
        snapshot_index,
        flags,
    ) -> Row:
        started = time.perf_counter()
        result = system.retrieve(question.question, k=ctx.k, namespace=episode.episode_id)
        handed = within_budget(result, ctx.context_tokens)
        retrieved = handed.text
        retrieve_ms = (time.perf_counter() - started) * 1000
        # The evidence verdict judges what the memory handed over; the answer model may see less.
        budget = context_budget(ctx, _PROMPT_RESERVE_TOKENS)
        cut, truncated, cut_tokens = cut_context(retrieved, budget)
        case = meme_case(episode, question, phase)
        names = list(case.names)
        usage: dict[str, Any] = {"retrieve_ms": retrieve_ms}
        answer, verdicts = answer_and_judge(
            ctx,
            case=case,
            context=retrieved,
            messages=answer_messages(cut, question.question, date),
            usage=usage,
            max_tokens=self.answer_max_tokens,
            temperature=0.0,
            always=("evidence",),
        )
        evidence_after_cut = verdicts["evidence"]["correct"]
        if truncated:
            evidence_after_cut = case.evidence(cut)["correct"]
        return Row(
            system=system.name,
            benchmark=ctx.benchmark,
            unit_id=episode.episode_id,
            question_id=question_id,
            question=question.question,
            gold=question.gold,
            context=retrieved,
            answer=answer.text if answer is not None else None,
            verdicts=verdicts,
            usage=usage,
            metadata={
                "task": question.task,
                "phase": phase,
                "entities": list(question.entities),
                "values": list(question.values),
                "old_value": case.old,
                "hop": question.resolved_hop,
                "domain": episode.domain,
                "context_tokens": handed.tokens,
                "context_cut": handed.cut,
                "context_truncated": truncated,
                "answer_context_tokens": cut_tokens,
                "evidence_after_cut": evidence_after_cut,
                **flags,
                "ingest_failures": ingest_failures,
                "source": self.source["kind"],
                # For failure-stage attribution (.diagnostics): which per-session snapshot is
                # the memory at question time, where each needed value was first conveyed, and the
                # entities' display names (to find a stated dependency).
                "snapshot_index": snapshot_index,
                "value_sessions": value_sessions(episode, question),
                "names": names,
                # What the entities depend on, with the root and its values (a link stated by naming it).
                "upstream": [*case.root_names, *_change_values(case.change), *case.upstream_names],
            },
        )

    def summarize(self, rows: list[Row]) -> Scores:
        """MEME scores under every judge present in the rows, and rule-vs-LLM agreement."""
        judges = sorted({name for row in rows for name in row.verdicts})
        extras: dict[str, Any] = {"source": self.source}
        if "rule" in judges and "llm" in judges:
            extras["agreement_rule_llm"] = judge_agreement(rows, "rule", "llm")
        return Scores({j: JudgeScores(meme_scores(rows, j)) for j in judges}, extras)
