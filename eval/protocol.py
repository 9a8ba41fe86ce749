"""What the one runner needs from a benchmark, the row it writes per question, and the scores it
summarizes a system's rows into, and the judges a benchmark applies to a row (:class:`Judge`, given
a :class:`JudgeInput`): the runner resolves them from the benchmark's definition once and hands them
down in :class:`RunContext`.

A benchmark (MEME, DynamicMem, WMB-100K) supplies its work units (episodes, users, categories) and a
protocol: a function that drives one memory system through one unit -- ingest, questions, answers,
judging -- and yields one :class:`Row` per question. The runner (``eval/run/runner.py``) owns the loop
over systems x units, resuming, progress and writing; it never branches on a system or benchmark name.

A protocol's ``summarize`` returns :class:`Scores`: every judge's scores under its name, and the
benchmark's other figures (data source, retrieval, agreement) beside them. Its :class:`ScoresLayout`
says where ``summary.json`` keeps the judges; the report reads the file back with the same layout.
"""

from __future__ import annotations

import copy
import difflib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict, dataclass, field, fields, is_dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from memsuite.memory_systems.base import MemorySystem
from memsuite.memory_systems.errors import ConfigError

if TYPE_CHECKING:  # the LLM client (and openai behind it) loads only where a run opens one
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
        """The row as plain data, every container copied (as ``dataclasses.asdict``); a retrieval
        row's ranking holds thousands of ids, so plain values are copied without a call each."""
        return {f.name: _copied(getattr(self, f.name)) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Row:
        return cls(**data)


@dataclass(frozen=True)
class Answer:
    """The outcome of one answer call."""

    text: str | None
    """The reply text; None when the call failed."""
    data: Any = None
    """Parsed JSON reply (JSON calls), else None."""
    failure: str | None = None
    """Failure kind (memsuite.memory_systems.llm FAILURE_KINDS) when the call failed."""
    message: str = ""
    """Failure detail."""

    @property
    def failed(self) -> bool:
        return self.failure is not None


@dataclass(frozen=True)
class JudgeInput:
    """What a judge sees of one question."""

    case: Any
    """The benchmark's own record of the question (whatever its judges need)."""
    answer: Answer | None
    """The answer, or None when the run makes no answer call (retrieval-only)."""
    context: str
    """What the memory returned for the question (in full)."""
    llm: ChatClient | None = None
    """The judge LLM (an ``LLMClient`` view), or None."""


#: What a judge needs from a run: an answer (an answer LLM, or stored answers when rejudging), a judge
#: LLM (``judge_llm``, else the answer LLM), gold evidence in the data.
JudgeNeed = Literal["answer", "llm", "evidence"]
JUDGE_NEEDS: tuple[str, ...] = ("answer", "llm", "evidence")


@dataclass(frozen=True)
class Judge:
    """A judge: a function of a :class:`JudgeInput` to a verdict dict (``correct`` at least), with what
    it needs from a run.

    Validation refuses a config that does not meet the needs; the answer step
    (:func:`memsuite.eval.answer.judge`) skips a judge of the answer when there is none, and hands a
    judge that needs ``llm`` the judge LLM.
    """

    judge: Callable[[JudgeInput], Mapping[str, Any]]
    needs: tuple[JudgeNeed, ...]
    """Any of :data:`JUDGE_NEEDS`; () for a judge of the retrieved context alone."""

    def __post_init__(self) -> None:
        unknown = sorted(set(self.needs) - set(JUDGE_NEEDS))
        if unknown:
            raise ConfigError(f"judge needs {unknown} are unknown (known: {', '.join(JUDGE_NEEDS)})")

    @property
    def needs_answer(self) -> bool:
        """Judges the answer: skipped without an answer call, failed (not called) when the call failed."""
        return "answer" in self.needs

    @property
    def uses_llm(self) -> bool:
        """Calls the judge LLM (``JudgeInput.llm``); a run asking for it needs a judge LLM."""
        return "llm" in self.needs


def pick_judge(judges: Mapping[str, Judge], name: str, benchmark: str) -> Judge:
    """The judge ``name`` among a benchmark's ``judges``.

    Raises:
        ConfigError: No such judge (closest match and the benchmark's judges in the message).
    """
    found = judges.get(name)
    if found is not None:
        return found
    known = sorted(judges)
    close = difflib.get_close_matches(name, known, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise ConfigError(f"unknown {benchmark} judge {name!r}{hint}; known: {', '.join(known)}")


_PLAIN = (str, int, float, bool, type(None))


def _copied(value: Any) -> Any:
    """``value`` as ``dataclasses.asdict`` copies a field: containers rebuilt, dataclasses as dicts,
    other objects deep-copied; plain values (immutable) kept."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is list:
        return [v if type(v) in _PLAIN else _copied(v) for v in value]
    if kind is dict:
        return {_copied(k): v if type(v) in _PLAIN else _copied(v) for k, v in value.items()}
    if kind is tuple:
        return tuple(v if type(v) in _PLAIN else _copied(v) for v in value)
    if is_dataclass(value) and not isinstance(value, type):
        return asdict(value)
    return copy.deepcopy(value)


@dataclass
class RunContext:
    """What a protocol gets besides the system and the unit. Passed explicitly, never global."""

    benchmark: str = ""
    """The benchmark's name, from its declaration: the protocol writes it in its rows."""
    k: int = 5
    """Retrieval depth handed to ``retrieve``/``search`` (with a budget and no configured k, enough
    hits to fill it: :func:`memsuite.eval.budget.fill_depth`)."""
    context_tokens: int | None = None
    """The run's context budget in cl100k tokens (:mod:`memsuite.eval.budget`); None: none."""
    answer_llm: ChatClient | None = None
    """An ``LLMClient`` for answers, or None (retrieval-only scoring)."""
    judges: tuple[str, ...] = ("rule",)
    """Judge names to apply to every row (the benchmark's definition names them)."""
    judge_set: Mapping[str, Judge] = field(default_factory=dict)
    """Every judge the benchmark defines, by name (its definition's ``judges``): the answer step
    applies those ``judges`` names and those a protocol always applies
    (:meth:`BenchmarkDefinition.context <memsuite.eval.definition.BenchmarkDefinition.context>` fills
    it in)."""
    judge_llm: ChatClient | None = None
    """An ``LLMClient`` for LLM judges (the run's judge_llm, else its answer_llm), or None."""
    seed: int = 0
    workdir: Path | None = None
    """Scratch folder of this unit (snapshots, saved stores)."""
    options: dict[str, Any] = field(default_factory=dict)
    """Benchmark-specific settings from the config."""

    def judge(self, name: str) -> Judge:
        """The benchmark's judge ``name``.

        Raises:
            ConfigError: The benchmark defines no such judge.
        """
        return pick_judge(self.judge_set, name, self.benchmark)


def dig(data: Any, *path: str) -> Any:
    """The value at a path of keys through nested mappings; None where a step is missing."""
    for key in path:
        if not isinstance(data, Mapping):
            return None
        data = data.get(key)
    return data


@dataclass(frozen=True)
class JudgeScores:
    """One judge's scores over a system's rows, in its benchmark's layout (rates, counts, groups)."""

    values: Mapping[str, Any] = field(default_factory=dict)

    def at(self, *path: str) -> Any:
        """The figure at a path (``at("overall", "n")``); None where the scores have none."""
        return dig(self.values, *path)

    def part(self, *path: str) -> Mapping[str, Any]:
        """The mapping at a path (a group of rates: ``part("by_type")``); empty where absent."""
        found = dig(self.values, *path)
        return found if isinstance(found, Mapping) else {}

    def to_json(self) -> dict[str, Any]:
        return dict(self.values)


def _judge_set(found: Any) -> dict[str, JudgeScores]:
    if not isinstance(found, Mapping):
        return {}
    return {str(j): JudgeScores(s) for j, s in found.items() if isinstance(s, Mapping)}


@dataclass(frozen=True)
class ScoresLayout:
    """Where a benchmark's ``summary.json`` keeps each judge's scores among a system's scores.

    ``under``: one mapping judge -> scores (``by_judge``; left out when no judge has scores);
    ``named``: judges each under a key of their own (``("llm", "llm")``); ``absent_as_null``: a named
    judge no row has a verdict of is written as null (else left out); ``spread``: the judge whose scores
    are the top level itself (then the benchmark has no other figures).
    """

    under: str | None = "by_judge"
    named: tuple[tuple[str, str], ...] = ()
    absent_as_null: bool = True
    spread: str | None = None

    def read(self, data: Mapping[str, Any]) -> Scores:
        """A system's scores as ``summary.json`` holds them."""
        taken = {key for _, key in self.named} | ({self.under} if self.under else set())
        judges = _judge_set(data.get(self.under)) if self.under else {}
        for judge, key in self.named:
            if isinstance(data.get(key), Mapping):
                judges[judge] = JudgeScores(data[key])
        rest = {key: value for key, value in data.items() if key not in taken}
        if self.spread is None:
            return Scores(judges, rest, self)
        if rest:
            judges = {self.spread: JudgeScores(rest), **judges}
        return Scores(judges, {}, self)

    def write(self, scores: Scores) -> dict[str, Any]:
        """The scores as ``summary.json`` holds them."""
        out = dict(scores.extras)
        if self.spread is not None and self.spread in scores.judges:
            out.update(scores.judges[self.spread].to_json())
        named = {judge for judge, _ in self.named}
        kept = {j: s.to_json() for j, s in scores.judges.items() if j not in named and j != self.spread}
        if self.under is not None and kept:
            out[self.under] = kept
        for judge, key in self.named:
            found = scores.judges.get(judge)
            if found is not None or self.absent_as_null:
                out[key] = None if found is None else found.to_json()
        return out


#: The layout most benchmarks use: judge -> scores under ``by_judge``.
BY_JUDGE = ScoresLayout()


@dataclass(frozen=True)
class Scores:
    """A benchmark's scores over one system's rows: every judge's under its name, and the benchmark's
    other figures (``source``, ``retrieval``, ``agreement_rule_llm``) as ``extras``."""

    judges: Mapping[str, JudgeScores] = field(default_factory=dict)
    extras: Mapping[str, Any] = field(default_factory=dict)
    layout: ScoresLayout = BY_JUDGE

    def judge(self, name: str) -> JudgeScores | None:
        """One judge's scores; None when no row carried its verdict."""
        return self.judges.get(name)

    def at(self, *path: str) -> Any:
        """An extra figure at a path (``at("source", "kind")``); None where absent."""
        return dig(self.extras, *path)

    def part(self, *path: str) -> Mapping[str, Any]:
        """An extra mapping at a path (``part("retrieval")``); empty where absent."""
        found = dig(self.extras, *path)
        return found if isinstance(found, Mapping) else {}

    def judge_set(self, key: str) -> dict[str, JudgeScores]:
        """A second set of judges kept among the extras (LoCoMo's scores against its audited key)."""
        return _judge_set(self.extras.get(key))

    def to_json(self) -> dict[str, Any]:
        """The scores as ``summary.json`` holds them (:meth:`ScoresLayout.write`)."""
        return self.layout.write(self)

    @classmethod
    def from_json(cls, data: Any, layout: ScoresLayout = BY_JUDGE) -> Scores:
        """Scores as ``summary.json`` holds them, read with the benchmark's layout (absent: empty)."""
        return layout.read(data) if isinstance(data, Mapping) else cls(layout=layout)


class Benchmark(Protocol):
    """A benchmark as the runner sees it (its name comes from its declaration, in ``RunContext``).

    Optionally it also has ``header() -> dict``: what it read of its data (files absent, records skipped),
    recorded under the run header's ``benchmark``.
    """

    def units(self) -> list[str]:
        """Ids of the work units, in order."""
        ...

    def run_unit(self, system: MemorySystem, unit_id: str, ctx: RunContext) -> Iterator[Row]:
        """Drive ``system`` through one unit from a reset state; yield one row per question."""
        ...

    def summarize(self, rows: list[Row]) -> Scores:
        """Scores of a set of rows."""
        ...
