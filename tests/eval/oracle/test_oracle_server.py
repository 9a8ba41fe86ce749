"""The oracle endpoint over real HTTP: prompt kinds recognised from the libraries' own prompt builders,
replies from MEME gold, refusals that are failed calls, and a bad setup refused before any work."""

from __future__ import annotations

import json

import pytest

from memsuite.eval.benchmarks.meme import oracle_gold
from memsuite.eval.benchmarks.meme.generator import generate_episodes
from memsuite.eval.benchmarks.meme.protocol import answer_messages
from memsuite.eval.oracle.kinds import PromptKind, check_kinds
from memsuite.eval.oracle.prompts import all_kinds
from memsuite.eval.oracle.run import open_oracle, served, server_of
from memsuite.eval.oracle.server import OracleServer, ServedCall, busy_seconds
from memsuite.eval.run.config import config_from_dict
from memsuite.memory_systems.errors import ConfigError


@pytest.fixture(scope="module")
def meme_episodes():
    return generate_episodes(1, filler="32k", seed=3)


def _unit(meme):
    return next(iter(meme.episodes.values()))


def _mem0_prompt(session) -> list[dict[str, str]]:
    """mem0ai 2.2.1's extraction messages for a session, built by mem0's own prompt functions."""
    from memsuite.baselines.adapters.mem0ai import _import_mem0, _mem0_messages

    _import_mem0(None)  # telemetry off before mem0 is imported
    from mem0.configs.prompts import ADDITIVE_EXTRACTION_PROMPT, generate_additive_extraction_prompt
    from mem0.memory.utils import parse_messages

    earlier = [{"role": "user", "content": "an earlier message"}]
    user = generate_additive_extraction_prompt(
        existing_memories=[], new_messages=parse_messages(_mem0_messages(session)), last_k_messages=earlier
    )
    return [{"role": "system", "content": ADDITIVE_EXTRACTION_PROMPT}, {"role": "user", "content": user}]


def test_mem0_extraction_replies_each_gold_fact_of_the_session(meme, oracle):
    episode = _unit(meme)
    view = oracle.for_system(f"mem0ai@{episode.episode_id}")
    evidence = [s for s in episode.phase_sessions("before") if s.gold_facts]
    filler = [s for s in episode.phase_sessions("before") if s.session_type == "filler"]
    assert evidence and filler
    result = view.chat_json(_mem0_prompt(evidence[0].to_session()), phase="ingest")
    assert result.ok, result.failure
    texts = [m["text"] for m in result.data["memory"]]
    assert len(texts) == len(evidence[0].gold_facts)
    for fact in evidence[0].gold_facts:
        if fact.value:
            assert any(fact.value in text for text in texts), fact
    nothing = view.chat_json(_mem0_prompt(filler[0].to_session()), phase="ingest")
    assert nothing.ok and nothing.data == {"memory": []}


def test_answer_prompt_gets_the_gold_of_its_phase(meme, oracle):
    episode = _unit(meme)
    view = oracle.for_system(f"bm25@{episode.episode_id}")
    for phase in ("before", "after"):
        question_set = episode.question_set(phase)
        for question in question_set.questions:
            messages = answer_messages("some context", question.question, question_set.timestamp)
            result = view.chat(messages, phase="answer")
            assert result.ok and result.text == question.gold


def test_accounts_count_each_phase_and_the_servers_time(meme, oracle):
    episode = _unit(meme)
    account = f"mem0ai@{episode.episode_id}"
    view = oracle.for_system(account)
    session = next(s for s in episode.phase_sessions("before") if s.gold_facts).to_session()
    for _ in range(2):
        assert view.chat_json(_mem0_prompt(session), phase="ingest").ok
    question_set = episode.question_set("before")
    question = question_set.questions[0]
    assert view.chat(answer_messages("c", question.question, question_set.timestamp), phase="answer").ok
    tally = served({"internal": oracle})["accounts"][account]
    ingest, answer = tally["phases"]["ingest"], tally["phases"]["answer"]
    assert (ingest["calls"], answer["calls"], tally["calls"]) == (2, 1, 3)
    assert ingest["prompt_tokens"] + answer["prompt_tokens"] == tally["prompt_tokens"] > 0
    assert ingest["llm_s"] > 0 and answer["llm_s"] > 0
    calls = [c for c in server_of(oracle).served[account] if c.phase == "ingest"]
    assert ingest["llm_s"] == pytest.approx(sum(c.seconds for c in calls))  # one after the other


def test_calls_answered_at_once_count_their_time_once():
    def call(started, seconds):
        return ServedCall("s@u", "k", 200, 1, 1, started=started, seconds=seconds)

    assert busy_seconds([]) == 0
    # [0, 2] and [1, 3] overlap: 3 s busy; [5, 6] adds 1; [5.2, 5.5] lies inside it
    calls = [call(1.0, 2.0), call(0.0, 2.0), call(5.0, 1.0), call(5.2, 0.3)]
    assert busy_seconds(calls) == pytest.approx(4.0)


def test_unknown_prompt_and_unknown_question_are_failed_calls(meme, oracle):
    episode = _unit(meme)
    view = oracle.for_system(f"bm25@{episode.episode_id}")
    result = view.chat([{"role": "user", "content": "Summarise the weather\nin Paris."}], phase="ingest")
    assert result.failure is not None and result.failure.status_code == 422
    assert "Summarise the weather" in result.failure.message
    assert f"bm25@{episode.episode_id}" in result.failure.message
    asked = view.chat(answer_messages("ctx", "What is my favourite colour?", None), phase="answer")
    assert asked.failure is not None and "not asked in unit" in asked.failure.message
    assert view.usage().llm_failures == 2


def test_a_prompt_without_a_known_unit_is_refused():
    with OracleServer() as server:
        status, payload = server.complete({"messages": answer_messages("c", "What?", None)}, "x@nowhere")
    assert status == 422 and "no unit gold" in payload["error"]["message"]


def test_preflight_is_answered_before_gold_is_bound():
    with open_oracle("oracle") as client:
        assert client.ping(5.0) is None


def test_a_library_at_another_version_or_a_changed_prompt_is_refused():
    kind = next(k for k in all_kinds() if k.library == "mem0ai")
    moved = PromptKind(kind.name, kind.markers, kind.reply, kind.library, "0.0.1", kind.sources)
    with pytest.raises(ConfigError, match=r"mem0ai 2\.2\.1 is installed.*0\.0\.1"):
        check_kinds([moved], ["mem0ai"])
    gone = ("a marker mem0 never wrote",)
    changed = PromptKind(kind.name, gone, kind.reply, kind.library, "2.2.1", kind.sources)
    with pytest.raises(ConfigError, match="the prompt changed"):
        check_kinds([changed], ["mem0ai"])
    check_kinds(all_kinds(), ["mem0ai", "graphiti-core"])  # the installed pins pass


def _config(benchmark: str, **extra):
    data = {"benchmark": benchmark, "name": "x", "systems": ["bm25"], "answer_llm": "oracle", **extra}
    return config_from_dict(data, source="test.yaml")


def test_a_benchmark_without_gold_is_refused_up_front(fetched_catalogue):
    with pytest.raises(ConfigError, match=r"test\.yaml: benchmark: .*gold facts per session.*'locomo'"):
        _config("locomo")
    _config("meme")  # served
    with pytest.raises(ConfigError, match=r"internal_llm\.base_url: not a key of the oracle"):
        _config("meme", internal_llm={"model": "oracle", "base_url": "http://x/v1"})


def test_gold_of_a_meme_episode(meme):
    episode = _unit(meme)
    gold = oracle_gold.unit_gold(meme, episode.episode_id)
    facts = sum(len(s.gold_facts or ()) for p in ("before", "after") for s in episode.phase_sessions(p))
    assert sum(len(s.facts) for s in gold.sessions) == facts
    assert json.dumps([q.gold for q in gold.questions])  # every gold answer is plain data
