"""Rate limits, checked from the server's side of a local endpoint, and the bucket arithmetic."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from fake_endpoint import FakeEndpoint

from memsuite.memory_systems.errors import ConfigError
from memsuite.memory_systems.llm import LLMClient, LLMConfig
from memsuite.memory_systems.ratelimit import RateLimiter


@pytest.fixture
def endpoint():
    server = FakeEndpoint()
    yield server
    server.close()


def _client(endpoint: FakeEndpoint, **limits) -> LLMClient:
    config = LLMConfig(model="fake", base_url=endpoint.base_url, api_key_env=None, timeout_s=10, **limits)
    return LLMClient(config, environ={})


def _ask_many(client: LLMClient, n: int, threads: int = 4) -> None:
    def ask(i: int):
        return client.chat([{"role": "user", "content": f"question {i}"}], phase="answer")

    with ThreadPoolExecutor(threads) as pool:
        results = list(pool.map(ask, range(n)))
    assert all(r.failure is None for r in results)


def test_requests_per_second_spaces_arrivals(endpoint):
    _ask_many(_client(endpoint, requests_per_s=10), 8)
    arrivals = endpoint.arrivals
    assert len(arrivals) == 8
    # Starts are booked 0.1 s apart; an arrival can lag its start by the client's own overhead (the
    # first request also opens the connection), so allow one such lag on any span.
    for i in range(len(arrivals)):
        for j in range(i + 1, len(arrivals)):
            assert arrivals[j] - arrivals[i] >= (j - i) * 0.1 - 0.07


def test_max_concurrency_bounds_requests_in_flight(endpoint):
    endpoint.latency_s = 0.1
    _ask_many(_client(endpoint, max_concurrency=2), 8, threads=6)
    assert endpoint.peak_in_flight == 2


def test_no_limits_lets_workers_overlap(endpoint):
    endpoint.latency_s = 0.1
    _ask_many(_client(endpoint), 8, threads=4)
    assert endpoint.peak_in_flight >= 3


def test_token_bucket_waits_for_refill_and_corrects_estimates():
    now = [0.0]
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    limiter = RateLimiter(tokens_per_min=600, clock=lambda: now[0], sleep=sleep)  # 10 tokens/s
    with limiter.slot(500) as slot:
        slot.settle(500)
    assert slept == []
    with limiter.slot(300) as slot:  # 100 left: 200 tokens of debt -> 20 s
        slot.settle(300)
    assert slept == [pytest.approx(20.0)]
    with limiter.slot(100) as slot:  # estimate 100, real 400: the extra 300 is debt for the next caller
        slot.settle(400)
    assert slept[-1] == pytest.approx(10.0)
    with limiter.slot(10):
        pass
    assert slept[-1] == pytest.approx(31.0)


def test_bad_limits_are_config_errors(endpoint):
    with pytest.raises(ConfigError, match="requests_per_s"):
        _client(endpoint, requests_per_s=0)
    with pytest.raises(ConfigError, match="max_concurrency"):
        _client(endpoint, max_concurrency=0)
