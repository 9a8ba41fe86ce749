"""The shared per-question step: the ranking of every document, the oldest-first cut, the evidence
verdict."""

from __future__ import annotations

from memsuite.baselines.bm25 import BM25Memory
from memsuite.eval.retrieval_qa.evidence import evidence_verdict
from memsuite.eval.retrieval_qa.step import cut_blocks, placement, rank, rank_places, stores
from memsuite.memory_systems.base import NO_MEMORY
from memsuite.memory_systems.records import MemoryRecord


class _Ranked:
    """A system ranking fixed memories (a place twice, a memory without one) in a fixed order."""

    def __init__(self, places: list[int | None]) -> None:
        self.stored = [
            MemoryRecord(str(i), "t", "ns", {} if p is None else {"position": p})
            for i, p in enumerate(places)
        ]
        self.asked = 0

    def records(self, *, namespace: str) -> list[MemoryRecord]:
        return self.stored

    def ranked_ids(self, query: str, *, namespace: str) -> list[str]:
        self.asked += 1
        return [r.id for r in self.stored]


def test_rank_lists_every_document_once_unreturned_ones_in_unit_order():
    system = _Ranked([2, None, 2, 0])
    ids = ["a", "b", "c", "d"]
    places = placement(system, "ns", "position")
    assert places == {"0": 2, "2": 2, "3": 0}
    assert rank(system, "q", ids, "ns", places) == ["c", "a", "b", "d"]
    assert system.asked == 1  # one ranking of the whole unit
    assert rank_places(system, "q", 4, "ns", places) == [2, 0, 1, 3]


def test_rank_reads_places_not_ids():
    # A unit may hold one id twice (a LongMemEval haystack repeats a session): each place ranks apart.
    system = _Ranked([1])
    assert rank(system, "q", ["s1", "s1"], "ns", placement(system, "ns", "position")) == ["s1", "s1"]


def test_placement_is_none_unless_the_memories_are_the_documents():
    assert placement(_Ranked([None, None]), "ns", "position") is None
    assert not stores(_Ranked([None]), "ns", "position") and stores(_Ranked([0]), "ns", "position")


def test_rank_of_a_real_system_is_its_whole_search_with_blank_documents_last():
    memory = BM25Memory()
    texts = ["apples and pears", "the weather today", "more apples", "pears again"]
    memory.store(texts, namespace="u", metadata=[{"position": i} for i in range(4)])
    places = placement(memory, "u", "position")
    ids = ["d0", "d1", "d2", "d3"]
    by_search = [ids[h.metadata["position"]] for h in memory.search("apples", k=4, namespace="u")]
    assert rank(memory, "apples", ids, "u", places) == by_search
    assert by_search[2:] == ["d1", "d3"]  # no match: equal scores, in unit order
    # No word of the query is indexed: nothing is returned, every document follows in unit order.
    assert rank(memory, "zebra", ids, "u", places) == ids


def test_cut_blocks_drops_the_oldest_first_and_keeps_the_newest_head():
    blocks = ["old " * 50, "mid " * 5, "new " * 5]
    text, truncated, start = cut_blocks(blocks, 20, "\n")
    assert (text, truncated, start) == ("mid " * 5 + "\n" + "new " * 5, True, 1)
    assert cut_blocks(blocks, None)[1:] == (False, 0)
    head, truncated, start = cut_blocks(["long " * 50], 3)
    assert truncated and start == 1 and head.split() == ["long"] * 3
    assert cut_blocks([], 10) == (NO_MEMORY, False, 0)


def test_evidence_verdict_undefined_reasons_and_recall_all_at_k():
    ranking = ["a", "b", "c", "d"]
    found = evidence_verdict(ranking, ("b", "d"), 3, "message", no_ranking="x", no_evidence="y")
    assert found["correct"] is False and found["metrics"]["recall_any@3"] == 1.0
    assert found["metrics"]["evidence_recall@3"] == 0.5 and found["metrics"]["recall_all@5"] == 1.0
    assert evidence_verdict(None, ("a",), 3, "message", no_ranking="x", no_evidence="y")["undefined"] == "x"
    assert evidence_verdict(ranking, (), 3, "message", no_ranking="x", no_evidence="y")["undefined"] == "y"
