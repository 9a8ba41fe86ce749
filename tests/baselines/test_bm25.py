"""BM25 baseline: byte-identical to a direct bm25s computation (the MEME reference), and sane vs rank_bm25."""

from __future__ import annotations

import itertools
import math
import random
from dataclasses import replace

import bm25s
import pytest

from memsuite.baselines.bm25 import BM25Memory
from memsuite.memory_systems.base import CONTEXT_SEPARATOR
from memsuite.memory_systems.chunking import chunk_documents, chunk_session
from memsuite.memory_systems.records import Session, Turn


def _reference(corpus: list[str], query: str, top_k: int) -> tuple[list[int], list[float]]:
    """What the MEME reference does: bm25s lucene, default tokenize, k = min(top_k, n)."""
    retriever = bm25s.BM25(method="lucene")
    retriever.index(bm25s.tokenize(corpus, show_progress=False), show_progress=False)
    docs, scores = retriever.retrieve(
        bm25s.tokenize(query, show_progress=False), k=min(top_k, len(corpus)), show_progress=False
    )
    return [int(d) for d in docs[0]], [float(s) for s in scores[0]]


def _zipf_corpus(n: int, vocab: int = 400, seed: int = 11, length: tuple[int, int] = (5, 25)) -> list[str]:
    rng = random.Random(seed)
    weights = [1 / (rank + 1) for rank in range(vocab)]
    words = [f"t{i}" for i in range(vocab)]
    return [" ".join(rng.choices(words, weights, k=rng.randint(*length))) for _ in range(n)]


#: Queries of the no-ties test that must get past the tie filter (of 50; the seeded corpus gives 32).
CHECKED_WITHOUT_TIES = 30


def test_context_byte_identical_to_direct_bm25s_without_ties():
    corpus = _zipf_corpus(300, vocab=2000, length=(20, 60), seed=4)
    memory = BM25Memory()
    memory.store(corpus)
    rng = random.Random(2)
    checked = 0
    for _ in range(50):
        query = " ".join(f"t{rng.randint(0, 1999)}" for _ in range(4))
        docs, scores = _reference(corpus, query, 5)
        if len(set(scores)) < len(scores) or scores[-1] == 0:
            continue  # ties: see the next test
        assert memory.retrieve(query).context == CONTEXT_SEPARATOR.join(corpus[d] for d in docs)
        checked += 1
    # The skip must not swallow the test: most queries rank five distinct non-zero scores.
    assert checked >= CHECKED_WITHOUT_TIES


def test_same_scores_as_direct_bm25s_and_ties_by_insertion_order():
    # Short documents over a small vocabulary: many exact score ties, few and many matches.
    corpus = _zipf_corpus(400, vocab=120, seed=21, length=(1, 6))
    memory = BM25Memory()
    memory.store(corpus)
    rng = random.Random(8)
    known = {word for doc in corpus for word in doc.split()}
    checked = 0
    for _ in range(150):
        query = " ".join(f"t{rng.randint(0, 130)}" for _ in range(rng.randint(1, 4)))
        if not known & set(query.split()):
            continue
        docs, scores = _reference(corpus, query, len(corpus))  # the full ranking, to see every tie
        hits = memory.search(query, k=7)
        assert [h.score for h in hits] == pytest.approx(scores[:7], abs=0)
        for rank, hit in enumerate(hits):
            if scores.count(scores[rank]) == 1:
                assert hit.text == corpus[docs[rank]]
        for first, second in itertools.pairwise(hits):
            if first.score == second.score:
                assert int(first.id) < int(second.id)
        checked += 1
    assert checked > 100


def test_sessions_laid_out_as_meme_chunks_are_stored_as_such():
    session = Session(
        "s",
        "2023/03/01 (Wed) 09:00",
        (Turn("user", "The lamp is copper."), Turn("assistant", "Copper lamp, noted.")),
    )
    memory = BM25Memory()
    memory.ingest_session(replace(session, documents=chunk_documents(session)))  # MEME's layout
    assert memory.retrieve("copper lamp").context == chunk_session(session)[0]
    assert (
        memory.retrieve("copper lamp").context
        == "[Session: 2023/03/01 (Wed) 09:00]\nUser: The lamp is copper.\nAssistant: Copper lamp, noted."
    )


def test_k_is_capped_by_corpus_size_and_unknown_query_returns_nothing():
    memory = BM25Memory(top_k=5)
    memory.store(["river stone", "lamp orchard"])
    assert len(memory.search("river lamp")) == 2
    assert memory.search("zzzunknownword") == []


def test_lazy_rebuild_sees_changes():
    memory = BM25Memory()
    ids = memory.store(["river stone", "lamp orchard"])
    assert memory.search("lamp", k=1)[0].id == ids[1]
    memory.update(ids[1], "kettle violin")
    assert memory.search("kettle", k=1)[0].id == ids[1]
    assert all(h.id != ids[1] for h in memory.search("lamp", k=2))


def _lucene_scores(corpus: list[str], query: str, k1: float = 1.5, b: float = 0.75) -> list[float]:
    """BM25 as Lucene defines it, written out by hand: the oracle for bm25s' "lucene" method."""
    docs = [doc.split() for doc in corpus]
    avgdl = sum(map(len, docs)) / len(docs)
    scores = []
    for doc in docs:
        score = 0.0
        for term in set(query.split()):
            df = sum(term in d for d in docs)
            if df == 0 or term not in doc:
                continue
            idf = math.log(1 + (len(docs) - df + 0.5) / (df + 0.5))
            tf = doc.count(term)
            score += idf * tf / (tf + k1 * (1 - b + b * len(doc) / avgdl))
        scores.append(score)
    return scores


def test_scores_match_hand_written_lucene_bm25():
    corpus = _zipf_corpus(150)
    memory = BM25Memory()
    memory.store(corpus)
    for query in ["t3 t40 t77", "t1 t150", "t9"]:
        expected = _lucene_scores(corpus, query)
        for hit in memory.search(query, k=10):
            assert hit.score == pytest.approx(expected[corpus.index(hit.text)], rel=1e-4)
        best = sorted(expected, reverse=True)[:10]
        assert [h.score for h in memory.search(query, k=10)] == pytest.approx(best, rel=1e-4)


def test_ranking_agrees_with_rank_bm25():
    rank_bm25 = pytest.importorskip("rank_bm25", reason="rank-bm25 is in the dev extra")
    corpus = _zipf_corpus(300, seed=13)
    oracle = rank_bm25.BM25Okapi([doc.split() for doc in corpus])
    memory = BM25Memory()
    memory.store(corpus)
    rng = random.Random(5)
    agree = 0
    for _ in range(30):
        query = " ".join(f"t{rng.randint(20, 399)}" for _ in range(3))
        scores = oracle.get_scores(query.split())
        best = max(range(len(corpus)), key=scores.__getitem__)
        agree += memory.search(query, k=1)[0].text == corpus[best]
    # Okapi's idf (log((N - df + .5) / (df + .5))) differs from Lucene's (log(1 + ...)), so near-ties
    # may flip; on rare terms the top-1 must almost always agree.
    assert agree >= 27


def _direct_scores(corpus: list[str], query: str) -> list[float]:
    """bm25s's score of every document (``BM25.get_scores``), indexed from scratch."""
    retriever = bm25s.BM25(method="lucene")
    retriever.index(bm25s.tokenize(corpus, show_progress=False), show_progress=False)
    words = bm25s.tokenize([query], return_ids=False, show_progress=False)[0]
    return retriever.get_scores([w for w in words if w in retriever.vocab_dict]).tolist()


def test_an_index_grown_batch_by_batch_scores_bit_identically_to_bm25s_rebuilt():
    # A memory that grows between questions (LifeBench's day-by-day ingestion) is never rebuilt;
    # its scores must still be the ones bm25s computes over everything held so far.
    corpus = _zipf_corpus(360, vocab=300, seed=5, length=(1, 30))
    memory = BM25Memory()
    rng = random.Random(3)
    held = 0
    for size in (1, 7, 52, 100, 200):
        memory.store(corpus[held : held + size])
        held += size
        for _ in range(15):
            query = " ".join(f"t{rng.randint(0, 320)}" for _ in range(rng.randint(1, 5)))
            if not {w for d in corpus[:held] for w in d.split()} & set(query.split()):
                assert memory.search(query, k=held) == [] and memory.ranked_ids(query) == []
                continue
            direct = _direct_scores(corpus[:held], query)
            hits = memory.search(query, k=held)
            assert {int(h.id): h.score for h in hits} == dict(enumerate(direct))  # exact floats
            assert memory.ranked_ids(query) == [h.id for h in hits]


def test_ranked_ids_follow_changes_and_match_the_default_contract():
    memory = BM25Memory()
    ids = memory.store(["river stone", "lamp orchard", "river lamp"])
    memory.search("lamp")  # builds the index; the changes below must reach it
    memory.update(ids[0], "lamp lamp lamp")
    memory.delete(ids[2])
    memory.store(["orchard river"])
    expected = [h.id for h in memory.search("lamp river", k=3)]
    assert memory.ranked_ids("lamp river") == expected
    # The contract's default (one search at k = every record) gives the same ids.
    assert super(BM25Memory, memory)._ranked_ids("lamp river", namespace="default") == expected


def test_words_are_bm25s_tokens():
    from memsuite.baselines.bm25 import words

    texts = [
        *_zipf_corpus(50, seed=9),
        "The CAFÉ's naïve owner -- 2023-03-01, 9:00 -- said: it's THE best! a I x_y __init__ über",
        "日本語のテキスト and Ελληνικά words; don't stop-words: the, and, of",
        "",
        "!!!",
    ]
    assert [words(t) for t in texts] == bm25s.tokenize(texts, return_ids=False, show_progress=False)
