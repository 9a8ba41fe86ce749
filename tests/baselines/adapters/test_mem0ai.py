"""mem0ai adapter: the pinned mem0 behind the contract, its faiss pitfalls, extraction and failures.

Pitfalls checked: mem0's own faiss store under-returns for a scoped user (it filters after fetching
``2 * top_k``; mem0 issue #6998), which the adapter's store fixes; delete must leave no vector behind;
a failed or unusable extraction reply is counted, never raised. mem0's extraction is scripted with
tests/fakes.py (its prompts are the fake's kind "other"); the last test runs the embedded local LLM.
"""

from __future__ import annotations

import importlib.util
import sys

import pytest

# find_spec, not importorskip: mem0 must first be imported by the adapter, which turns telemetry off.
if importlib.util.find_spec("mem0") is None:
    pytest.skip("needs the 'adapters' extra (mem0ai)", allow_module_level=True)

from fakes import FakeLLM

from memsuite.baselines.adapters.mem0ai import TESTED_VERSION, Mem0Memory
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
EXTRACTED = {
    "memory": [{"id": "0", "text": "The user renamed the router to Brindlewatch.", "attributed_to": "user"}]
}


@pytest.fixture
def memory(embedder, tmp_path) -> Mem0Memory:
    system = Mem0Memory(embedder=embedder, workdir=tmp_path / "work")
    yield system
    system.close()


def test_stock_mem0_faiss_under_returns_for_a_scoped_user(memory, tmp_path):
    """The pitfall in the pinned version (why the adapter replaces the store): filter after a 2k fetch."""
    from mem0.vector_stores.faiss import FAISS  # imported after the adapter (``memory``) set telemetry off

    store = FAISS("pitfall", path=str(tmp_path / "faiss"), distance_strategy="cosine", embedding_model_dims=4)
    near, far = [1.0, 0.0, 0.0, 0.0], [0.6, 0.8, 0.0, 0.0]
    store.insert([near] * 20, [{"user_id": "a"}] * 20, [f"a{i}" for i in range(20)])
    store.insert([far] * 3, [{"user_id": "b"}] * 3, ["b0", "b1", "b2"])
    assert len(store.search("q", [near], top_k=3, filters={"user_id": "b"})) < 3


def test_scoped_store_returns_every_match_of_a_small_scope(memory):
    parts = sys.modules["memsuite.baselines.adapters._mem0_parts"]
    store = parts.ScopedFaissStore(4)
    near, far = [1.0, 0.0, 0.0, 0.0], [0.6, 0.8, 0.0, 0.0]
    store.insert([near] * 20, [{"user_id": "a"}] * 20, [f"a{i}" for i in range(20)])
    store.insert([far] * 3, [{"user_id": "b", "tag": t} for t in "xyx"], ["b0", "b1", "b2"])
    assert sorted(r.id for r in store.search("q", [near], top_k=3, filters={"user_id": "b"})) == [
        "b0",
        "b1",
        "b2",
    ]
    assert [r.id for r in store.search("q", [near], top_k=3, filters={"user_id": "b", "tag": "y"})] == ["b1"]


def test_small_namespace_gets_its_memories_through_mem0(memory):
    memory.store(
        [f"The staging database number {i} runs on port {6000 + i}." for i in range(120)], namespace="a"
    )
    b = memory.store(
        ["The staging database of team b runs on port 9999.", "Team b's staging proxy is called Quill."],
        namespace="b",
    )
    hits = memory.search("staging database port", k=5, namespace="b")
    assert hits[0].id == b[0] and {h.id for h in hits} <= set(b)
    assert all(h.text not in memory.snapshot(namespace="a") for h in hits)


def test_delete_removes_the_vector_and_keeps_history(memory, embedder, tmp_path):
    ids = memory.store(["The vault code is 4471.", "The ferry leaves at noon.", "Plums are ripe."])
    store = memory._store
    memory.delete(ids[0])
    assert store.count("default") == 2 and store.get(ids[0]) is None
    # The deleted text's own vector finds nothing of it, in the store and through mem0.
    found = store.search("q", embedder.encode(["The vault code is 4471."])[0].tolist(), top_k=10)
    assert ids[0] not in {r.id for r in found}
    assert all("4471" not in h.text for h in memory.search("vault code 4471", k=10))
    assert [row["event"] for row in memory.history(ids[0])] == ["ADD", "DELETE"]
    memory.save(tmp_path / "saved")
    loaded = Mem0Memory.load(tmp_path / "saved", embedder=embedder)
    assert loaded._store.get(ids[0]) is None and "4471" not in loaded.snapshot()
    with pytest.raises(UnknownMemoryError):
        loaded.delete(ids[0])
    loaded.close()


def test_update_replaces_and_keeps_position(memory):
    ids = memory.store(["My dentist is Dr. Quessa.", "The garden needs water."])
    memory.update(ids[0], "My dentist is now Dr. Torbek.")
    assert [r.text for r in memory.records()] == ["My dentist is now Dr. Torbek.", "The garden needs water."]
    assert memory.search("who is my dentist", k=1)[0].text == "My dentist is now Dr. Torbek."
    history = memory.history(ids[0])
    assert history[-1]["old_memory"] == "My dentist is Dr. Quessa." and history[-1]["event"] == "UPDATE"


def test_namespaces_isolate(memory):
    a = memory.store(["The kestrel orchard floods every spring."], namespace="a")
    b = memory.store(
        ["The kestrel orchard in Varn Street is dry.", "Odd namespaces work."], namespace="team b"
    )
    assert memory._store.get(b[0]).payload["user_id"] != "team b"  # escaped: mem0 refuses whitespace
    assert {h.id for h in memory.search("kestrel orchard", k=10, namespace="a")} == set(a)
    assert {h.id for h in memory.search("kestrel orchard", k=10, namespace="team b")} <= set(b)
    for call in (
        lambda: memory.delete(a[0], namespace="team b"),
        lambda: memory.update(b[0], "x", namespace="a"),
    ):
        with pytest.raises(UnknownMemoryError):
            call()
    memory.reset(namespace="a")
    assert memory.retrieve("kestrel orchard", namespace="a").context == NO_MEMORY
    assert [r.id for r in memory.records(namespace="team b")] == b


def test_save_load_round_trip_keeps_ids_scores_and_history(memory, embedder, tmp_path):
    ids = memory.store(["Alpha runs on port 1.", "Beta runs on port 2."], metadata=[{"src": "x"}, {}])
    memory.store(["Gamma in another namespace."], namespace="other")
    memory.update(ids[1], "Beta now runs on port 3.")
    memory.save(tmp_path / "saved")
    loaded = Mem0Memory.load(tmp_path / "saved", embedder=embedder)
    for namespace in ("default", "other"):
        assert [
            (h.id, h.text, round(h.score, 5), h.metadata) for h in loaded.search("port", namespace=namespace)
        ] == [
            (h.id, h.text, round(h.score, 5), h.metadata) for h in memory.search("port", namespace=namespace)
        ]
    assert loaded.history(ids[1]) == memory.history(ids[1])
    assert loaded.records()[0].metadata == {"src": "x"}
    loaded.close()


def test_ingest_runs_mem0_extraction_through_the_client(embedder):
    llm = FakeLLM(script={"other": [EXTRACTED]})
    memory = Mem0Memory(embedder=embedder, llm=llm)
    report = memory.ingest_session(SESSION, namespace="chat")
    assert (report.added, report.failures) == (1, 0)
    assert "Brindlewatch" in memory.retrieve("what is the router called", namespace="chat").context
    (call,) = llm.calls
    assert call.phase == "ingest" and call.system_name == "mem0ai"
    assert "system: Session date: 2023/03/05 (Sun) 11:24" in call.messages[-1]["content"]
    assert memory.records(namespace="chat")[0].metadata["session_id"] == "s1"
    assert memory.usage().llm_calls == 1
    memory.close()


@pytest.mark.parametrize(
    "reply",
    [LLMFailure("context_length", "prompt too long", status_code=400), "not json at all", {"facts": ["x"]}],
    ids=["call-failed", "not-json", "wrong-shape"],
)
def test_ingest_failures_are_counted_not_raised(embedder, reply):
    memory = Mem0Memory(embedder=embedder, llm=FakeLLM(script={"other": [reply]}))
    memory.store(["An older memory."], namespace="chat")
    report = memory.ingest_session(SESSION, namespace="chat")
    assert (report.added, report.failures) == (0, 1)
    assert [r.text for r in memory.records(namespace="chat")] == ["An older memory."]
    memory.close()


def test_ingest_needs_an_llm_the_verbs_do_not(memory):
    memory.store(["No LLM needed for this."])
    with pytest.raises(ConfigError, match="needs an LLM"):
        memory.ingest_session(SESSION)


def test_params_record_the_pinned_version(memory):
    params = memory.params()
    assert params["mem0ai_version"] == params["mem0ai_tested_version"] == TESTED_VERSION
    assert memory.mem0_config["vector_store"]["config"]["embedding_model_dims"] == 384
    assert memory.mem0_config["embedder"]["provider"] == "huggingface"


def test_telemetry_is_off_and_history_lives_in_the_workdir(memory, tmp_path):
    from mem0.memory import telemetry

    assert telemetry.MEM0_TELEMETRY is False
    memory.store(["Something to remember."])
    assert (tmp_path / "work" / "history.sqlite").exists()


def test_missing_library_names_the_extra(monkeypatch, embedder):
    monkeypatch.setitem(sys.modules, "mem0", None)
    with pytest.raises(MissingDependencyError, match=r"memsuite-bench\[adapters\]"):
        Mem0Memory(embedder=embedder)


@pytest.mark.slow
def test_wiring_with_the_local_model(local_llm, embedder):
    """mem0's extraction prompt (~7,700 tokens) against the 2,048-token local server: the one call is
    refused (context length, not retried) and counted as exactly one failure; nothing is stored."""
    from memsuite.memory_systems.llm import LLMClient, local_config

    client = LLMClient(local_config(local_llm.base_url), environ={})
    memory = Mem0Memory(llm=client, embedder=embedder)
    report = memory.ingest_session(SESSION)
    usage = memory.usage()
    print(f"\n[mem0ai wiring] report={report} usage={usage} failures={client.failure_counts()}")
    assert (report.added, report.updated, report.deleted, report.failures) == (0, 0, 0, 1)
    assert client.failure_counts() == {"context_length": 1}
    assert (usage.llm_calls, usage.llm_failures, usage.cache_hits) == (1, 1, 0)
    assert memory.records() == [] and memory.retrieve("what is the router called").context == NO_MEMORY
    memory.close()
