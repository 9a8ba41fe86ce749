"""The LifeBench protocol: one user per unit, in its own namespace; records ingested a day at a time in
time order, each question asked when the memory holds everything up to the question's time and
nothing later.

Per unit (a user, its folder name): reset the namespace; ingest the contacts and any timeless record
first (session ``<user>/start``); then, for the questions in order of their time (:mod:`.clock`; ties
in released order), ingest every day not yet ingested up to that time, one ``ingest_session`` per
day (session ``<user>/<YYYY-MM-DD>``, one turn and one document per record, :mod:`.documents`), then
``finalize``, then announce the questions of that time together (``prepare_queries``: dense encodes a
month's questions in one batch), then ask each, its text exactly as released. Days after the last
question's time are never ingested. Each document's metadata holds ``record``, ``dia_id`` (= record:
the key ``gold_evidence`` selects by), ``position`` (its place in ingestion order), ``type``,
``phone_id``, ``day`` and ``datetime``.

Per question:

- ``metadata.ranking``: one ``search`` over every document held, read as records (``type:phone_id``,
  each once: a repeated id ranks where its first record does) in rank order; documents the system did
  not return follow in ingestion order. A system whose memories are not the records (extracted facts)
  has no ranking: an empty list, and its retrieval verdicts are undefined;
- ``metadata.relevant``, ``metadata.future``, ``metadata.dangling`` (:mod:`.evidence`),
  ``metadata.question_type``, ``metadata.ask_time``, ``metadata.asked``, ``metadata.cited_types``;
- the context: one ``retrieve`` at the run's k, each hit as its document text (its type and time
  first), cut to the answer model's window; the reference rows' (``full_context``: the newest records
  that fit; ``gold_evidence``: the relevant records) cut oldest first.

Verdicts: ``retrieval`` and ``retrieval_day`` (always, LLM-free), ``choice``, ``abstention`` and ``llm``
(with an answer LLM), defined in :mod:`.judges`; :mod:`.scoring` summarises them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import groupby
from operator import itemgetter
from pathlib import Path
from typing import Any

from memsuite.eval.answer import context_budget
from memsuite.eval.benchmarks.lifebench.catalogue import DATA
from memsuite.eval.benchmarks.lifebench.clock import TIMELESS
from memsuite.eval.benchmarks.lifebench.documents import record_metadata, record_text
from memsuite.eval.benchmarks.lifebench.judges import LifebenchCase
from memsuite.eval.benchmarks.lifebench.judges.llm import ANSWER_MAX_TOKENS, answer_prompt
from memsuite.eval.benchmarks.lifebench.loader import load_users
from memsuite.eval.benchmarks.lifebench.schema import Question, Record, User
from memsuite.eval.benchmarks.lifebench.scoring import LIFEBENCH_LAYOUT, lifebench_scores
from memsuite.eval.data.shared import data_path, shared_data_file
from memsuite.eval.protocol import Row, RunContext, Scores
from memsuite.eval.reference import ReferenceContext
from memsuite.eval.retrieval_qa.step import announce, answer_row, given, placement, rank_places, retrieved
from memsuite.memory_systems.base import MemorySystem
from memsuite.memory_systems.errors import ConfigError
from memsuite.memory_systems.records import Document, Session, Turn

#: Room kept free in the answer model's window: prompt text, options, chat template and the answer.
_PROMPT_RESERVE_TOKENS = 400


def default_data_path() -> Path:
    """The shared dev users (``$MEMSUITE_SHARED_DATA/lifebench``), else the fetched catalogue entry."""
    release = "the release's life_bench_data/data_en/ folder (1754955896/LifeBench) or one user folder"
    return shared_data_file(
        DATA.dev, default=DATA.default, benchmark="lifebench", release=release, folder=True
    )


class _Memory:
    """What one unit's memory holds so far: documents in ingestion order and the days ingested."""

    def __init__(self, system: MemorySystem, user: User, namespace: str, summaries: bool) -> None:
        self.system, self.user, self.namespace, self.summaries = system, user, namespace, summaries
        self.keys: list[str] = []
        self.days: list[str] = []
        self.failures = 0
        dated = [r for r in user.records if r.day is not None]
        self._pending = [(day, list(group)) for day, group in groupby(dated, key=lambda r: r.day)]
        start = [*user.contacts, *(r for r in user.records if r.day is None)]
        if start:
            self._ingest(f"{user.name}/start", "", start)

    def _ingest(self, session_id: str, timestamp: str, records: list[Record]) -> None:
        turns, documents = [], []
        for index, record in enumerate(records):
            text = record_text(record, summaries=self.summaries)
            metadata = {**record_metadata(record), "dia_id": record.key, "position": len(self.keys)}
            self.keys.append(record.key)
            self.days.append(record.day or TIMELESS)
            turns.append(Turn("user", text, {"record": record.key}))
            documents.append(Document(text, metadata, turn=index))
        session = Session(session_id, timestamp, tuple(turns), {"user": self.user.name}, tuple(documents))
        self.failures += self.system.ingest_session(session, namespace=self.namespace).failures

    def up_to(self, day: str) -> None:
        """Ingest every pending day on or before ``day``, then ``finalize``."""
        while self._pending and self._pending[0][0] <= day:
            when, records = self._pending.pop(0)
            self._ingest(f"{self.user.name}/{when}", when, records)
        self.system.finalize(namespace=self.namespace)


class LifebenchBenchmark:
    """LifeBench users as runner units and a protocol (module docstring).

    Args:
        data: The release's ``data_en/`` folder (a folder of user folders), one user folder, or a
            catalogue name (``lifebench``); default the shared dev users.
        users: Only these users (folder names), in this order; or a count N, the first N by name.
        question_types: Only questions of these types (as released).
        max_questions: At most this many questions per user (after ``question_types``; in released order).
        summaries: Add each record's ``summarized_info`` (the generator's summary) to its document.
        skip_bad: Leave malformed records and questions out (counted in the source) instead of refusing.
        answer_max_tokens: Answer budget.

    Raises:
        ConfigError: Bad options or no data.
        DatasetError: A malformed file (file, index and field named), unless ``skip_bad``.
    """

    def __init__(
        self,
        data: str | Path | None = None,
        *,
        users: Sequence[str] | int | None = None,
        question_types: Sequence[str] | None = None,
        max_questions: int | None = None,
        summaries: bool = False,
        skip_bad: bool = False,
        answer_max_tokens: int = ANSWER_MAX_TOKENS,
    ) -> None:
        for name, value in (("summaries", summaries), ("skip_bad", skip_bad)):
            if not isinstance(value, bool):
                raise ConfigError(f"lifebench {name} must be true or false, got {value!r}")
        if max_questions is not None and (
            isinstance(max_questions, bool) or not isinstance(max_questions, int) or max_questions < 1
        ):
            raise ConfigError(
                f"lifebench max_questions must be a positive integer or null, got {max_questions!r}"
            )
        if question_types is not None and (
            isinstance(question_types, str)
            or not question_types
            or not all(isinstance(t, str) for t in question_types)
        ):
            raise ConfigError(
                f"lifebench question_types must be a non-empty list of names, got {question_types!r}"
            )
        path = default_data_path() if data is None else data_path(data, benchmark="lifebench")
        loaded = load_users(path, skip_bad=skip_bad)
        self.users = {u.name: u for u in _chosen(loaded, users)}
        self.question_types = None if question_types is None else tuple(question_types)
        self.max_questions = max_questions
        self.summaries = summaries
        self.answer_max_tokens = answer_max_tokens
        self.source = {
            "kind": "official",
            "path": str(path),
            "users": list(self.users),
            "records": sum(len(u.records) + len(u.contacts) for u in self.users.values()),
            "questions": sum(len(self.questions_of(u)) for u in self.users),
            "summaries": summaries,
            "absent_files": {u.name: list(u.absent) for u in self.users.values() if u.absent},
            "skipped": sum(len(u.skipped) for u in self.users.values()),
            "skipped_items": [s for u in self.users.values() for s in u.skipped][:50],
        }

    def header(self) -> dict[str, Any]:
        """What the run header records of the data read: files absent, bad items skipped, options."""
        return {k: self.source[k] for k in ("users", "absent_files", "skipped", "summaries")}

    def units(self) -> list[str]:
        return list(self.users)

    def questions_of(self, user: str) -> tuple[Question, ...]:
        questions = self.users[user].questions
        if self.question_types is not None:
            questions = tuple(q for q in questions if q.question_type in self.question_types)
        return questions[: self.max_questions] if self.max_questions else questions

    def run_unit(self, system: MemorySystem, unit_id: str, ctx: RunContext) -> Iterator[Row]:
        """Ingest one user's records day by day, asking each question at its time (module docstring).

        Raises:
            ConfigError: Unknown unit.
        """
        user = self.users.get(unit_id)
        if user is None:
            raise ConfigError(f"lifebench: unknown unit {unit_id!r}; units: {', '.join(self.users)}")
        system.reset(namespace=unit_id)
        memory = _Memory(system, user, unit_id, self.summaries)
        budget = context_budget(ctx, _PROMPT_RESERVE_TOKENS)
        ordered = sorted(self.questions_of(unit_id), key=lambda q: (q.asked, q.index))
        for asked, group in groupby(ordered, key=lambda q: q.asked):
            questions = list(group)
            memory.up_to(asked)
            places = None if isinstance(system, ReferenceContext) else placement(system, unit_id, "position")
            announce(system, [q.question for q in questions], unit_id)
            for question in questions:
                yield self._ask(system, memory, question, places, ctx, budget)

    def _ask(
        self,
        system: MemorySystem,
        memory: _Memory,
        question: Question,
        places: dict[str, int] | None,
        ctx: RunContext,
        budget: int | None,
    ) -> Row:
        namespace = memory.namespace
        ranking = day_ranking = None
        ranked = places is not None
        if places is not None:
            # Rank places, not ids: a repeated id and its day are read from the place.
            order = rank_places(system, question.question, len(memory.keys), namespace, places)
            # One C-level pass per list: a ranking holds every record the user has so far.
            pick = itemgetter(*order) if len(order) > 1 else lambda seq: [seq[p] for p in order]
            ranking = list(dict.fromkeys(pick(memory.keys)))
            day_ranking = list(dict.fromkeys(pick(memory.days)))
        if isinstance(system, ReferenceContext):
            no_ranking = f"a reference row ({system.scope} records given, not retrieved)"
            context = given(
                system, question.question, namespace=namespace, evidence=question.relevant, budget=budget
            )
        else:
            no_ranking = None if ranked else "the memories are not the user's records"
            context = retrieved(system, question.question, k=ctx.k, namespace=namespace, budget=budget)
        case = LifebenchCase(
            question,
            None if ranking is None else tuple(ranking),
            None if day_ranking is None else tuple(day_ranking),
            ctx.k,
            no_ranking,
        )
        return answer_row(
            ctx,
            system,
            unit_id=namespace,
            question_id=question.question_id,
            question=question.question,
            gold=question.answer,
            context=context,
            case=case,
            prompt=lambda text: answer_prompt(question.question, question.asked, text, question.options),
            max_tokens=self.answer_max_tokens,
            always=("retrieval", "retrieval_day"),
            metadata={
                "user": namespace,
                "question_type": question.question_type,
                "ask_time": question.ask_time,
                "asked": question.asked,
                "choice": question.choice,
                "granularity": "record",
                "ranking": ranking or [],
                "relevant": list(question.relevant),
                "relevant_days": list(question.relevant_days),
                "future": list(question.future),
                "dangling": [d.to_dict() for d in question.dangling],
                "cited_types": list(question.cited_types),
                "corpus_size": len(memory.keys),
                "k": ctx.k,
                "context_truncated": context.truncated,
                "ingest_failures": memory.failures,
            },
        )

    def summarize(self, rows: list[Row]) -> Scores:
        """Retrieval (record and day) and answer scores by question type and cited record type, the
        evidence counts, and the data read."""
        return LIFEBENCH_LAYOUT.read({"source": self.source, **lifebench_scores(rows)})


def _chosen(loaded: list[User], users: Sequence[str] | int | None) -> list[User]:
    """The users a run asks for, in its order (:class:`LifebenchBenchmark` ``users``)."""
    if users is None:
        return loaded
    if isinstance(users, int) and not isinstance(users, bool):
        if not 1 <= users <= len(loaded):
            raise ConfigError(
                f"lifebench users: a count must be 1 to {len(loaded)} (the users read), got {users}"
            )
        return loaded[:users]
    if isinstance(users, str):
        users = [users]
    by_name = {u.name: u for u in loaded}
    out = []
    for name in users:
        if name not in by_name:
            raise ConfigError(f"lifebench: unknown user {name!r}; known: {', '.join(by_name)}")
        out.append(by_name[name])
    if len({u.name for u in out}) != len(out):
        raise ConfigError(f"lifebench users: a user is named twice in {list(users)!r}")
    return out


# The class itself is the factory: its signature is the schema of LifeBench's benchmark_options.
