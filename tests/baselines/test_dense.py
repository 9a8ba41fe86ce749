"""Dense baseline: faiss internals after delete/update, HNSW option, token windows."""

from __future__ import annotations

import numpy as np
import pytest

from memsuite.baselines.dense import DenseMemory
from memsuite.memory_systems.errors import InvalidInputError


@pytest.mark.parametrize("index", ["flat", "hnsw"])
def test_delete_and_update_leave_the_faiss_index(embedder, index):
    memory = DenseMemory(embedder=embedder, index=index)
    ids = memory.store(["The ferry leaves at noon.", "My dentist is Dr. Quessa.", "The garden needs water."])
    memory.finalize()  # embeds what store deferred
    faiss_index = memory._indexes["default"]
    assert faiss_index.index.ntotal == 3
    memory.delete(ids[0])
    assert memory._indexes["default"].index.ntotal == 2
    memory.update(ids[1], "My dentist is now Dr. Torbek.")
    assert memory._indexes["default"].index.ntotal == 2
    hits = memory.search("who is my dentist", k=3)
    assert hits[0].text == "My dentist is now Dr. Torbek."
    assert {h.id for h in hits} == {ids[1], ids[2]}


def test_store_defers_embedding_to_one_batched_call(embedder):
    memory = DenseMemory(embedder=embedder)
    memory.store(["The ferry leaves at noon.", "My dentist is Dr. Quessa."], namespace="a")
    memory.store(["The garden needs water."], namespace="a")
    memory.store(["Another user's note."], namespace="b")
    assert memory.usage().embedded_texts == 0 and "a" not in memory._indexes
    hits = memory.search("when does the ferry leave", k=3, namespace="a")
    # One encode for the three pending memories of "a", one for the query; "b" is still pending.
    assert (memory.usage().embedding_calls, memory.usage().embedded_texts) == (2, 4)
    assert hits[0].text == "The ferry leaves at noon." and len(hits) == 3
    assert "b" not in memory._indexes
    memory.reset(namespace="b")
    assert memory.search("note", namespace="b") == [] and memory.usage().embedded_texts == 4


def test_scores_are_cosine(embedder):
    memory = DenseMemory(embedder=embedder)
    memory.store(["a completely identical sentence"])
    (hit,) = memory.search("a completely identical sentence", k=1)
    assert hit.score == pytest.approx(1.0, abs=1e-4)


def test_long_memory_is_found_by_its_last_window(embedder):
    filler = " ".join(f"The meeting notes mention topic number {i} in passing." for i in range(80))
    memory = DenseMemory(embedder=embedder, window_tokens=120, window_overlap=20)
    ids = memory.store(
        [
            filler + " Finally: the vault code is stored with Marnel in Obrenmark.",
            "Bread recipe: flour, water, salt.",
        ]
    )
    assert memory.search("who keeps the vault code", k=1)[0].id == ids[0]
    assert memory._indexes["default"].windows[int(ids[0])] > 3


def test_bad_window_settings_are_refused(embedder):
    with pytest.raises(InvalidInputError, match="window_overlap"):
        DenseMemory(embedder=embedder, window_tokens=10, window_overlap=10)
    with pytest.raises(InvalidInputError, match="index"):
        DenseMemory(embedder=embedder, index="ivf")


def test_embeddings_are_unit_norm(embedder):
    vectors = embedder.encode(["one", "two words", "one"])
    assert vectors.shape == (3, embedder.dim) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(vectors[0], vectors[2])


def test_a_repeated_text_ranks_in_stored_order(embedder):
    # Identical texts tie exactly; the earlier-stored one ranks first, as bm25 ranks its ties.
    memory = DenseMemory(embedder=embedder)
    texts = ["list references", "The ferry leaves at noon.", "list references", "list references"]
    ids = memory.store(texts)
    hits = memory.search("the ferry", k=4)
    repeated = [hit.id for hit in hits if hit.text == "list references"]
    assert repeated == [ids[0], ids[2], ids[3]]


def test_announced_queries_are_encoded_once_together(embedder):
    texts = ["The ferry leaves at noon.", "My dentist is Dr. Quessa.", "The garden needs water."]
    questions = ["when does the ferry leave", "who is my dentist", "when does the ferry leave"]
    plain = DenseMemory(embedder=embedder)
    plain.store(texts, namespace="a")
    expected = [plain.search(q, k=3, namespace="a") for q in questions]

    memory = DenseMemory(embedder=embedder)
    memory.store(texts, namespace="a")
    memory.finalize(namespace="a")
    memory.prepare_queries(questions, namespace="a")
    # One call for the documents, one for the two distinct questions; searching them encodes nothing.
    assert (memory.usage().embedding_calls, memory.usage().embedded_texts) == (2, 5)
    found = [memory.search(q, k=3, namespace="a") for q in questions]
    memory.retrieve(questions[1], k=1, namespace="a")
    assert memory.usage().embedded_texts == 5
    # The same hits; scores equal up to the float rounding of a padded batch.
    assert [[h.id for h in hits] for hits in found] == [[h.id for h in hits] for hits in expected]
    for hits, want in zip(found, expected, strict=True):
        assert [h.score for h in hits] == pytest.approx([h.score for h in want], abs=1e-5)
    memory.search("the garden", k=1, namespace="a")  # not announced: encoded on its own
    assert memory.usage().embedded_texts == 6

    memory.store(texts, namespace="b")
    memory.search(questions[0], k=1, namespace="b")  # announced for "a" only
    memory.reset(namespace="a")
    memory.store(texts, namespace="a")
    memory.search(questions[0], k=1, namespace="a")  # a reset forgets the announced queries
    assert memory.usage().embedded_texts == 6 + 4 + 4


def test_ranked_ids_are_the_whole_search_without_hits(embedder):
    memory = DenseMemory(embedder=embedder, window_tokens=8, window_overlap=2)
    texts = ["list references", "The ferry leaves at noon from the old harbour pier.", "list references"]
    ids = memory.store(texts)
    memory.delete(ids[0])
    memory.store(["a ferry timetable"])
    expected = [hit.id for hit in memory.search("the ferry", k=3)]
    assert memory.ranked_ids("the ferry") == expected and len(expected) == 3
    assert memory.ranked_ids("the ferry", namespace="empty") == []
