"""The contract's defaults, on a system that implements only what docs/extending.md asks."""

from __future__ import annotations

import pytest

from memsuite.memory_systems.base import CONTEXT_SEPARATOR, NO_MEMORY, MemorySystem
from memsuite.memory_systems.chunking import chunk_documents
from memsuite.memory_systems.errors import InvalidInputError
from memsuite.memory_systems.records import Document, Hit, MemoryRecord, RetrievalResult, Session, Turn
from memsuite.memory_systems.store import RecordStore


class Minimal(MemorySystem):
    """The four verbs, ``records`` and ``namespaces``; every other method is the contract's default."""

    name = "minimal"

    def __init__(self) -> None:
        super().__init__()
        self._records = RecordStore()

    def store(self, items, *, namespace="default", metadata=None):
        return [r.id for r in self._records.add(items, namespace, metadata)]

    def _search(self, query, *, k, namespace):
        words = set(query.lower().split())
        ranked = sorted(
            self._records.list(namespace), key=lambda r: -len(words & set(r.text.lower().split()))
        )
        return [
            Hit(r.id, r.text, 1.0, dict(r.metadata))
            for r in ranked[:k]
            if words & set(r.text.lower().split())
        ]

    def update(self, memory_id, text, *, namespace="default"):
        self._records.replace(memory_id, text, namespace)

    def delete(self, memory_id, *, namespace="default"):
        self._records.remove(memory_id, namespace)

    def records(self, *, namespace="default") -> list[MemoryRecord]:
        return self._records.list(namespace)

    def namespaces(self) -> list[str]:
        return self._records.namespaces()


SESSION = Session(
    "s", "2023/05/07", (Turn("user", "The router is Brindlewatch."), Turn("assistant", "Noted."))
)


def test_default_reset_deletes_one_namespace_or_all():
    memory = Minimal()
    memory.store(["alpha one", "alpha two"], namespace="a")
    memory.store(["beta"], namespace="b")
    memory.reset(namespace="a")
    assert memory.records(namespace="a") == [] and [r.text for r in memory.records(namespace="b")] == ["beta"]
    memory.store(["alpha three"], namespace="a")
    memory.reset()
    assert memory.records(namespace="a") == [] and memory.records(namespace="b") == []


def test_default_reset_says_what_is_missing():
    class NoListing(Minimal):
        def namespaces(self) -> list[str]:
            return MemorySystem.namespaces(self)

    memory = NoListing()
    memory.store(["alpha"], namespace="a")
    memory.reset(namespace="a")  # one namespace needs only records()
    with pytest.raises(NotImplementedError, match="namespaces"):
        memory.reset()


def test_default_retrieve_returns_context_and_hits():
    memory = Minimal()
    assert memory.retrieve("router") == RetrievalResult(NO_MEMORY)
    memory.store(["the router is Brindlewatch", "the cat eats salmon", "router firmware 7"])
    result = memory.retrieve("router", k=2)
    assert [h.text for h in result.hits] == ["the router is Brindlewatch", "router firmware 7"]
    assert result.context == CONTEXT_SEPARATOR.join(h.text for h in result.hits)


def test_default_ingest_stores_the_benchmarks_layout():
    plain = Minimal()
    plain.ingest_session(SESSION)  # no layout: one "role: content" document per turn
    assert [r.text for r in plain.records()] == ["user: The router is Brindlewatch.", "assistant: Noted."]

    chunked = Minimal()
    report = chunked.ingest_session(
        Session(SESSION.session_id, SESSION.timestamp, SESSION.turns, documents=chunk_documents(SESSION))
    )
    assert report.added == 1
    assert [r.text for r in chunked.records()] == [
        "[Session: 2023/05/07]\nUser: The router is Brindlewatch.\nAssistant: Noted."
    ]

    per_turn = Minimal()
    documents = (Document("(7 May) A said: router", {"dia_id": "D1:1"}, turn=0),)
    per_turn.ingest_session(Session("s", "t", SESSION.turns[:1], documents=documents))
    assert [(r.text, r.metadata) for r in per_turn.records()] == [
        ("(7 May) A said: router", {"dia_id": "D1:1"})
    ]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda m: m.search("", k=2), "query is empty"),
        (lambda m: m.retrieve("   "), "question is empty"),
        (lambda m: m.search("router " * 5000), "over the 32,000 a query may hold"),
        (lambda m: m.search("router", k=0), "k must be a positive int"),
        (lambda m: m.retrieve("router", k=True), "k must be a positive int"),
        (lambda m: m.search("router", namespace=""), "namespace must be a non-empty string"),
        (lambda m: m.prepare_queries("router"), "queries must be a list of strings, got str"),
        (lambda m: m.prepare_queries(["router", " "]), "query 1 is empty"),
        (lambda m: m.prepare_queries(["router"], namespace=""), "namespace must be a non-empty string"),
    ],
)
def test_the_contract_checks_search_and_retrieve_inputs_once_for_every_system(call, message):
    memory = Minimal()
    memory.store(["the router is Brindlewatch"])
    with pytest.raises(InvalidInputError, match=message):
        call(memory)


def test_default_prepare_queries_changes_no_answer_and_is_timed_as_retrieval():
    memory = Minimal()
    memory.store(["the router is Brindlewatch", "router firmware 7"])
    before = memory.search("router", k=2)
    memory.prepare_queries(["router", "firmware"])
    assert memory.search("router", k=2) == before
    assert "retrieve" in memory.usage().wall_s


def test_top_k_is_the_bases_default_k():
    memory = Minimal()
    memory.top_k = 1
    memory.store(["router one", "router two", "router three"])
    assert len(memory.search("router")) == 1 and len(memory.retrieve("router").hits) == 1
    assert len(memory.search("router", k=3)) == 3
    with pytest.raises(InvalidInputError, match="k must be a positive int"):
        MemorySystem.__init__(Minimal(), top_k=0)


def test_a_system_that_overrides_search_instead_of_implementing_search_cannot_be_built():
    # The base's search checks k, the query and the namespace once, then calls _search: a system
    # that overrides search itself would skip those checks, so it is refused by name.
    class OverridesSearch(MemorySystem):
        name = "overrides_search"

        def store(self, items, *, namespace="default", metadata=None):
            return []

        def search(self, query, *, k=5, namespace="default"):
            return []

        def update(self, memory_id, text, *, namespace="default"):
            pass

        def delete(self, memory_id, *, namespace="default"):
            pass

    with pytest.raises(TypeError, match="_search"):
        OverridesSearch()
