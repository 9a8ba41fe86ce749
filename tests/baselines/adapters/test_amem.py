"""A-MEM adapter: the pinned a-mem behind the contract, its two LLM calls per note, and its failures.

a-mem swallows every exception of its analysis and evolution calls and stores the note with defaults;
the adapter counts those calls as failures. a-mem's prompts are scripted with tests/fakes.py (they are
the fake's kind "other": two calls per added note, analysis then evolution, the first note making
no evolution call); the last test runs the embedded local LLM.
"""

from __future__ import annotations

import importlib.util
import sys

import pytest

if importlib.util.find_spec("agentic_memory") is None:
    pytest.skip("needs the 'amem' extra (a-mem)", allow_module_level=True)

from fakes import FakeLLM

from memsuite.baselines.adapters.amem import TESTED_VERSION, AMemMemory
from memsuite.memory_systems.errors import (
    ConfigError,
    InvalidInputError,
    MissingDependencyError,
    UnknownMemoryError,
)
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
ANALYSIS = {"keywords": ["router", "Brindlewatch"], "context": "The user's router name.", "tags": ["home"]}
NO_EVOLUTION = {
    "should_evolve": False,
    "actions": [],
    "suggested_connections": [],
    "tags_to_update": [],
    "new_context_neighborhood": [],
    "new_tags_neighborhood": [],
}


@pytest.fixture
def memory(embedder, tmp_path) -> AMemMemory:
    system = AMemMemory(embedder=embedder, workdir=tmp_path / "work")
    yield system
    system.close()


def test_store_is_verbatim_and_calls_no_llm(embedder):
    llm = FakeLLM()
    memory = AMemMemory(embedder=embedder, llm=llm)
    ids = memory.store(["The staging database runs on port 6642.", "My cat eats salmon."], namespace="a")
    assert llm.calls == [] and len(set(ids)) == 2
    (hit,) = memory.search("staging database port", k=1, namespace="a")
    assert (hit.id, hit.text) == (ids[0], "The staging database runs on port 6642.")
    assert 0 < hit.score <= 1
    note = memory._systems["a"].read(ids[0])
    assert (note.keywords, note.context, note.tags, note.links) == ([], "General", [], [])
    memory.close()


def test_update_delete_and_namespaces(memory):
    a = memory.store(["The staging database runs on port 6642.", "My cat eats salmon."], namespace="a")
    b = memory.store(["Marnel prefers window seats."], namespace="b")
    assert [h.text for h in memory.search("window seats", k=5, namespace="a")] != [
        "Marnel prefers window seats."
    ]
    memory.update(a[0], "The staging database moved to port 7719.", namespace="a")
    assert [r.text for r in memory.records(namespace="a")] == [
        "My cat eats salmon.",
        "The staging database moved to port 7719.",
    ]
    with pytest.raises(UnknownMemoryError):
        memory.delete(b[0], namespace="a")
    memory.delete(a[1], namespace="a")
    assert [h.id for h in memory.search("cat salmon", k=5, namespace="a")] == [a[0]]
    assert memory.search("anything", namespace="nobody") == []
    memory.store(["A note of a namespace with a space."], namespace="team b")
    assert sorted(memory.namespaces()) == ["a", "b", "team b"]
    memory.reset(namespace="a")
    assert memory.records(namespace="a") == [] and len(memory.records(namespace="b")) == 1


def test_metadata_and_save_load(memory, embedder, tmp_path):
    ids = memory.store(["Port 6642.", "Port 7719."], namespace="a", metadata=[{"src": "x"}, {}])
    memory.save(tmp_path / "saved")
    loaded = AMemMemory.load(tmp_path / "saved", embedder=embedder)
    assert loaded.records(namespace="a") == memory.records(namespace="a")
    assert [(h.id, round(h.score, 5), h.metadata) for h in loaded.search("port", namespace="a")] == [
        (h.id, round(h.score, 5), h.metadata) for h in memory.search("port", namespace="a")
    ]
    first = loaded.records(namespace="a")[0]
    assert (first.id, first.metadata) == (ids[0], {"src": "x"})
    loaded.close()


def test_ingest_runs_analysis_and_evolution_through_the_client(embedder):
    evolve = {**NO_EVOLUTION, "should_evolve": True, "actions": ["strengthen"], "tags_to_update": ["home"]}
    llm = FakeLLM(script={"other": [ANALYSIS, ANALYSIS, evolve]})
    memory = AMemMemory(embedder=embedder, llm=llm)
    report = memory.ingest_session(SESSION, namespace="chat")
    assert (report.added, report.updated, report.deleted, report.failures) == (2, 0, 0, 0)
    # the first note has no neighbour to evolve with: 2 + 1 calls
    assert [c.phase for c in llm.calls] == ["ingest"] * 3
    assert all(c.system_name == "amem" for c in llm.calls)
    assert "Content for analysis:" in llm.calls[0].messages[-1]["content"]
    assert "user: I renamed the router" in llm.calls[0].messages[-1]["content"]
    assert "memory evolution agent" in llm.calls[2].messages[-1]["content"]
    records = memory.records(namespace="chat")
    assert [r.text for r in records] == [f"{t.role}: {t.content}" for t in SESSION.turns]
    first = memory._systems["chat"].read(records[0].id)
    assert (first.keywords, first.timestamp) == (["router", "Brindlewatch"], "202303051124")
    assert "Brindlewatch" in memory.retrieve("what is the router called", namespace="chat").context
    assert memory.usage().llm_calls == 3
    memory.close()


def test_retrieval_follows_links_as_the_authors_path_does_and_bare_search_does_not(embedder):
    memory = AMemMemory(embedder=embedder)
    ids = memory.store(
        ["The staging database runs on port 6642.", "My cat eats salmon.", "Quillon owns the cat."],
        namespace="a",
    )
    system = memory._systems["a"]
    system.update(ids[1], links=[ids[2]])  # as a-mem's evolution links notes
    question = "what does my cat eat"
    result = memory.retrieve(question, k=1, namespace="a")
    # The context is a-mem's find_related_memories_raw string, whole; the hits are its entries.
    assert result.context == system.find_related_memories_raw(question, k=1)
    assert [h.id for h in result.hits] == [ids[1], ids[2]]
    assert result.hits[1].metadata["linked_from"] == ids[1]
    assert "memory keywords:" in result.context and "talk start time:" in result.context
    assert [h.id for h in memory.search(question, k=2, namespace="a")] == [ids[1], ids[2]]
    assert memory.params()["retrieval"] == "related"
    bare = AMemMemory(embedder=embedder, retrieval="search")
    bare_ids = bare.store(["My cat eats salmon.", "Quillon owns the cat."], namespace="a")
    bare._systems["a"].update(bare_ids[0], links=[bare_ids[1]])
    assert [h.id for h in bare.search(question, k=1, namespace="a")] == [bare_ids[0]]
    assert bare.retrieve(question, k=1, namespace="a").context == "My cat eats salmon."
    with pytest.raises(InvalidInputError, match="retrieval"):
        AMemMemory(embedder=embedder, retrieval="agentic")
    memory.close()
    bare.close()


@pytest.mark.parametrize(
    "reply",
    [
        LLMFailure("context_length", "prompt too long", status_code=400),
        "not json at all",
        {"keywords": "router"},
    ],
    ids=["call-failed", "not-json", "wrong-shape"],
)
def test_failures_are_counted_and_the_note_kept(embedder, reply):
    llm = FakeLLM(script={"other": [reply, ANALYSIS, NO_EVOLUTION]})
    memory = AMemMemory(embedder=embedder, llm=llm)
    report = memory.ingest_session(SESSION, namespace="chat")
    # a-mem stores the note with its default analysis when the call fails
    assert (report.added, report.failures) == (2, 1)
    first = memory._systems["chat"].read(memory.records(namespace="chat")[0].id)
    assert (first.keywords, first.context) == ([], "General")
    memory.close()


def test_ingest_needs_an_llm_the_verbs_do_not(memory):
    memory.store(["No LLM needed for this."])
    with pytest.raises(ConfigError, match="needs an LLM"):
        memory.ingest_session(SESSION)


def test_params_record_the_pinned_version_and_state_lives_in_the_workdir(memory, tmp_path):
    params = memory.params()
    assert params["a_mem_version"] == params["a_mem_tested_version"] == TESTED_VERSION
    memory.store(["Something to remember."], namespace="a")
    assert (tmp_path / "work" / "chroma" / "a").is_dir()


def test_missing_library_names_the_extra(monkeypatch, embedder):
    monkeypatch.setitem(sys.modules, "agentic_memory.memory_system", None)
    with pytest.raises(MissingDependencyError, match=r"memsuite-bench\[amem\]"):
        AMemMemory(embedder=embedder)


@pytest.mark.slow
def test_wiring_with_the_local_model(local_llm, embedder):
    """a-mem's prompts with the 135M model: every call is made, whatever it writes is stored or
    counted (a reply without a-mem's fields is a failure), nothing raises."""
    from memsuite.memory_systems.llm import LLMClient, local_config

    client = LLMClient(local_config(local_llm.base_url), environ={})
    memory = AMemMemory(llm=client, embedder=embedder, max_tokens=200)
    report = memory.ingest_session(SESSION)
    usage = memory.usage()
    print(f"\n[amem wiring] report={report} usage={usage} failures={client.failure_counts()}")
    assert report.added == 2 and 0 <= report.failures <= 3
    assert usage.llm_calls >= 3 and usage.llm_failures <= report.failures
    assert len(memory.records()) == 2
    assert "Brindlewatch" in memory.retrieve("what is the router called").context
    memory.close()
