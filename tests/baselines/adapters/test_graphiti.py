"""graphiti adapter: graphiti-core on embedded Kuzu behind the contract, its pitfalls, ingestion.

Pitfalls checked (graphiti-core 0.31.1 with Kuzu): the Kuzu driver creates no full-text index and
lacks the ``_database`` attribute ``add_episode`` reads (graphiti issue #1258); full-text search cuts
to the global top hits before filtering by group, so a small namespace loses keyword hits; each open
Kuzu database reserves 8 TiB of address space, so a process can hold ~15; delete must leave nothing
searchable; search returns invalidated edges, as ``Graphiti.search`` does. Ingestion is scripted
with tests/fakes.py (the graphiti prompts are its kind "other", answered by the schema each prompt
asks for); the last test runs the embedded local LLM.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from datetime import UTC, datetime

import pytest

if importlib.util.find_spec("graphiti_core") is None or importlib.util.find_spec("kuzu") is None:
    pytest.skip("needs the 'adapters' extra (graphiti-core, kuzu)", allow_module_level=True)

from fakes import FakeLLM

from memsuite.baselines.adapters.graphiti import TESTED_VERSION, GraphitiMemory
from memsuite.memory_systems.base import NO_MEMORY
from memsuite.memory_systems.errors import ConfigError, MissingDependencyError, UnknownMemoryError
from memsuite.memory_systems.llm import LLMFailure
from memsuite.memory_systems.records import Session, Turn

SESSION = Session(
    "s1",
    "2023/03/05 (Sun) 11:24",
    (
        Turn("user", "I renamed the router to Brindlewatch yesterday."),
        Turn("assistant", "Noted, Brindlewatch."),
    ),
)
_SCHEMA_MARK = "Respond with a JSON object in the following format:\n\n"
#: Searches with only the keyword half: no cosine similarity can reach this.
KEYWORDS_ONLY = 1.01


def _minimal(schema: dict, defs: dict) -> object:
    """The smallest instance of a JSON schema: required fields only, empty values."""
    if "$ref" in schema:
        return _minimal(defs[schema["$ref"].rsplit("/", 1)[-1]], defs)
    if "anyOf" in schema:
        return None
    kind = schema.get("type")
    if kind == "object":
        required = schema.get("required", [])
        return {k: _minimal(v, defs) for k, v in schema.get("properties", {}).items() if k in required}
    return {"string": "", "array": [], "integer": 0, "number": 0, "boolean": False}.get(kind)


def graphiti_reply(messages: list[dict]) -> dict:
    """Answer a graphiti prompt by the response schema it asks for: the router fact, else empty."""
    task = messages[-1]["content"]
    schema = json.JSONDecoder().raw_decode(task.split(_SCHEMA_MARK, 1)[1])[0] if _SCHEMA_MARK in task else {}
    title = schema.get("title")
    if title == "ExtractedEntities":
        return {
            "extracted_entities": [
                {"name": "user", "entity_type_id": 0},
                {"name": "Brindlewatch", "entity_type_id": 0},
            ]
        }
    if title == "ExtractedEdges":
        return {
            "edges": [
                {
                    "source_entity_name": "user",
                    "target_entity_name": "Brindlewatch",
                    "relation_type": "RENAMED_ROUTER_TO",
                    "fact": "The user renamed the router to Brindlewatch.",
                }
            ]
        }
    return _minimal(schema, schema.get("$defs", {})) or {}


@pytest.fixture
def memory(embedder, tmp_path):
    system = GraphitiMemory(embedder=embedder, workdir=tmp_path / "work")
    yield system
    system.close()


def _count_edge(memory: GraphitiMemory, uuid: str) -> int:
    rows, _, _ = memory._run(
        memory._driver.execute_query("MATCH (e:RelatesToNode_ {uuid: $uuid}) RETURN count(e) AS n", uuid=uuid)
    )
    return rows[0]["n"]


def test_stock_kuzu_driver_has_no_fulltext_index(tmp_path):
    """The pitfall (graphiti #1258): build_indices_and_constraints is a no-op, so BM25 queries fail."""
    import asyncio
    import warnings

    from graphiti_core.driver.kuzu_driver import KuzuDriver

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        driver = KuzuDriver(db=str(tmp_path / "stock.kuzu"))
    assert not hasattr(driver, "_database")
    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(driver.build_indices_and_constraints())
        with pytest.raises(RuntimeError, match="index"):
            loop.run_until_complete(
                driver.execute_query(
                    "CALL QUERY_FTS_INDEX('RelatesToNode_', 'edge_name_and_fact', 'x') RETURN *"
                )
            )
    finally:
        loop.close()
        driver.client.close()
        driver.db.close()


def test_keyword_search_works_on_a_fresh_database(memory):
    ids = memory.store(["Our deploy pipeline uses the Zunderbuild toolchain.", "Plums are ripe."])
    memory.sim_min_score = KEYWORDS_ONLY
    assert [h.id for h in memory.search("Zunderbuild", k=5)] == [ids[0]]


def test_keyword_hits_of_a_small_namespace_are_not_crowded_out(memory):
    memory.store([f"The staging database {i} runs on port {6000 + i}." for i in range(40)], namespace="big")
    small = memory.store(
        ["Team b keeps its staging database port in the wiki.", "Team b likes plums."], namespace="small"
    )
    memory.sim_min_score = KEYWORDS_ONLY
    assert [h.id for h in memory.search("staging database port", k=2, namespace="small")] == [small[0]]
    # graphiti's own query (global TOP := 2 * limit, then the group filter) finds nothing for "small".
    result = memory._run(
        memory._driver.client.execute(
            "CALL QUERY_FTS_INDEX('RelatesToNode_', 'edge_name_and_fact', 'staging database port', TOP := 4) "
            "WITH node AS e, score WHERE e.group_id = 'small' RETURN e.uuid AS uuid",
        )
    )
    assert list(result.rows_as_dict()) == []


def test_many_databases_open_at_once(embedder, tmp_path):
    """Kuzu's default reserves 8 TiB of address space per database: the 16th open one would fail."""
    systems = [GraphitiMemory(embedder=embedder, workdir=tmp_path / f"w{i}") for i in range(20)]
    try:
        assert all(s.search("anything", namespace="a") == [] for s in systems)
    finally:
        for system in systems:
            system.close()


def test_delete_leaves_nothing_searchable(memory):
    ids = memory.store(
        ["The vault code is 4471 quillfeather.", "The ferry leaves at noon.", "Plums are ripe."]
    )
    memory.delete(ids[0])
    assert _count_edge(memory, ids[0]) == 0
    for min_score in (KEYWORDS_ONLY, -1.0):  # the keyword half alone, then every edge by cosine
        memory.sim_min_score = min_score
        assert ids[0] not in {h.id for h in memory.search("vault code 4471 quillfeather", k=10)}
    assert "4471" not in memory.snapshot()
    with pytest.raises(UnknownMemoryError):
        memory.delete(ids[0])


def test_update_rewrites_fact_and_embedding(memory):
    ids = memory.store(["My dentist is Dr. Quessa.", "The garden needs water."])
    memory.update(ids[0], "My dentist is now Dr. Torbek.")
    assert _count_edge(memory, ids[0]) == 1
    memory.sim_min_score = KEYWORDS_ONLY
    assert memory.search("Quessa", k=5) == []
    assert memory.search("Torbek", k=5)[0].id == ids[0]
    memory.sim_min_score = -1.0
    assert memory.search("who is my dentist", k=1)[0].text == "My dentist is now Dr. Torbek."


def test_invalidated_edges_are_returned_as_graphiti_does_and_excluded_when_asked(memory):
    from graphiti_core.edges import EntityEdge

    assert memory.exclude_invalidated is False  # Graphiti.search's default: no date filter
    ids = memory.store(["The office is in Varnholm.", "The office is in Destrel."])
    edge = memory._run(EntityEdge.get_by_uuid(memory._driver, ids[0]))
    edge.invalid_at = edge.expired_at = datetime.now(UTC)  # as graphiti's contradiction step leaves it
    memory._run(edge.save(memory._driver))
    memory.sim_min_score = -1.0
    hits = memory.search("where is the office", k=5)
    assert {h.id for h in hits} == set(ids)
    old = next(h for h in hits if h.id == ids[0])
    assert old.metadata["invalid_at"] is not None  # the earlier value comes back with its end date
    assert "Varnholm" in memory.snapshot()
    memory.exclude_invalidated = True
    assert [h.id for h in memory.search("where is the office", k=5)] == [ids[1]]
    assert "Varnholm" not in memory.snapshot()


def test_namespaces_isolate(memory):
    a = memory.store(["The kestrel orchard floods every spring."], namespace="a")
    b = memory.store(["The kestrel orchard on Varn Street is dry."], namespace="team b")
    memory.sim_min_score = -1.0
    assert [h.id for h in memory.search("kestrel orchard", k=10, namespace="a")] == a
    assert [h.id for h in memory.search("kestrel orchard", k=10, namespace="team b")] == b
    for call in (
        lambda: memory.delete(a[0], namespace="team b"),
        lambda: memory.update(b[0], "x", namespace="a"),
    ):
        with pytest.raises(UnknownMemoryError):
            call()
    memory.reset(namespace="a")
    assert memory.retrieve("kestrel orchard", namespace="a").context == NO_MEMORY
    assert [r.id for r in memory.records(namespace="team b")] == b


def test_save_load_round_trip(memory, embedder, tmp_path):
    ids = memory.store(["Alpha runs on port 1.", "Beta runs on port 2."], metadata=[{"src": "x"}, {}])
    memory.store(["Gamma port in another namespace."], namespace="other")
    memory.update(ids[1], "Beta now runs on port 3.")
    memory.save(tmp_path / "saved")
    assert sorted(p.name for p in (tmp_path / "saved").iterdir()) == ["graph.kuzu", "memsuite.json"]
    loaded = GraphitiMemory.load(tmp_path / "saved", embedder=embedder)
    for namespace in ("default", "other"):
        assert [(h.id, h.text, h.score, h.metadata) for h in loaded.search("port", namespace=namespace)] == [
            (h.id, h.text, h.score, h.metadata) for h in memory.search("port", namespace=namespace)
        ]
    assert loaded.records()[0].metadata["src"] == "x"
    loaded.store(["Delta after reload."])  # the copy is writable and separate
    assert "Delta" not in memory.snapshot()
    loaded.close()


def test_ingest_adds_an_episode_through_the_client(embedder):
    llm = FakeLLM(script={"other": [graphiti_reply] * 40})
    memory = GraphitiMemory(embedder=embedder, llm=llm)
    report = memory.ingest_session(SESSION, namespace="chat")
    assert report.failures == 0 and report.added == 1
    assert "Brindlewatch" in memory.retrieve("what is the router called", namespace="chat").context
    assert memory.snapshot(namespace="chat") == "The user renamed the router to Brindlewatch."
    assert llm.calls and all(c.phase == "ingest" and c.system_name == "graphiti" for c in llm.calls)
    assert memory.usage().llm_calls == len(llm.calls)
    memory.close()


@pytest.mark.parametrize(
    "reply",
    [LLMFailure("context_length", "prompt too long", status_code=400), "not json at all", {"entities": 3}],
    ids=["call-failed", "not-json", "wrong-shape"],
)
def test_ingest_failures_are_counted_not_raised(embedder, reply):
    memory = GraphitiMemory(embedder=embedder, llm=FakeLLM(script={"other": [reply] * 40}))
    memory.store(["An older memory."], namespace="chat")
    report = memory.ingest_session(SESSION, namespace="chat")
    assert (report.added, report.failures) == (0, 1)
    assert [r.text for r in memory.records(namespace="chat")] == ["An older memory."]
    memory.close()


def test_a_bug_inside_ingestion_propagates(embedder, monkeypatch):
    """A TypeError in our own code is a bug, not an ingest failure that would pass for a bad score."""
    from memsuite.baselines.adapters import _graphiti_parts

    async def broken(self, *args, **kwargs):
        raise TypeError("a bug in the adapter")

    monkeypatch.setattr(_graphiti_parts.ClientLLM, "_generate_response", broken)
    memory = GraphitiMemory(embedder=embedder, llm=FakeLLM(script={"other": [graphiti_reply] * 40}))
    with pytest.raises(TypeError, match="a bug in the adapter"):
        memory.ingest_session(SESSION, namespace="chat")
    memory.close()


def test_a_network_error_is_counted(embedder, replay_llm):
    """A dropped connection (the real client over HTTP) is one counted failure, and nothing is added."""
    llm = replay_llm(script={"other": [LLMFailure("connection", "dropped")] * 40})
    memory = GraphitiMemory(embedder=embedder, llm=llm)
    report = memory.ingest_session(SESSION, namespace="chat")
    assert (report.added, report.failures) == (0, 1)
    usage = memory.usage()
    # graphiti's first step (entity extraction) is one call; its failure ends the episode.
    assert (usage.llm_calls, usage.llm_failures) == (1, 1) == (len(llm.calls), len(llm.calls))
    assert memory.records(namespace="chat") == []
    memory.close()


def test_ingest_needs_an_llm_the_verbs_do_not(memory):
    memory.store(["No LLM needed for this."])
    with pytest.raises(ConfigError, match="needs an LLM"):
        memory.ingest_session(SESSION)


def test_params_record_the_pinned_versions(memory):
    params = memory.params()
    assert params["graphiti_core_version"] == params["graphiti_core_tested_version"] == TESTED_VERSION
    assert params["kuzu_version"] == "0.11.3" and params["exclude_invalidated"] is False


def test_missing_library_names_the_extra(monkeypatch, embedder):
    monkeypatch.setitem(sys.modules, "graphiti_core", None)
    with pytest.raises(MissingDependencyError, match=r"memsuite-bench\[adapters\]"):
        GraphitiMemory(embedder=embedder)


@pytest.mark.slow
def test_wiring_with_the_local_model(local_llm, embedder):
    """Wiring only: graphiti's prompts against the embedded 135M model, JSON-object mode.

    The model's replies rarely fit graphiti's schemas; whatever happens is counted, never raised.
    """
    from memsuite.memory_systems.llm import LLMClient, local_config

    client = LLMClient(local_config(local_llm.base_url), environ={})
    memory = GraphitiMemory(llm=client, embedder=embedder)
    report = memory.ingest_session(SESSION)
    usage = memory.usage()
    print(f"\n[graphiti wiring] report={report} usage={usage} failures={client.failure_counts()}")
    print(f"snapshot={memory.snapshot()!r}")
    # The adapter's account holds exactly the client's calls (nothing else used the client), and a
    # failed episode adds nothing.
    assert (usage.llm_calls, usage.llm_failures) == (client.usage().llm_calls, client.usage().llm_failures)
    assert usage.llm_calls >= 1
    assert report.failures == 0 or report.added == 0
    assert isinstance(memory.retrieve("what is the router called").context, str)
    memory.close()
