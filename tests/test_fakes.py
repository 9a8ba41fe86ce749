"""The replay server of tests/fakes.py: what the real client sees for each kind of scripted reply.

The baselines' logic tests rely on these translations, so a scripted failure must arrive as that
failure through the openai SDK and the client's classification, not as some other kind.
"""

from __future__ import annotations

import urllib.request

import pytest

from memsuite.memory_systems.llm import FAILURE_KINDS, LLMFailure

MESSAGES = [{"role": "system", "content": "You are a test."}, {"role": "user", "content": "Say it."}]
FORCED = {"type": "function", "function": {"name": "record"}}
TOOL = {"type": "function", "function": {"name": "record", "parameters": {"type": "object"}}}
#: Kinds an endpoint's reply can cause; ``endpoint_down`` is the client's own verdict (its circuit
#: breaker, tests/memory_systems/test_llm.py), never something an endpoint sends.
REPLY_KINDS = tuple(kind for kind in FAILURE_KINDS if kind != "endpoint_down")


@pytest.mark.parametrize("kind", REPLY_KINDS)
def test_each_scripted_failure_reaches_the_client_as_that_kind(replay_llm, kind):
    llm = replay_llm({"other": [LLMFailure(kind, "injected", status_code=503)]})
    result = llm.chat_json(MESSAGES, phase="ingest", system_name="x")
    assert result.failure is not None and result.failure.kind == kind
    usage = llm.usage(system_name="x", phase="ingest")
    assert usage.llm_failures == 1 and usage.llm_calls == len(llm.calls)


def test_json_reply_tool_call_and_usage(replay_llm):
    llm = replay_llm({"other": [{"facts": ["a b c"]}, {"facts": ["d"]}]})
    result = llm.chat_json(MESSAGES, phase="ingest")
    assert result.data == {"facts": ["a b c"]} and result.prompt_tokens == 6 and result.completion_tokens > 0
    called = llm.chat(MESSAGES, phase="ingest", tools=[TOOL], tool_choice=FORCED)
    (call,) = called.tool_calls
    assert (call.name, call.arguments) == ("record", {"facts": ["d"]}) and called.text == ""
    assert (
        llm.calls[1].tool_choice == FORCED and llm.calls[0].body["response_format"]["type"] == "json_object"
    )
    assert llm.usage().llm_calls == 2


def test_json_retry_repeats_an_unparseable_reply_unless_scripted(replay_llm):
    stubborn = replay_llm({"other": ["no JSON here"]})
    assert stubborn.chat_json(MESSAGES, phase="ingest").failure.kind == "invalid_json"
    assert [c.kind for c in stubborn.calls] == ["other", "json_retry"]
    assert stubborn.calls[1].messages[-2]["content"] == "no JSON here"
    fixed = replay_llm({"other": ["no JSON here"], "json_retry": [{"ok": True}]})
    assert fixed.chat_json(MESSAGES, phase="ingest").data == {"ok": True}


def test_models_endpoint_answers(replay_llm):
    llm = replay_llm()
    with urllib.request.urlopen(f"{llm.config.base_url}/models", timeout=5) as response:
        assert b'"object": "list"' in response.read()


@pytest.mark.parametrize("fake", ["FakeLLM", "RecordingLLM"])
def test_the_fakes_implement_the_chat_client_protocol_with_its_signatures(fake):
    """Every LLM parameter is typed ChatClient: the fakes the logic tests hand in must be one, down to
    each method's parameters, so a change of the protocol shows here rather than as a silent mismatch."""
    import inspect

    import fakes

    from memsuite.memory_systems.llm import ChatClient, LLMClient

    cls = getattr(fakes, fake)
    for name in ("for_system", "identity", "chat", "chat_json", "usage"):
        wanted = inspect.signature(getattr(ChatClient, name)).parameters
        for impl in (cls, LLMClient):
            got = inspect.signature(getattr(impl, name)).parameters
            if any(p.kind is p.VAR_KEYWORD for p in got.values()):  # **options takes every keyword
                assert list(got)[: len(_positional(wanted))] == _positional(wanted), (impl, name)
            else:
                assert list(got) == list(wanted), (impl, name)
    instance = fakes.FakeLLM() if cls is fakes.FakeLLM else cls(fakes.FakeLLM())
    assert isinstance(instance, ChatClient) and isinstance(instance.for_system("x"), ChatClient)


def _positional(parameters) -> list[str]:
    return [n for n, p in parameters.items() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
