"""The shared per-question step: the ranking of every document, the oldest-first cut, the evidence
verdict."""

from __future__ import annotations

from memsuite.eval.retrieval_qa.evidence import evidence_verdict
from memsuite.eval.retrieval_qa.step import cut_blocks, rank
from memsuite.memory_systems.base import NO_MEMORY
from memsuite.memory_systems.records import Hit


class _Ranked:
    """A system whose search returns fixed hits (a place twice, a hit without one)."""

    def __init__(self, places: list[int | None]) -> None:
        self.places = places
        self.asked: list[int] = []

    def search(self, query: str, *, k: int, namespace: str) -> list[Hit]:
        self.asked.append(k)
        return [Hit(str(p), "t", 1.0, {} if p is None else {"position": p}) for p in self.places]


def test_rank_lists_every_document_once_unreturned_ones_in_unit_order():
    system = _Ranked([2, None, 2, 0])
    ids = ["a", "b", "c", "d"]
    assert rank(system, "q", ids, "ns", "position") == ["c", "a", "b", "d"]
    assert system.asked == [4]  # one search over the whole unit


def test_rank_reads_places_not_ids():
    # A unit may hold one id twice (a LongMemEval haystack repeats a session): each place ranks apart.
    assert rank(_Ranked([1]), "q", ["s1", "s1"], "ns", "position") == ["s1", "s1"]


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
