"""The Cognee adapter's worker has a deadline: a worker that never answers fails the call by name,
is killed with every process it started, and stays failed. Runs without cognee's venv: the worker is a
stand-in that stalls (tests/silent_worker.py)."""

from __future__ import annotations

import time

import pytest

from memsuite.baselines.adapters import cognee
from memsuite.memory_systems.errors import SystemTimeoutError


def test_a_worker_that_never_answers_fails_the_call_by_name(silent_cognee, embedder):
    system = cognee.CogneeMemory(embedder=embedder, call_timeout_s=1.5)
    worker = system._worker
    started = time.monotonic()
    with pytest.raises(SystemTimeoutError, match=r"system 'cognee' gave no answer within 1\.5 s in store"):
        system.store(["The ferry leaves at noon."], namespace="a")
    assert time.monotonic() - started < 30
    assert worker.process.poll() is not None  # killed, not left running
    started = time.monotonic()
    with pytest.raises(cognee.CogneeError, match="worker stopped"):  # and stays failed, at once
        worker.call("search", verb="search", dataset="a", query="ferry", k=1)
    assert time.monotonic() - started < 1.5
    system.close()


def test_the_deadline_is_a_setting_that_must_be_positive(silent_cognee, embedder):
    with pytest.raises(cognee.InvalidInputError, match="call_timeout_s"):
        cognee.CogneeMemory(embedder=embedder, call_timeout_s=0)
    system = cognee.CogneeMemory(embedder=embedder, call_timeout_s=7)
    assert system.params()["call_timeout_s"] == 7.0
    system.close()


def test_a_context_budget_is_recorded_and_k_stays_the_chunk_count(silent_cognee, embedder):
    with pytest.raises(cognee.InvalidInputError, match="context_tokens"):
        cognee.CogneeMemory(embedder=embedder, context_tokens=0)
    system = cognee.CogneeMemory(embedder=embedder, context_tokens=512)
    assert system.params()["context_tokens"] == 512
    scope = cognee.scope_id("a")
    system._records[scope] = {"m1": cognee.MemoryRecord("m1", "The ferry leaves at noon.", "a")}
    system._data[scope] = {"d1": "m1"}
    asked = []

    def call(op, **kwargs):
        asked.append((op, kwargs))
        return [{"id": "c1", "document_id": "d1", "text": "The ferry leaves at noon."}]

    system._worker.call = call
    (hit,) = system.search("ferry", k=3, namespace="a")
    assert hit.id == "m1" and asked[0][1]["k"] == 3  # CHUNKS gets k, not the budget
    system.close()
