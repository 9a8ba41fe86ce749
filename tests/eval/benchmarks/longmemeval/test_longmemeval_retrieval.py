"""LongMemEval's retrieval metrics on hand-made rankings with known values."""

from __future__ import annotations

import math

import pytest

from memsuite.eval.benchmarks.longmemeval.judges.retrieval import (
    question_metrics,
    retrieval_metrics,
    session_of,
    turn_to_session_metrics,
)

CORPUS = ["a", "answer_x", "b", "answer_y", "c"]
RELEVANT = {"answer_x", "answer_y"}


def test_recall_any_all_and_ndcg():
    ranking = ["b", "answer_x", "a", "c", "answer_y"]
    at1 = retrieval_metrics(ranking, CORPUS, RELEVANT, 1)
    assert at1 == {"recall_any": 0.0, "recall_all": 0.0, "ndcg_any": 0.0}
    at2 = retrieval_metrics(ranking, CORPUS, RELEVANT, 2)
    # DCG: rel_1 + rel_2/log2(2) = 0 + 1; ideal (1, 1): 1 + 1 = 2.
    assert at2 == {"recall_any": 1.0, "recall_all": 0.0, "ndcg_any": 0.5}
    at5 = retrieval_metrics(ranking, CORPUS, RELEVANT, 5)
    assert at5["recall_all"] == 1.0
    assert at5["ndcg_any"] == pytest.approx((1 + 1 / math.log2(5)) / 2)


def test_a_question_without_relevant_documents():
    # As the official code computes it: recall_all is vacuously 1, recall_any and ndcg are 0.
    assert retrieval_metrics(["a", "b"], ["a", "b"], set(), 1) == {
        "recall_any": 0.0,
        "recall_all": 1.0,
        "ndcg_any": 0.0,
    }


def test_turn_to_session_grows_k_to_k_distinct_sessions():
    assert session_of("answer_4be1b6b4_2_13") == "answer_4be1b6b4_2"
    corpus = ["s1_1", "s1_3", "s2_1", "answer_s3_1", "noans_s3_3"]
    ranking = ["s1_1", "s1_3", "noans_s3_3", "answer_s3_1", "s2_1"]
    # k = 2 sessions: the top 3 turns cover s1 and noans_s3 (an answer and a noans turn of one session
    # stay apart, as in the official code); answer_s3 is not among them.
    assert turn_to_session_metrics(ranking, corpus, {"answer_s3_1"}, 2)["recall_any"] == 0.0
    assert turn_to_session_metrics(ranking, corpus, {"answer_s3_1"}, 3)["recall_any"] == 1.0


def test_question_metrics_have_every_official_key():
    blocks = question_metrics(["answer_x", "a"], ["a", "answer_x"], {"answer_x"}, "session")
    assert list(blocks) == ["session"] and len(blocks["session"]) == 18
    assert blocks["session"]["recall_all@1"] == 1.0 and blocks["session"]["ndcg_any@50"] == 1.0
    turn = question_metrics(["x_1", "answer_y_2"], ["answer_y_2", "x_1"], {"answer_y_2"}, "turn")
    assert set(turn) == {"session", "turn"} and turn["turn"]["recall_any@1"] == 0.0
