"""Temporal knowledge graph: bi-temporal invalidation scoped to subject+relation, dependency cascade and
absence, forget requests, hybrid retrieval, failure counting. The LLM is scripted: the real client talks
over HTTP to a replay server (tests/fakes.py ``ReplayLLM``), except in the test at the end, which runs
the embedded local model and checks that everything follows exactly from its recorded reply.
"""

from __future__ import annotations

import pytest
from fakes import RecordingLLM, ReplayLLM

from memsuite.baselines._temporal_extract import parse_extraction
from memsuite.baselines.temporal_kg import TemporalKGMemory, entity_key, relation_key
from memsuite.memory_systems.base import CONTEXT_SEPARATOR, NO_MEMORY
from memsuite.memory_systems.llm import LLMFailure
from memsuite.memory_systems.records import Session, Turn

DAY1 = "2023/03/05 (Sun) 11:24"
DAY2 = "2023/03/09 (Thu) 10:00"


def session(session_id: str, timestamp: str, text: str = "(scripted)") -> Session:
    return Session(session_id, timestamp, (Turn("user", text),))


def fact(subject: str, relation: str, value: str, text: str | None = None) -> dict[str, str]:
    return {"subject": subject, "relation": relation, "object": value, "fact": text or f"{subject} {value}."}


def extraction(facts=(), dependencies=(), forget=()) -> dict:
    return {"facts": list(facts), "dependencies": list(dependencies), "forget": list(forget)}


@pytest.fixture
def kg(embedder, replay_llm):
    """Builder ``kg(*extraction_replies, **options) -> (memory, llm)`` over a scripted replay LLM."""

    def build(*replies, **options) -> tuple[TemporalKGMemory, ReplayLLM]:
        llm = replay_llm({"kg_extract": list(replies)})
        return TemporalKGMemory(llm=llm, embedder=embedder, **options), llm

    return build


def by_fact(memory: TemporalKGMemory, text: str):
    return next(e for e in memory.edges() if e.fact == text)


def test_keys_normalise_names():
    assert entity_key("The Payment-Service") == "payment service"
    assert entity_key("the") == "the"
    assert relation_key("Uses Database") == "uses_database"


def test_new_value_invalidates_only_the_same_subject_and_relation(kg):
    memory, _ = kg(
        extraction(
            [
                fact("payment service", "uses_database", "Postgres", "The payment service uses Postgres."),
                fact("auth service", "uses_database", "MySQL", "The auth service uses MySQL."),
                fact("payment service", "owner", "Dana", "Dana owns the payment service."),
            ]
        ),
        extraction(
            [
                fact(
                    "Payment Service",
                    "uses database",
                    "CockroachDB",
                    "The payment service moved to CockroachDB.",
                )
            ]
        ),
    )
    memory.ingest_session(session("s1", DAY1))
    report = memory.ingest_session(session("s2", DAY2))

    assert (report.added, report.updated, report.failures) == (1, 1, 0)
    old = by_fact(memory, "The payment service uses Postgres.")
    new = by_fact(memory, "The payment service moved to CockroachDB.")
    assert not old.current and old.expired_at is not None and old.replaced_by == new.id
    assert (old.valid_at, old.invalid_at) == ("2023-03-05T11:24", "2023-03-09T10:00")
    assert new.current and new.valid_at == "2023-03-09T10:00" and new.created_at
    # Same relation, other subject; same subject, other relation: untouched (never graph-wide).
    assert by_fact(memory, "The auth service uses MySQL.").current
    assert by_fact(memory, "Dana owns the payment service.").current

    hits = memory.search("which database does the payment service use", k=10)
    assert old.id not in {h.id for h in hits} and hits[0].id == new.id
    assert hits[0].metadata["valid_at"] == "2023-03-09T10:00"
    context = memory.retrieve("payment service database", k=1).context
    assert (
        context
        == "The payment service moved to CockroachDB. (since 2023-03-09) (earlier: Postgres until 2023-03-09)"
    )
    snapshot = memory.snapshot()
    assert "No longer true:\n- The payment service uses Postgres. (2023-03-05 to 2023-03-09)" in snapshot


def test_invalidated_facts_come_last_when_included(kg):
    memory, _ = kg(
        extraction([fact("router", "name", "Oldname", "The router is called Oldname.")]),
        extraction([fact("router", "name", "Brindlewatch", "The router is called Brindlewatch.")]),
        include_invalidated=True,
    )
    memory.ingest_session(session("s1", DAY1))
    memory.ingest_session(session("s2", DAY2))
    memory.store(["The garden needs water on Tuesdays."])
    hits = memory.search("router called Oldname", k=3)
    assert [h.text for h in hits][-1] == "The router is called Oldname."
    assert "[no longer true since 2023-03-09]" in memory.retrieve("router called Oldname", k=3).context


def test_restating_a_value_is_not_a_change(kg):
    memory, _ = kg(
        extraction([fact("router", "name", "Brindlewatch")]),
        extraction([fact("the router", "Name", "brindlewatch", "Router: Brindlewatch.")]),
    )
    memory.ingest_session(session("s1", DAY1))
    report = memory.ingest_session(session("s2", DAY2))
    assert (report.added, report.updated) == (0, 0) and len(memory.edges()) == 1


def _dependency_episode(kg, outcome):
    rule = {"dependent": "ORM", "source": "primary database", "if_source_changes": outcome}
    return kg(
        extraction(
            [
                fact("primary database", "engine", "Postgres 15", "The primary database is Postgres 15."),
                fact("ORM", "library", "Prisma 5", "The ORM is Prisma 5."),
                fact("API docs", "host", "Docsy", "The API docs are hosted on Docsy."),
            ],
            [rule],
        ),
        extraction([fact("primary database", "engine", "MySQL 8", "The primary database is now MySQL 8.")]),
    )


def test_dependency_cascade_applies_the_stated_rule(kg):
    memory, _ = _dependency_episode(kg, "Drizzle")
    memory.ingest_session(session("s1", DAY1))
    report = memory.ingest_session(session("s2", DAY2))

    prisma = by_fact(memory, "The ORM is Prisma 5.")
    derived = next(e for e in memory.edges() if e.derived_from is not None)
    rule = next(e for e in memory.edges() if e.kind == "dependency")
    assert not prisma.current and prisma.replaced_by == derived.id
    assert derived.current and derived.derived_from == rule.id
    assert (derived.subject, derived.relation, derived.value) == ("orm", "library", "Drizzle")
    assert derived.fact == "ORM is Drizzle (because primary database changed from Postgres 15 to MySQL 8)."
    assert report.added == 2 and report.updated == 2  # the database and, by the rule, the ORM
    assert by_fact(memory, "The API docs are hosted on Docsy.").current  # unrelated: untouched
    context = memory.retrieve("which ORM do we use", k=3).context
    assert "ORM is Drizzle" in context.split(CONTEXT_SEPARATOR)[0]
    assert rule.fact == "ORM depends on primary database; if primary database changes, ORM will be Drizzle."


def test_dependency_absence_marks_the_dependent_uncertain(kg):
    memory, _ = _dependency_episode(kg, None)
    memory.ingest_session(session("s1", DAY1))
    memory.ingest_session(session("s2", DAY2))

    prisma = by_fact(memory, "The ORM is Prisma 5.")
    assert prisma.current and prisma.uncertain == (
        "primary database changed from Postgres 15 to MySQL 8, and ORM depends on it"
    )
    assert not any(e.derived_from for e in memory.edges())
    context = memory.retrieve("which ORM do we use", k=1).context
    assert context.startswith("The ORM is Prisma 5. [uncertain: primary database changed from Postgres 15")
    assert memory.search("which ORM", k=1)[0].metadata["uncertain"] == prisma.uncertain


def test_dependencies_propagate_two_hops(kg):
    memory, _ = kg(
        extraction(
            [
                fact("primary database", "engine", "Postgres 15"),
                fact("ORM", "library", "Prisma 5"),
                fact("migration tool", "name", "prisma migrate"),
            ],
            [
                {"dependent": "ORM", "source": "primary database", "if_source_changes": "Drizzle"},
                {"dependent": "migration tool", "source": "ORM", "if_source_changes": None},
            ],
        ),
        extraction([fact("primary database", "engine", "MySQL 8")]),
    )
    memory.ingest_session(session("s1", DAY1))
    memory.ingest_session(session("s2", DAY2))
    migration = next(e for e in memory.edges() if e.subject == "migration tool" and e.kind == "fact")
    assert migration.uncertain == "ORM changed from Prisma 5 to Drizzle, and migration tool depends on it"


def test_forget_deletes_everywhere(kg):
    memory, _ = kg(
        extraction(
            [fact("locker", "code", "4471", "The locker code is 4471."), fact("locker", "floor", "3")]
        ),
        extraction(forget=[{"subject": "the locker", "relation": "code"}]),
    )
    memory.ingest_session(session("s1", DAY1))
    report = memory.ingest_session(session("s2", DAY2))
    assert report.deleted == 1
    assert "4471" not in memory.snapshot() and "4471" not in memory.retrieve("locker code 4471", k=10).context
    assert len(memory._vectors["default"]) == 1 and memory.graph().number_of_edges() == 1


def test_delete_and_update_reach_graph_vector_and_lexical_indexes(embedder):
    memory = TemporalKGMemory(embedder=embedder)  # the verbs need no LLM
    ids = memory.store(
        ["The boiler code is 4471.", "Odrin owns the boiler."],
        metadata=[{}, {"subject": "Odrin", "relation": "owns", "object": "boiler"}],
    )
    assert memory.graph().has_edge("odrin", "boiler", key=ids[1])
    memory.update(ids[0], "The boiler code is 9902.")
    assert by_fact(memory, "The boiler code is 9902.").history[0]["text"] == "The boiler code is 4471."
    assert "4471" not in memory.snapshot()
    memory.delete(ids[1])
    assert "odrin" not in memory.graph() and len(memory._vectors["default"]) == 1
    assert [h.text for h in memory.search("boiler owner Odrin", k=5)] == ["The boiler code is 9902."]


def test_neighbourhood_joins_the_ranking(embedder):
    memory = TemporalKGMemory(embedder=embedder)
    meta = [
        {"subject": "Odrin", "relation": "lives_in", "object": "Varn Street"},
        {"subject": "Odrin", "relation": "plays", "object": "cello"},
        {"subject": "Marnel", "relation": "likes", "object": "trains"},
    ]
    memory.store(
        ["Odrin lives on Varn Street.", "He plays the cello.", "Marnel likes night trains."], metadata=meta
    )
    # "He plays the cello" shares no word with the query; the graph brings it in through Odrin.
    texts = [h.text for h in memory.search("where does Odrin live", k=2)]
    assert texts == ["Odrin lives on Varn Street.", "He plays the cello."]


@pytest.mark.parametrize(
    ("reply", "failures", "added"),
    [
        ("not JSON at all", 1, 0),
        ({"something": "else"}, 1, 0),
        (LLMFailure("timeout", "injected"), 1, 0),
        (
            {
                "facts": [fact("router", "name", "Brindlewatch"), {"subject": "x"}, "junk"],
                "dependencies": [{"source": "y"}],
                "forget": "everything",
            },
            4,
            1,
        ),
    ],
    ids=["prose", "no-lists", "timeout", "bad-items"],
)
def test_failures_are_counted_never_raised(kg, reply, failures, added):
    memory, _ = kg(reply)
    report = memory.ingest_session(session("s1", DAY1))
    assert (report.failures, report.added) == (failures, added)


def test_save_load_keeps_temporal_fields_and_graph(embedder, kg, tmp_path):
    memory, _ = _dependency_episode(kg, None)
    memory.ingest_session(session("s1", DAY1))
    memory.ingest_session(session("s2", DAY2))
    memory.save(tmp_path / "kg")
    loaded = TemporalKGMemory.load(tmp_path / "kg", embedder=embedder)
    assert loaded.edges() == memory.edges() and loaded.snapshot() == memory.snapshot()
    assert sorted(loaded.graph().edges(keys=True)) == sorted(memory.graph().edges(keys=True))
    assert loaded.retrieve("which ORM", k=3).context == memory.retrieve("which ORM", k=3).context


def test_forced_tool_call_transport(kg):
    memory, llm = kg(extraction([fact("router", "name", "Brindlewatch")]), protocol="tools")
    report = memory.ingest_session(session("s1", DAY1))
    assert report.added == 1 and llm.calls[0].tool_choice["function"]["name"] == "record_graph"


def test_usage_is_accounted_to_the_system(kg):
    memory, llm = kg(extraction([fact("router", "name", "Brindlewatch")]))
    memory.ingest_session(session("s1", DAY1))
    assert memory.usage().llm_calls == 1 == llm.usage(system_name="temporal_kg", phase="ingest").llm_calls
    assert memory.usage().embedded_texts >= 1


@pytest.mark.slow
def test_wiring_with_the_local_model(local_llm, embedder):
    """The embedded 135M model end to end: whatever it extracts, the report, the graph and the context
    follow exactly from its recorded reply (its quality is not asserted on)."""
    from memsuite.memory_systems.llm import LLMClient, local_config, parse_json

    client = LLMClient(local_config(local_llm.base_url), environ={})
    llm = RecordingLLM(client)
    # Forced tool calls: llama.cpp constrains the arguments to the schema, the tiny model's best chance.
    memory = TemporalKGMemory(llm=llm, embedder=embedder, protocol="tools")
    report = memory.ingest_session(session("s1", DAY1, "I renamed the router to Brindlewatch yesterday."))
    context = memory.retrieve("what is the router called").context
    print(f"\n[temporal_kg wiring] report={report} usage={memory.usage()}")
    print(f"snapshot={memory.snapshot()!r}\ncontext={context!r}\nreplies={llm.replies!r}")
    # One chunk, one call; its payload is what the graph was built from.
    ((kind, result),) = llm.replies
    assert kind == "kg_extract"
    payload = None
    if result.ok:
        payload = result.tool_calls[0].arguments if result.tool_calls else parse_json(result.text)
    extracted = parse_extraction(payload)
    assert report.failures == (1 if extracted is None else extracted.invalid)
    if extracted is None:
        assert (report.added, report.updated, report.deleted) == (0, 0, 0)
    # The graph started empty: every edge it holds was added by this session, none was removed.
    edges = memory.edges()
    assert len(edges) == report.added - report.deleted and report.deleted == 0
    assert all(e.session_id == "s1" for e in edges)
    assert memory.usage().llm_failures == llm.failed() == client.usage().llm_failures
    # The context renders exactly the hits of one search, in order (each hit's fact, then annotations).
    hits = memory.search("what is the router called")
    assert len(hits) == min(memory.top_k, len(edges))
    if hits:
        blocks = context.split(CONTEXT_SEPARATOR)
        assert len(blocks) == len(hits)
        assert all(block.startswith(hit.text) for block, hit in zip(blocks, hits, strict=True))
    else:
        assert context == NO_MEMORY
