"""The shared faiss index: memory ids, best window per memory, and the order of equal scores."""

from __future__ import annotations

import numpy as np
import pytest

from memsuite.memory_systems.vector_index import VectorIndex


def unit(*values: float) -> np.ndarray:
    vector = np.asarray(values, dtype=np.float32)
    return vector / np.linalg.norm(vector)


def test_equal_scores_rank_the_earlier_memory_first_over_the_whole_index():
    index = VectorIndex(dim=2)
    # Memories 0..9 hold one identical vector (a text repeated); 10 is closer to the query.
    index.add(list(range(10)), np.stack([unit(1, 1)] * 10))
    index.add([10], unit(1, 0)[None, :])
    ranked = index.search(unit(1, 0)[None, :], k=11)
    assert [memory_id for memory_id, _ in ranked] == [10, *range(10)]
    assert len({score for _, score in ranked[1:]}) == 1


@pytest.mark.parametrize("k", [1, 3, 7])
def test_a_tie_at_the_cut_off_goes_to_the_earlier_memories(k):
    # 200 identical vectors: the first fetch (4k vectors) holds an arbitrary subset of the ties, so the
    # search must widen until it has them all and keep the lowest ids.
    index = VectorIndex(dim=2)
    index.add(list(range(200)), np.stack([unit(1, 1)] * 200))
    assert [memory_id for memory_id, _ in index.search(unit(1, 0)[None, :], k=k)] == list(range(k))


def test_a_memory_scores_as_its_best_window_and_ties_across_windows_go_to_the_earlier_memory():
    index = VectorIndex(dim=2)
    index.add([0, 1, 2], np.stack([unit(0, 1), unit(1, 0), unit(1, 0), unit(1, 1)]), counts=[2, 1, 1])
    ranked = index.search(unit(1, 0)[None, :], k=3)
    assert [memory_id for memory_id, _ in ranked] == [0, 1, 2]
    assert ranked[0][1] == pytest.approx(1.0) and ranked[1][1] == pytest.approx(1.0)


def test_nothing_is_asked_or_nothing_is_stored():
    index = VectorIndex(dim=2)
    assert index.search(unit(1, 0)[None, :], k=3) == []
    index.add([0], unit(1, 0)[None, :])
    assert index.search(unit(1, 0)[None, :], k=0) == []
