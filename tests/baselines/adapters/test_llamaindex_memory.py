"""llamaindex_memory adapter: LlamaIndex's Memory and fact block behind the contract.

What the library does is checked through its own code: the short-term queue keeps the latest turn and
flushes older messages to the fact block, which appends the ``<fact>`` items it does not hold and, past
``max_facts``, replaces its list with the condense call's reply. Replies are scripted with
tests/fakes.py (the library's prompts are the fake's kind "other"); the last test runs the embedded
local LLM.
"""

from __future__ import annotations

import sys

import pytest

pytest.importorskip("llama_index.core.memory", reason="needs the 'llamaindex' extra (llama-index-core)")

from fakes import FakeLLM

from memsuite.baselines.adapters.llamaindex_memory import TESTED_VERSION, LlamaIndexMemory
from memsuite.memory_systems.base import NO_MEMORY
from memsuite.memory_systems.errors import (
    ConfigError,
    InvalidInputError,
    MissingDependencyError,
    UnknownMemoryError,
)
from memsuite.memory_systems.llm import LLMFailure
from memsuite.memory_systems.records import Session, Turn

#: Three turns of ~15 tokens each: with token_limit=40 the first turns leave the short-term queue.
SESSION = Session(
    "s1",
    "2023/03/05 (Sun) 11:24",
    (
        Turn("user", "I renamed the router to Brindlewatch yesterday; the old name kept confusing guests."),
        Turn("assistant", "Noted, the router is now called Brindlewatch; I will use that name from now on."),
        Turn("user", "Also, the printer in the hall is out of cyan toner again, order more please."),
        Turn("assistant", "I will order cyan toner for the hall printer today."),
    ),
)
FACTS = "<facts>\n  <fact>The router is called Brindlewatch.</fact>\n</facts>"


@pytest.fixture
def memory(tmp_path) -> LlamaIndexMemory:
    system = LlamaIndexMemory(workdir=tmp_path / "work")
    yield system
    system.close()


def test_verbs_edit_the_fact_block_and_ids_survive_an_update(memory):
    ids = memory.store(["The staging port is 6642.", "The cat eats salmon."], namespace="a")
    assert memory.store(["The cat eats salmon."], namespace="a") == [ids[1]]  # the library's dedupe
    memory.update(ids[0], "The staging port is 7719.", namespace="a")
    memory.update(ids[0], "The staging port is 7720.", namespace="a")  # the same id again
    assert [(r.id, r.text) for r in memory.records(namespace="a")] == [
        (ids[0], "The staging port is 7720."),
        (ids[1], "The cat eats salmon."),
    ]
    assert memory._scopes["a"].block.facts == ["The staging port is 7720.", "The cat eats salmon."]
    memory.delete(ids[1], namespace="a")
    with pytest.raises(UnknownMemoryError):
        memory.delete(ids[1], namespace="a")
    with pytest.raises(UnknownMemoryError):
        memory.update(ids[0], "elsewhere", namespace="b")


def test_retrieve_is_the_library_context_whatever_k(memory):
    memory.store([f"Fact number {i}." for i in range(8)], namespace="a")
    result = memory.retrieve("anything", k=2, namespace="a")
    assert "<ExtractedFacts>" in result.context  # rendered by the library's memory template
    assert all(f"<fact>Fact number {i}.</fact>" in result.context for i in range(8))
    # Every fact the library returned, newest first (the library keeps the newest where it must
    # keep less); search(k) is the first k of them, whatever the query.
    assert [h.text for h in result.hits] == [f"Fact number {i}." for i in reversed(range(8))]
    newest = [f"Fact number {i}." for i in (7, 6, 5)]
    assert [h.text for h in memory.search("anything", k=3, namespace="a")] == newest
    assert [h.text for h in memory.search("Fact number 0", k=3, namespace="a")] == newest
    assert memory.retrieve("anything", namespace="empty").context == NO_MEMORY


def test_ingest_flushes_old_turns_to_the_fact_block(tmp_path):
    llm = FakeLLM(script={"other": [FACTS]})
    memory = LlamaIndexMemory(llm=llm, workdir=tmp_path / "work", token_limit=40)
    report = memory.ingest_session(SESSION, namespace="chat")
    assert (report.added, report.deleted, report.failures) == (1, 0, 0)
    (call,) = llm.calls
    assert call.phase == "ingest" and call.system_name == "llamaindex_memory"
    assert "Brindlewatch" in call.messages[0]["content"]  # the flushed turns, then the prompt
    assert "<existing_facts>" in call.messages[-1]["content"]
    assert "cyan toner" not in "".join(m["content"] for m in call.messages)  # the last turn stays
    context = memory.retrieve("what is the router called", namespace="chat").context
    assert "<fact>The router is called Brindlewatch.</fact>" in context
    assert "user: Also, the printer in the hall is out of cyan toner" in context  # short-term memory
    snapshot = memory.snapshot(namespace="chat")
    assert "The router is called Brindlewatch." in snapshot and "cyan toner" in snapshot
    memory.close()


def test_past_max_facts_the_condense_reply_replaces_the_list(tmp_path):
    condensed = "<facts><fact>The router is called Brindlewatch.</fact></facts>"
    llm = FakeLLM(script={"other": [FACTS, condensed]})
    memory = LlamaIndexMemory(llm=llm, workdir=tmp_path / "work", token_limit=40, max_facts=1)
    memory.store(["The router was called Gatekeep."], namespace="chat")
    report = memory.ingest_session(SESSION, namespace="chat")
    assert [r.text for r in memory.records(namespace="chat")] == ["The router is called Brindlewatch."]
    assert (report.added, report.deleted, report.failures) == (1, 1, 0)
    assert "fact condensing system" in llm.calls[-1].messages[-1]["content"]


@pytest.mark.parametrize(
    "reply", [LLMFailure("context_length", "prompt too long", status_code=400)], ids=["call-failed"]
)
def test_a_failed_call_is_counted_not_raised(tmp_path, reply):
    memory = LlamaIndexMemory(llm=FakeLLM(script={"other": [reply]}), workdir=tmp_path / "w", token_limit=40)
    memory.store(["An older fact."], namespace="chat")
    report = memory.ingest_session(SESSION, namespace="chat")
    assert (report.added, report.failures) == (0, 1)
    assert [r.text for r in memory.records(namespace="chat")] == ["An older fact."]
    assert memory.usage().llm_failures == 1
    memory.close()


def test_ingest_needs_an_llm_the_verbs_do_not(memory):
    memory.store(["No LLM needed for this."])
    with pytest.raises(ConfigError, match="needs an LLM"):
        memory.ingest_session(SESSION)


def test_save_load_keeps_facts_ids_and_short_term_messages(tmp_path):
    memory = LlamaIndexMemory(llm=FakeLLM(script={"other": [FACTS]}), workdir=tmp_path / "w", token_limit=40)
    memory.ingest_session(SESSION, namespace="chat")
    memory.save(tmp_path / "store")
    loaded = LlamaIndexMemory.load(tmp_path / "store")
    assert loaded.records(namespace="chat") == memory.records(namespace="chat")
    assert loaded.snapshot(namespace="chat") == memory.snapshot(namespace="chat")
    memory.close()
    loaded.close()


def test_context_tokens_is_the_librarys_token_limit(tmp_path):
    llm = FakeLLM(script={"other": [FACTS]})
    memory = LlamaIndexMemory(llm=llm, workdir=tmp_path / "w", token_limit=5000, context_tokens=40)
    assert memory.params()["context_tokens"] == 40 and memory.params()["token_limit"] == 40
    memory.ingest_session(SESSION, namespace="chat")
    scope = memory._scopes["chat"]
    assert scope.memory.token_limit == 40
    # The library flushed the older turns to its fact block because the limit is 40, not 5000.
    assert [r.text for r in memory.records(namespace="chat")] == ["The router is called Brindlewatch."]
    memory.save(tmp_path / "store")
    loaded = LlamaIndexMemory.load(tmp_path / "store")
    assert loaded.context_tokens == 40 and loaded._scopes["chat"].memory.token_limit == 40
    loaded.close()
    memory.close()
    with pytest.raises(InvalidInputError, match="context_tokens"):
        LlamaIndexMemory(context_tokens=0)


def test_params_record_the_pinned_version(memory):
    params = memory.params()
    assert params["llama_index_core_version"] == params["llama_index_core_tested_version"] == TESTED_VERSION


def test_missing_library_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "llama_index.core.memory", None)
    with pytest.raises(MissingDependencyError, match=r"memsuite-bench\[llamaindex\]"):
        LlamaIndexMemory()


@pytest.mark.slow
def test_wiring_with_the_local_model(local_llm, tmp_path):
    """The fact block's prompts against the embedded SmolLM2-135M: whatever it writes, the report is
    what the block holds, failures are counted and nothing raises (wiring only, not quality)."""
    from memsuite.memory_systems.llm import LLMClient, local_config

    client = LLMClient(local_config(local_llm.base_url), environ={})
    memory = LlamaIndexMemory(llm=client, workdir=tmp_path / "w", token_limit=40, max_tokens=200)
    report = memory.ingest_session(SESSION)
    usage = memory.usage()
    print(f"\n[llamaindex_memory wiring] report={report} usage={usage} failures={client.failure_counts()}")
    assert usage.llm_calls >= 1 and usage.llm_failures == report.failures
    assert len(memory.records()) == report.added - report.deleted
    memory.close()
