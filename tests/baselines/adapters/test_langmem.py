"""langmem adapter: langmem's memory store manager over langgraph's InMemoryStore, behind the contract.

The verbs are the store's own (the items keep langmem's value layout, so the manager sees them as its
memories); a failed call is counted, never raised, including trustcall's update path, which re-asks
after a failed call until LangGraph's recursion limit. Extraction with gold replies runs through the
oracle endpoint (tests/eval/oracle/test_oracle_langmem_llamaindex.py); the last test runs the
embedded local LLM.
"""

from __future__ import annotations

import sys

import pytest

pytest.importorskip("langmem", reason="needs the 'langmem' extra (langmem)")

from fakes import FakeLLM

from memsuite.baselines.adapters.langmem import RECURSION_LIMIT, ROOT, TESTED_VERSION, LangMemMemory
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


@pytest.fixture
def memory(embedder) -> LangMemMemory:
    return LangMemMemory(embedder=embedder)


def test_memories_are_store_items_in_langmems_layout(memory):
    ids = memory.store(["The staging port is 6642.", "The cat eats salmon."], namespace="team a")
    item = memory._store.get((ROOT, "ns-7465616d2061"), ids[0])  # the namespace, escaped
    assert item.value == {"kind": "Memory", "content": {"content": "The staging port is 6642."}}
    assert memory.search("which port does staging use", k=1, namespace="team a")[0].id == ids[0]
    memory.update(ids[0], "The staging port is 7719.", namespace="team a")
    assert memory.search("staging port", k=1, namespace="team a")[0].text == "The staging port is 7719."
    memory.delete(ids[1], namespace="team a")
    assert [r.id for r in memory.records(namespace="team a")] == [ids[0]]
    with pytest.raises(UnknownMemoryError):
        memory.delete(ids[0], namespace="team b")


@pytest.mark.parametrize("existing", [False, True], ids=["first-session", "with-memories"])
def test_a_failed_call_is_counted_not_raised(embedder, existing):
    llm = FakeLLM(script={"other": [LLMFailure("http_error", "server error", status_code=500)] * 50})
    memory = LangMemMemory(embedder=embedder, llm=llm)
    if existing:
        memory.store(["The router is called Gatekeep."], namespace="chat")
    report = memory.ingest_session(SESSION, namespace="chat")
    assert (report.added, report.updated, report.deleted) == (0, 0, 0)
    assert [r.text for r in memory.records(namespace="chat")] == (
        ["The router is called Gatekeep."] if existing else []
    )
    usage = memory.usage()
    assert report.failures == usage.llm_failures == usage.llm_calls >= 1  # every failed call
    if existing:  # trustcall's update path re-asks after the failure, up to the adapter's step limit
        assert 1 < usage.llm_calls <= RECURSION_LIMIT


def test_the_manager_sees_the_session_and_the_memories_its_search_found(embedder):
    llm = FakeLLM(script={"other": [""]})
    memory = LangMemMemory(embedder=embedder, llm=llm)
    memory.store(["The router is called Gatekeep.", "The cat eats salmon."], namespace="chat")
    report = memory.ingest_session(SESSION, namespace="chat")
    assert (report.added, report.failures) == (0, 0)  # a reply without tool calls changes nothing
    (call,) = llm.calls
    assert call.system_name == "langmem" and call.tool_choice == "required"
    system, user = call.messages[0]["content"], call.messages[1]["content"]
    assert system.startswith("You are a memory subroutine for an AI.")
    assert "The router is called Gatekeep." in system and "The cat eats salmon." in system
    assert "I renamed the router to Brindlewatch yesterday." in user
    assert {t["function"]["name"] for t in call.tools} == {"Memory", "PatchDoc", "RemoveDoc"}


def test_ingest_needs_an_llm_the_verbs_do_not(memory):
    memory.store(["No LLM needed for this."])
    with pytest.raises(ConfigError, match="needs an LLM"):
        memory.ingest_session(SESSION)


def test_params_record_the_pinned_version(memory):
    params = memory.params()
    assert params["langmem_version"] == params["langmem_tested_version"] == TESTED_VERSION


def test_missing_library_names_the_extra(monkeypatch, embedder):
    monkeypatch.setitem(sys.modules, "langmem", None)
    with pytest.raises(MissingDependencyError, match=r"memsuite-bench\[langmem\]"):
        LangMemMemory(embedder=embedder)


@pytest.mark.slow
def test_wiring_with_the_local_model(local_llm, embedder):
    """langmem's tool-calling request against the embedded SmolLM2-135M: whatever it calls, the report
    is the store's difference, failures are counted and nothing raises (wiring only, not quality)."""
    from memsuite.memory_systems.llm import LLMClient, local_config

    client = LLMClient(local_config(local_llm.base_url), environ={})
    memory = LangMemMemory(llm=client, embedder=embedder, max_tokens=200)
    memory.store(["The router is called Gatekeep."])
    report = memory.ingest_session(SESSION)
    usage = memory.usage()
    print(f"\n[langmem wiring] report={report} usage={usage} failures={client.failure_counts()}")
    assert usage.llm_calls >= 1 and usage.llm_failures <= report.failures  # every failed call counted
    assert len(memory.records()) == 1 + report.added - report.deleted
