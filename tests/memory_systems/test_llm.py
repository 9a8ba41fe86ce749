"""The LLM client against a small local HTTP endpoint that misbehaves on purpose (no SDK mocks).

The embedded model's real round trips are in test_llm_server.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_endpoint import FakeEndpoint

from memsuite.memory_systems.errors import ConfigError, InvalidInputError
from memsuite.memory_systems.llm import (
    LLMClient,
    LLMConfig,
    PriceTable,
    ResponseCache,
    open_llm,
    parse_json,
    request_key,
)


@pytest.fixture
def endpoint() -> Iterator[FakeEndpoint]:
    server = FakeEndpoint()
    yield server
    server.close()


def make_client(endpoint: FakeEndpoint, tmp_path: Path | None, **overrides: Any) -> LLMClient:
    values: dict[str, Any] = {
        "model": "fake-model",
        "base_url": endpoint.base_url,
        "api_key_env": None,
        "timeout_s": 5.0,
        "max_retries": 2,
        "backoff_s": 0.01,
    }
    values.update(overrides)
    cache_path = tmp_path / "llm.sqlite" if tmp_path is not None else None
    return LLMClient(LLMConfig(**values), cache_path=cache_path, environ={})


def refused_url() -> str:
    """A loopback URL nothing listens on (the port was free a moment ago)."""
    from memsuite.memory_systems.llm_server import free_port

    return f"http://127.0.0.1:{free_port()}/v1"


USER = [{"role": "user", "content": "What is my dog called?"}]

# --------------------------------------------------------------------------------------------------
# Round trip, accounting and cost
# --------------------------------------------------------------------------------------------------


def test_chat_returns_text_and_counts_tokens(endpoint, tmp_path):
    endpoint.script = [("text", "Your dog is called Rex.")]
    client = make_client(endpoint, tmp_path)

    result = client.chat(USER, phase="answer", system_name="bm25")

    assert result.ok and result.text == "Your dog is called Rex." and not result.cached
    assert result.prompt_tokens == 5 and result.completion_tokens == 5
    sent = endpoint.requests[0]
    assert sent["model"] == "fake-model" and sent["temperature"] == 0.0 and sent["max_tokens"] == 500
    assert "response_format" not in sent
    usage = client.usage()
    assert (usage.llm_calls, usage.prompt_tokens, usage.completion_tokens, usage.llm_failures) == (1, 5, 5, 0)
    assert set(usage.wall_s) == {"answer"}


def test_usage_is_accounted_per_system_and_phase(endpoint, tmp_path):
    endpoint.script = [("text", "one two")]
    client = make_client(endpoint, None)
    mem0 = client.for_system("mem0")

    mem0.chat([{"role": "user", "content": "a b c"}], phase="ingest")
    mem0.chat([{"role": "user", "content": "d e"}], phase="answer")
    client.chat([{"role": "user", "content": "f"}], phase="judge", system_name="bm25")

    assert mem0.usage().llm_calls == 2  # a view defaults to its own system
    assert mem0.usage(phase="ingest").prompt_tokens == 3
    assert client.usage(system_name="bm25").llm_calls == 1
    assert client.usage().llm_calls == 3  # the shared client sums every system
    assert client.usage(phase="answer").prompt_tokens == 2
    assert set(client.usage().wall_s) == {"ingest", "answer", "judge"}


def test_cost_uses_the_price_table_and_unknown_models_have_none(endpoint, tmp_path):
    endpoint.script = [("text", "one two three four")]  # 4 completion tokens
    prices = PriceTable({"fake-model": (1_000_000.0, 2_000_000.0)})  # $1 / $2 per token: easy sums
    client = LLMClient(
        LLMConfig("fake-model", base_url=endpoint.base_url, api_key_env=None),
        prices=prices,
        environ={},
    )
    client.chat([{"role": "user", "content": "x y"}], phase="answer")
    assert client.cost_usd() == pytest.approx(2 * 1 + 4 * 2)
    assert client.cost_usd(phase="ingest") == 0
    other = make_client(endpoint, None, model="no-such-model")
    other.chat(USER, phase="answer")
    assert other.cost_usd() is None


def test_price_table_prefix_lookup_and_file_override(tmp_path):
    table = PriceTable()
    assert table.price("gpt-4o-mini-2024-07-18") == table.price("gpt-4o-mini")  # longest prefix wins
    assert table.price("gpt-4o-2024-08-06") == table.price("gpt-4o")
    assert table.cost("local", 10**6, 10**6) == 0
    path = tmp_path / "prices.yaml"
    path.write_text("my-model: {prompt: 1.5, completion: 3}\ngpt-4o: [1, 2]\n")
    loaded = PriceTable.load(path)
    assert loaded.price("my-model") == (1.5, 3.0)
    assert loaded.price("gpt-4o") == (1.0, 2.0)
    assert loaded.price("gpt-4o-mini") == table.price("gpt-4o-mini")  # defaults kept
    path.write_text("my-model: [1]\n")
    with pytest.raises(ConfigError, match="my-model"):
        PriceTable.load(path)


def test_identity_labels_only_small_models_wiring_only(endpoint):
    client = make_client(endpoint, None)
    ident = client.identity()
    assert ident["model"] == "fake-model" and ident["base_url"] == endpoint.base_url
    assert ident["wiring_only"] is False
    assert make_client(endpoint, None, wiring_only=True).identity()["wiring_only"] is True
    assert "api_key" not in json.dumps(make_client(endpoint, None, api_key="sk-secret").identity())


def test_tool_calls_are_parsed_and_can_be_replayed(endpoint):
    endpoint.script = [("tool", "append_line", '{"line": "[2023/03/05] dog is Rex",}')]  # needs repair
    client = make_client(endpoint, None)
    tools = [{"type": "function", "function": {"name": "append_line", "parameters": {"type": "object"}}}]
    choice = {"type": "function", "function": {"name": "append_line"}}

    result = client.chat(USER, phase="ingest", tools=tools, tool_choice=choice)

    assert result.ok and result.finish_reason == "tool_calls"
    (call,) = result.tool_calls
    assert call.name == "append_line" and call.arguments == {"line": "[2023/03/05] dog is Rex"}
    assert endpoint.requests[0]["tool_choice"] == choice
    assert result.assistant_message()["tool_calls"][0]["function"]["arguments"] == call.arguments_json


# --------------------------------------------------------------------------------------------------
# Cache
# --------------------------------------------------------------------------------------------------


def test_second_identical_request_is_served_from_cache_without_a_call(endpoint, tmp_path):
    endpoint.script = [("text", "Rex")]
    client = make_client(endpoint, tmp_path)

    first = client.chat(USER, phase="answer")
    second = client.chat(USER, phase="answer")

    assert len(endpoint.requests) == 1
    assert second.cached and not first.cached and second.text == first.text
    usage = client.usage()
    assert usage.llm_calls == 1 and usage.cache_hits == 1
    # a cached reply still reports its tokens, so reruns report the same workload; billing does not
    assert usage.prompt_tokens == 2 * first.prompt_tokens
    assert client.cost_usd(billed_only=True) is None  # fake-model has no price; see the cost test


def test_a_rerun_with_a_new_client_makes_no_calls(endpoint, tmp_path):
    endpoint.script = [("text", "Rex")]
    make_client(endpoint, tmp_path).chat(USER, phase="answer")
    rerun = make_client(endpoint, tmp_path)
    assert rerun.chat(USER, phase="answer").cached
    assert len(endpoint.requests) == 1 and rerun.usage().llm_calls == 0


@pytest.mark.parametrize(
    "change",
    [
        {"temperature": 0.7},
        {"max_tokens": 20},
        {"json_mode": True},
        {"messages": [{"role": "user", "content": "What is my cat called?"}]},
        {"tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]},
    ],
)
def test_different_parameters_miss_the_cache(endpoint, tmp_path, change):
    endpoint.script = [("text", "{}")]
    client = make_client(endpoint, tmp_path)
    client.chat(USER, phase="answer")
    kwargs = {k: v for k, v in change.items() if k != "messages"}
    result = client.chat(change.get("messages", USER), phase="answer", **kwargs)
    assert not result.cached and len(endpoint.requests) == 2


def test_model_is_part_of_the_key_but_the_base_url_is_not(endpoint, tmp_path):
    endpoint.script = [("text", "Rex")]
    make_client(endpoint, tmp_path).chat(USER, phase="answer")
    assert make_client(endpoint, tmp_path, model="other-model").chat(USER, phase="answer").cached is False
    moved = FakeEndpoint()  # same model behind another port: the local server gets a new port per run
    try:
        assert make_client(moved, tmp_path).chat(USER, phase="answer").cached
        assert moved.requests == []
    finally:
        moved.close()


def test_cache_can_be_switched_off(endpoint, tmp_path):
    endpoint.script = [("text", "Rex")]
    for client in (make_client(endpoint, tmp_path, cache=False), make_client(endpoint, None)):
        client.chat(USER, phase="answer")
        assert not client.chat(USER, phase="answer").cached
    assert len(endpoint.requests) == 4
    assert not (tmp_path / "llm.sqlite").exists()


def test_failures_are_not_cached(endpoint, tmp_path):
    endpoint.script = [("status", 401, "bad key"), ("text", "Rex")]
    client = make_client(endpoint, tmp_path)
    assert client.chat(USER, phase="answer").failure.kind == "http_error"
    result = client.chat(USER, phase="answer")
    assert result.ok and not result.cached and result.text == "Rex"


def test_cache_key_is_canonical_and_rejects_non_json():
    a = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "temperature": 0.0}
    b = {"temperature": 0.0, "messages": [{"content": "hi", "role": "user"}], "model": "m"}
    assert request_key(a) == request_key(b)
    assert request_key(a) != request_key({**a, "temperature": 0.1})
    with pytest.raises(InvalidInputError):
        request_key({"messages": [object()]})


_WRITER = textwrap.dedent(
    """
    import sys
    from memsuite.memory_systems.llm import ResponseCache
    cache = ResponseCache(sys.argv[1])
    for i in range(200):
        cache.put(f"{sys.argv[2]}-{i}", {"i": i}, {"text": str(i)})
        assert cache.get(f"{sys.argv[2]}-{i}") == {"text": str(i)}
    """
)


def test_cache_is_safe_with_concurrent_processes_and_threads(tmp_path):
    path = tmp_path / "shared.sqlite"
    writers = [
        subprocess.Popen([sys.executable, "-c", _WRITER, str(path), f"proc{n}"], stderr=subprocess.PIPE)
        for n in range(2)
    ]
    cache = ResponseCache(path)
    errors: list[BaseException] = []

    def write(prefix: str) -> None:
        try:
            for i in range(200):
                cache.put(f"{prefix}-{i}", {"i": i}, {"text": str(i)})
                # the same key from two writers must not fail either
                cache.put(f"common-{i}", {"i": i}, {"text": str(i)})
        except BaseException as exc:  # reported by the assert below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(f"thread{n}",)) for n in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for proc in writers:
        _, stderr = proc.communicate(timeout=120)
        assert proc.returncode == 0, stderr.decode()
    assert errors == []
    assert len(cache) == 200 * (2 + 3 + 1)
    assert cache.get("proc1-199") == {"text": "199"} and cache.get("thread2-0") == {"text": "0"}
    cache.close()


# --------------------------------------------------------------------------------------------------
# JSON: robust parsing, one retry, counted failure
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"correct": true}', {"correct": True}),
        ('```json\n{"correct": true}\n```', {"correct": True}),
        ('Sure! {"correct": false, "reason": "old"} Hope it helps.', {"correct": False, "reason": "old"}),
        ('{"facts": ["a", "b",],}', {"facts": ["a", "b"]}),
        ("{'correct': True}", {"correct": True}),
        ('{"correct": true, "reason": "cut off mid-', {"correct": True, "reason": "cut off mid-"}),
        ("[1, 2, 3]", [1, 2, 3]),
        ("I don't know.", None),
        ("42", None),
        ("", None),
    ],
)  # fmt: skip
def test_parse_json_recovers_objects_and_rejects_prose(text, expected):
    assert parse_json(text) == expected


def test_chat_json_parses_fenced_reply_without_a_retry(endpoint):
    endpoint.script = [("text", '```json\n{"correct": true, "reason": "ok"}\n```')]
    client = make_client(endpoint, None)
    result = client.chat_json(USER, phase="judge")
    assert result.ok and result.data == {"correct": True, "reason": "ok"}
    assert len(endpoint.requests) == 1
    assert endpoint.requests[0]["response_format"] == {"type": "json_object"}


def test_chat_json_retries_once_asking_for_valid_json(endpoint):
    endpoint.script = [("text", "The answer is correct."), ("text", '{"correct": true}')]
    client = make_client(endpoint, None)

    result = client.chat_json(USER, phase="judge")

    assert result.ok and result.data == {"correct": True}
    assert len(endpoint.requests) == 2
    retry = endpoint.requests[1]["messages"]
    assert retry[-2] == {"role": "assistant", "content": "The answer is correct."}
    assert "valid JSON" in retry[-1]["content"]
    assert client.usage().llm_calls == 2 and client.usage().llm_failures == 0
    assert result.completion_tokens == 4 + 2  # both replies are paid for


def test_malformed_json_twice_is_a_counted_failure_not_a_crash(endpoint):
    endpoint.script = [("text", "I cannot produce JSON, sorry.")]
    client = make_client(endpoint, None)

    result = client.chat_json(USER, phase="judge", system_name="mem0")

    assert not result.ok and result.failure.kind == "invalid_json" and result.data is None
    assert "cannot produce JSON" in result.failure.message
    assert len(endpoint.requests) == 2  # the first try and exactly one retry
    assert client.usage(system_name="mem0").llm_failures == 1
    assert client.failure_counts() == {"invalid_json": 1}


def test_json_mode_from_config_parses_best_effort_in_chat(endpoint):
    endpoint.script = [("text", 'ok: {"a": 1}'), ("text", "not json")]
    client = make_client(endpoint, None, json_mode=True)
    assert client.chat(USER, phase="ingest").data == {"a": 1}
    result = client.chat(USER, phase="ingest")  # plain chat never retries nor fails on bad JSON
    assert result.ok and result.data is None and len(endpoint.requests) == 2


# --------------------------------------------------------------------------------------------------
# Endpoint trouble: retried when transient, then a counted failure
# --------------------------------------------------------------------------------------------------


def test_timeout_is_retried_then_counted(endpoint):
    endpoint.script = [("sleep", 30)]
    client = make_client(endpoint, None, timeout_s=0.2, max_retries=1)

    result = client.chat(USER, phase="answer")

    assert result.failure.kind == "timeout" and result.failure.attempts == 2
    assert len(endpoint.requests) == 2
    assert client.usage().llm_calls == 2 and client.usage().llm_failures == 1
    assert client.failure_counts() == {"timeout": 1}


def test_connection_refused_is_a_counted_failure(tmp_path):
    client = LLMClient(
        LLMConfig("m", base_url=refused_url(), api_key_env=None, max_retries=2, backoff_s=0.01),
        cache_path=tmp_path / "llm.sqlite",
        environ={},
    )
    result = client.chat(USER, phase="ingest")
    assert result.failure.kind == "connection" and result.failure.attempts == 3
    assert client.usage().llm_failures == 1 and client.failure_counts() == {"connection": 1}
    assert client.chat_json(USER, phase="judge").failure.kind == "connection"


def test_dropped_connection_then_recovery(endpoint):
    endpoint.script = [("drop",), ("text", "Rex")]
    client = make_client(endpoint, None)
    result = client.chat(USER, phase="answer")
    assert result.ok and result.text == "Rex"
    assert client.usage().llm_calls == 2 and client.usage().llm_failures == 0


@pytest.mark.parametrize("status", [500, 503, 429])
def test_transient_http_errors_are_retried(endpoint, status):
    endpoint.script = [("status", status, "busy"), ("status", status, "busy"), ("text", "Rex")]
    client = make_client(endpoint, None)
    assert client.chat(USER, phase="answer").text == "Rex"
    assert len(endpoint.requests) == 3


def test_persistent_server_error_fails_after_the_retries(endpoint):
    endpoint.script = [("status", 502, "bad gateway")]
    result = make_client(endpoint, None, max_retries=2).chat(USER, phase="answer")
    assert result.failure.kind == "http_error" and result.failure.status_code == 502
    assert len(endpoint.requests) == 3


@pytest.mark.parametrize(
    ("status", "message", "kind"),
    [
        (400, "This model's maximum context length is 2048 tokens. However, you requested 3051 tokens",
         "context_length"),
        (401, "Incorrect API key provided", "http_error"),
        (404, "The model `nope` does not exist", "http_error"),
    ],
)  # fmt: skip
def test_client_errors_are_not_retried(endpoint, status, message, kind):
    endpoint.script = [("status", status, message)]
    client = make_client(endpoint, None)
    result = client.chat(USER, phase="answer")
    assert result.failure.kind == kind and result.failure.status_code == status
    assert message in result.failure.message
    assert len(endpoint.requests) == 1 and client.failure_counts() == {kind: 1}


@pytest.mark.parametrize("step", [("garbage",), ("no_choices",)])
def test_a_reply_that_is_not_a_completion_is_a_counted_failure(endpoint, step):
    endpoint.script = [step]
    client = make_client(endpoint, None)
    result = client.chat(USER, phase="answer")
    assert result.failure.kind == "bad_response"
    assert client.usage().llm_failures == 1


# --------------------------------------------------------------------------------------------------
# Config and bad input
# --------------------------------------------------------------------------------------------------


def test_api_key_comes_from_the_named_env_var_or_is_required_for_openai():
    config = LLMConfig("gpt-4o-mini", api_key_env="MY_KEY")
    with pytest.raises(ConfigError, match=r"\$MY_KEY"):
        LLMClient(config, environ={})
    LLMClient(config, environ={"MY_KEY": "sk-test"})  # builds; no request is made
    # a local endpoint needs no key
    LLMClient(LLMConfig("m", base_url="http://127.0.0.1:1/v1"), environ={})


def test_endpoint_hands_third_party_libraries_the_resolved_key(endpoint):
    client = LLMClient(
        LLMConfig("fake-model", base_url=endpoint.base_url, api_key_env="MY_KEY"), environ={"MY_KEY": "k1"}
    )
    assert client.endpoint() == {"base_url": endpoint.base_url, "api_key": "k1", "model": "fake-model"}


def test_an_unusable_cache_path_is_a_config_error(endpoint, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with pytest.raises(ConfigError, match="cache"):
        LLMClient(LLMConfig("m", base_url=endpoint.base_url), cache_path=blocker / "llm.sqlite", environ={})


def test_config_from_dict_names_unknown_keys_and_bad_values():
    config = LLMConfig.from_dict({"model": "gpt-4o-mini", "max_tokens": 200, "json_mode": True})
    assert config.max_tokens == 200 and config.json_mode
    with pytest.raises(ConfigError, match="did you mean 'temperature'"):
        LLMConfig.from_dict({"model": "m", "temprature": 0.2})
    with pytest.raises(ConfigError, match="needs 'model'"):
        LLMConfig.from_dict({"base_url": "http://x/v1"})
    with pytest.raises(ConfigError, match="max_tokens"):
        LLMConfig.from_dict({"model": "m", "max_tokens": 0})
    with pytest.raises(ConfigError, match="temperature"):
        LLMConfig.from_dict({"model": "m", "temperature": "0.2"})


def test_open_llm_builds_an_endpoint_client_with_a_cache_under_the_root(endpoint, tmp_path):
    endpoint.script = [("text", "Rex")]
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"fake-model": [1, 1]}))
    spec = {"model": "fake-model", "base_url": endpoint.base_url, "api_key_env": None, "prices": str(prices)}
    with open_llm(spec, cache_dir=tmp_path / "cache", environ={}) as client:
        client.chat(USER, phase="answer")
        assert client.cost_usd() is not None
    assert (tmp_path / "cache" / "llm" / "responses.sqlite").exists()
    with pytest.raises(ConfigError, match="'local'"), open_llm("gpt-4o"):
        pass


def test_bad_calls_raise_clear_errors(endpoint):
    client = make_client(endpoint, None)
    with pytest.raises(InvalidInputError, match="phase"):
        client.chat(USER, phase="ingestion")
    with pytest.raises(InvalidInputError, match="non-empty"):
        client.chat([], phase="answer")
    with pytest.raises(InvalidInputError, match="messages"):
        client.chat("hello", phase="answer")
    assert endpoint.requests == []


# -- one deadline per call, and the circuit breaker ------------------------------------------------------


def test_one_deadline_caps_a_call_with_all_its_retries(endpoint):
    endpoint.script = [("sleep", 30)]  # never answers in time
    client = make_client(endpoint, None, timeout_s=0.5, max_retries=20, deadline_s=1.2)
    result = client.chat([{"role": "user", "content": "hi"}], phase="answer")
    assert result.failure is not None and result.failure.kind == "timeout"
    assert "deadline_s 1.2 reached" in result.failure.message
    # Twenty retries were allowed; the deadline left room for three attempts at most.
    assert result.failure.attempts <= 3 and len(endpoint.requests) == result.failure.attempts


def test_the_breaker_opens_after_consecutive_endpoint_failures_only(endpoint):
    client = make_client(endpoint, None, max_retries=0, max_consecutive_failures=2)
    ask = [{"role": "user", "content": "hi"}]
    endpoint.script = [("status", 503, "busy"), ("text", "ok"), ("status", 400, "bad request"),
                       ("status", 503, "busy"), ("status", 503, "busy")]  # fmt: skip
    assert client.chat(ask, phase="answer").failure.kind == "http_error"
    assert client.chat(ask, phase="answer").ok  # a success starts the count again
    assert client.chat(ask, phase="answer").failure.status_code == 400  # the request's fault: not counted
    assert client.chat(ask, phase="answer").failure.kind == "http_error" and client.down() is None
    assert client.chat(ask, phase="answer").failure.kind == "http_error"
    reason = client.down()
    assert reason.startswith(f"2 calls in a row to {endpoint.base_url} (model fake-model) failed")
    sent = len(endpoint.requests)
    view = client.for_system("x")  # views share the endpoint's state
    refused = view.chat(ask, phase="answer")
    assert refused.failure.kind == "endpoint_down" and len(endpoint.requests) == sent
    assert view.usage().llm_failures == 1 and view.failure_counts() == {"endpoint_down": 1}


def test_ping_sends_one_uncached_unaccounted_token_request(endpoint, tmp_path):
    client = make_client(endpoint, tmp_path)
    assert client.ping(2.0) is None and client.ping(2.0) is None
    assert len(endpoint.requests) == 2 and endpoint.requests[0]["max_tokens"] == 1
    assert client.usage().llm_calls == 0
    endpoint.script = [("status", 401, "bad key")]
    failure = client.ping(2.0)
    assert failure.kind == "http_error" and failure.status_code == 401


def test_the_cache_key_holds_the_model_revision(endpoint, tmp_path):
    ask = [{"role": "user", "content": "hi"}]
    endpoint.script = [("text", "from revision a")]
    first = make_client(endpoint, tmp_path, revision="a")
    assert first.chat(ask, phase="answer").text == "from revision a"
    endpoint.script = [("text", "from revision b")]
    # Same model name, other weights: never served the other revision's reply.
    other = make_client(endpoint, tmp_path, revision="b")
    assert other.chat(ask, phase="answer").text == "from revision b" and other.identity()["revision"] == "b"
    assert make_client(endpoint, tmp_path, revision="a").chat(ask, phase="answer").cached


def test_the_embedded_model_records_its_file_revision():
    from memsuite.memory_systems.llm import local_config
    from memsuite.memory_systems.llm_server import local_model_revision

    config = local_config("http://127.0.0.1:1/v1")
    assert config.revision == local_model_revision() and config.revision.count(":") == 1
