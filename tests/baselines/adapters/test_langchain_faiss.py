"""langchain_faiss adapter: one document per turn, namespaces, real delete, save/load without pickle.

The pitfalls checked: LangChain's metadata filter under-returns (a fixed ``fetch_k`` before the
filter), ``FAISS.load_local`` unpickles its docstore, and ``InMemoryDocstore.add`` copies itself.
"""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest

pytest.importorskip(
    "langchain_community.vectorstores", reason="needs the 'adapters' extra (langchain-community)"
)

from memsuite.baselines.adapters.langchain_faiss import TESTED_VERSION, LangChainFaissMemory
from memsuite.memory_systems.base import NO_MEMORY
from memsuite.memory_systems.errors import MissingDependencyError, UnknownMemoryError
from memsuite.memory_systems.records import Session, Turn

SESSION = Session(
    "s1",
    "2023/03/05 (Sun) 11:24",
    (
        Turn("user", "I renamed the router to Brindlewatch yesterday."),
        Turn("assistant", "Noted, Brindlewatch."),
        Turn("user", "   "),
    ),
)


@pytest.fixture
def memory(embedder) -> LangChainFaissMemory:
    return LangChainFaissMemory(embedder=embedder)


def test_ingest_stores_one_document_per_turn(memory):
    report = memory.ingest_session(SESSION, namespace="chat")
    assert (report.added, report.failures) == (2, 0)  # the blank turn is skipped
    records = memory.records(namespace="chat")
    assert [r.text for r in records] == [
        "user: I renamed the router to Brindlewatch yesterday.",
        "assistant: Noted, Brindlewatch.",
    ]
    assert records[0].metadata == {"session_id": "s1", "timestamp": "2023/03/05 (Sun) 11:24", "turn": 0}
    hit = memory.search("what is the router called", k=1, namespace="chat")[0]
    assert hit.text.startswith("user: I renamed") and hit.metadata["turn"] == 0


def test_scores_are_cosine(memory):
    memory.store(["an entirely identical sentence", "something else"])
    best = memory.search("an entirely identical sentence", k=2)
    assert best[0].score == pytest.approx(1.0, abs=1e-4) and best[0].score > best[1].score


def test_small_namespace_gets_all_its_matches(memory):
    """LangChain's metadata filter fetches 20 candidates, then filters; a store per namespace does not."""
    memory.store([f"The staging database {i} runs on port {6000 + i}." for i in range(60)], namespace="big")
    small = memory.store(
        [
            "The staging database of team b runs on port 9999.",
            "Team b likes plums.",
            "Team b meets on Fridays.",
        ],
        namespace="small",
    )
    hits = memory.search("staging database port", k=5, namespace="small")
    assert {h.id for h in hits} == set(small)


def test_delete_removes_the_vector(memory, embedder):
    ids = memory.store(["The vault code is 4471.", "The ferry leaves at noon.", "Plums are ripe."])
    store = memory._stores["default"]
    memory.delete(ids[0])
    assert store.index.ntotal == 2 and ids[0] not in store.index_to_docstore_id.values()
    # Query the index with the deleted text's own vector: nothing left to find.
    vector = embedder.encode(["The vault code is 4471."])
    _, rows = store.index.search(vector, 3)
    assert sorted(store.index_to_docstore_id[int(r)] for r in rows[0] if r >= 0) == sorted(ids[1:])
    assert all("4471" not in h.text for h in memory.search("vault code 4471", k=10))
    with pytest.raises(UnknownMemoryError):
        memory.delete(ids[0])


def test_update_keeps_the_id_and_drops_the_old_vector(memory):
    ids = memory.store(["My dentist is Dr. Quessa.", "The garden needs water."], metadata=[{"src": "a"}, {}])
    memory.update(ids[0], "My dentist is now Dr. Torbek.")
    assert memory._stores["default"].index.ntotal == 2
    hit = memory.search("who is my dentist", k=1)[0]
    assert (hit.id, hit.text, hit.metadata) == (ids[0], "My dentist is now Dr. Torbek.", {"src": "a"})
    assert "Quessa" not in memory.snapshot()


def test_ids_are_unique_across_namespaces_and_scoped(memory):
    a = memory.store(["alpha"], namespace="a")
    b = memory.store(["beta"], namespace="b")
    assert a != b
    with pytest.raises(UnknownMemoryError):
        memory.update(a[0], "x", namespace="b")
    memory.reset(namespace="a")
    assert memory.retrieve("alpha", namespace="a").context == NO_MEMORY
    assert memory.records(namespace="b")[0].text == "beta"


def test_save_writes_json_and_faiss_never_pickle(memory, embedder, tmp_path):
    ids = memory.store(["The vault code is 4471.", "Plums are ripe."], namespace="a", metadata=[{"k": 1}, {}])
    memory.store(["Night trains to Destrel."], namespace="b")
    memory.delete(ids[1], namespace="a")
    memory.save(tmp_path / "store")
    files = sorted(p.name for p in (tmp_path / "store").iterdir())
    assert files == ["docstore.json", "index.0.faiss", "index.1.faiss", "memsuite.json"]
    state = json.loads((tmp_path / "store" / "docstore.json").read_text())
    assert state["namespaces"][0]["documents"] == [
        {"id": ids[0], "text": "The vault code is 4471.", "metadata": {"k": 1}}
    ]

    def no_unpickling(*args, **kwargs):
        raise AssertionError("load must not unpickle")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pickle, "load", no_unpickling)
        patch.setattr(pickle, "loads", no_unpickling)
        loaded = LangChainFaissMemory.load(tmp_path / "store", embedder=embedder)
    for namespace, query in (("a", "vault code"), ("b", "trains")):
        assert [(h.id, h.text) for h in loaded.search(query, namespace=namespace)] == [
            (h.id, h.text) for h in memory.search(query, namespace=namespace)
        ]
    assert loaded.store(["fresh"], namespace="a")[0] not in {
        ids[0],
        *(r.id for r in loaded.records(namespace="b")),
    }


def test_load_refuses_a_mismatched_index(memory, embedder, tmp_path):
    import faiss

    memory.store(["alpha", "beta"])
    memory.save(tmp_path / "store")
    faiss.write_index(faiss.IndexFlatIP(embedder.dim), str(tmp_path / "store" / "index.0.faiss"))
    with pytest.raises(Exception, match="0 vectors of dim"):
        LangChainFaissMemory.load(tmp_path / "store", embedder=embedder)


def test_docstore_appends_in_place(memory):
    memory.store(["one"])
    docstore = memory._stores["default"].docstore
    inner = docstore._dict
    memory.store(["two", "three"])
    assert docstore._dict is inner and list(inner) == ["0", "1", "2"]


def test_params_and_usage(memory):
    memory.store(["alpha", "beta"])
    params = memory.params()
    assert params["langchain_community_version"] == TESTED_VERSION
    assert memory.usage().embedded_texts >= 2 and memory.usage().llm_calls == 0
    assert np.isfinite(memory.search("alpha")[0].score)


def test_missing_library_names_the_extra(monkeypatch, embedder):
    monkeypatch.setitem(__import__("sys").modules, "langchain_community.vectorstores", None)
    with pytest.raises(MissingDependencyError, match=r"memsuite-bench\[adapters\]"):
        LangChainFaissMemory(embedder=embedder)
