"""The oracle endpoint answers langmem's and LlamaIndex Memory's own prompts from gold, over real HTTP.

Prompts are made by the pinned libraries themselves (the adapters drive them); a reworded prompt is
refused, and the start-up check finds every marker in the installed libraries' source.
"""

from __future__ import annotations

import json

import pytest

from memsuite.baselines.gold_facts import worded
from memsuite.eval.benchmarks.meme.generator import generate_episodes
from memsuite.eval.oracle.kinds import check_kinds
from memsuite.eval.oracle.prompts import langmem as langmem_kinds
from memsuite.eval.oracle.prompts import llamaindex_memory as llamaindex_kinds


@pytest.fixture(scope="module")
def meme_episodes():
    return generate_episodes(1, filler="none", seed=0)


def _episode(meme):
    return next(iter(meme.episodes.values()))


def _sessions(episode):
    return [s.to_session() for phase in ("before", "after") for s in episode.phase_sessions(phase)]


def test_the_start_up_check_finds_every_marker_in_the_pinned_libraries():
    pytest.importorskip("langmem")
    pytest.importorskip("llama_index.core.memory")
    check_kinds(langmem_kinds.KINDS + llamaindex_kinds.KINDS, ["langmem", "trustcall", "llama-index-core"])


def test_langmem_patches_the_memory_of_an_updated_entity(meme, oracle, embedder):
    pytest.importorskip("langmem")
    from memsuite.baselines.adapters.langmem import LangMemMemory

    episode = _episode(meme)
    memory = LangMemMemory(embedder=embedder, llm=oracle.for_system(f"langmem@{episode.episode_id}"))
    reports = [memory.ingest_session(session, namespace="u") for session in _sessions(episode)]
    assert sum(r.failures for r in reports) == 0 and memory.usage().llm_failures == 0
    assert sum(r.added for r in reports) >= 3 and sum(r.updated for r in reports) >= 1
    stored = {r.text for r in memory.records(namespace="u")}
    before = [f for s in episode.phase_sessions("before") for f in (s.gold_facts or ())]
    assert any(fact.value and fact.value in text for fact in before for text in stored)


def test_langmem_keeps_a_forget_request_as_every_librarys_oracle_does(meme, oracle):
    """A forget request is recorded whether or not langmem's search showed the value it is about;
    a value shown is removed, one not shown stays (what a perfect model cannot see, it cannot remove)."""
    episode = _episode(meme)
    unit = oracle_unit(oracle, f"langmem@{episode.episode_id}")
    after = next(s for s in unit.sessions if any(f.kind == "delete" for f in s.facts))
    request = next(f for f in after.facts if f.kind == "delete")
    conversation = "\n\n".join(after.turns)
    user = {
        "role": "user",
        "content": "Enrich, prune, and organize memories based on any new information."
        f"\n\n<session_0a1b>\n{conversation}\n</session_0a1b>",
    }
    tools = [
        {"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}
        for name in ("Memory", "PatchDoc", "RemoveDoc")
    ]
    view = oracle.for_system(f"langmem@{episode.episode_id}")
    value = next(f for s in unit.sessions for f in s.facts if f.entity == request.entity and f.sets_value)

    def calls(system: str) -> list[tuple[str, dict]]:
        messages = [{"role": "system", "content": system}, user]
        result = view.chat(messages, phase="ingest", tools=tools, tool_choice="required")
        assert result.ok, result.failure
        return [(c.name, c.arguments) for c in result.tool_calls]

    unseen = calls("You are a memory subroutine for an AI.")
    assert ("Memory", {"content": worded(request)}) in unseen
    assert not any(name == "RemoveDoc" for name, _ in unseen)
    shown = (
        "You are a memory subroutine for an AI.\n\n"
        f'<instance id=m1 schema_type="Memory">\n{{"content": {worded(value)!r}}}\n</instance>'
    )
    seen = calls(shown)
    assert ("RemoveDoc", {"json_doc_id": "m1"}) in seen
    assert ("Memory", {"content": worded(request)}) in seen


def test_llamaindex_fact_block_gets_the_gold_facts_of_flushed_sessions(meme, oracle):
    pytest.importorskip("llama_index.core.memory")
    from memsuite.baselines.adapters.llamaindex_memory import LlamaIndexMemory

    episode = _episode(meme)
    view = oracle.for_system(f"llamaindex_memory@{episode.episode_id}")
    memory = LlamaIndexMemory(llm=view, token_limit=60)  # short: every session leaves short-term memory
    sessions = _sessions(episode)
    reports = [memory.ingest_session(session, namespace="u") for session in sessions]
    assert sum(r.failures for r in reports) == 0 and memory.usage().llm_calls >= len(sessions) - 1
    facts = [r.text for r in memory.records(namespace="u")]
    first = episode.phase_sessions("before")[0]
    assert first.gold_facts and all(
        any(fact.value in text for text in facts) for fact in first.gold_facts if fact.value
    )
    assert len(facts) == len(set(facts))  # the library's dedupe, and the oracle names a fact once
    memory.close()


def test_llamaindex_condense_keeps_each_entitys_latest_value(meme, oracle):
    pytest.importorskip("llama_index.core.memory")
    from llama_index.core.memory.memory_blocks.fact import DEFAULT_FACT_CONDENSE_PROMPT

    from memsuite.eval.oracle.gold import UnitGold

    episode = _episode(meme)
    unit: UnitGold = oracle_unit(oracle, f"llamaindex_memory@{episode.episode_id}")
    facts = [f for s in unit.sessions for f in s.facts]
    changed = next(f for f in facts if f.kind in ("update", "change"))
    old = next(f for f in facts if f.entity == changed.entity and f.kind == "state")
    held = [worded(old), "The user likes tea.", worded(changed)]
    prompt = DEFAULT_FACT_CONDENSE_PROMPT.format_messages(
        existing_facts="\n".join(f"<fact>{t}</fact>" for t in held), max_facts=2
    )
    messages = [{"role": "user", "content": m.content} for m in prompt]
    result = oracle.for_system(f"llamaindex_memory@{episode.episode_id}").chat(messages, phase="ingest")
    assert result.ok, result.failure
    assert llamaindex_kinds.held_facts("<existing_facts>" + result.text + "</existing_facts>") == [
        "The user likes tea.",
        worded(changed),
    ]


def oracle_unit(oracle, account):
    from memsuite.eval.oracle.run import server_of

    return server_of(oracle).unit_of(account)


def test_a_reworded_prompt_is_refused(meme, oracle):
    pytest.importorskip("llama_index.core.memory")
    from llama_index.core.memory.memory_blocks.fact import DEFAULT_FACT_EXTRACT_PROMPT

    episode = _episode(meme)
    view = oracle.for_system(f"llamaindex_memory@{episode.episode_id}")
    session = [{"role": "user", "content": t.content} for t in _sessions(episode)[0].turns]
    (prompt,) = DEFAULT_FACT_EXTRACT_PROMPT.format_messages(existing_facts="")
    served = view.chat([*session, {"role": "user", "content": prompt.content}], phase="ingest")
    assert served.ok and "<fact>" in served.text
    reworded = prompt.content.replace("You are a precise fact extraction system", "You extract facts")
    refused = view.chat([*session, {"role": "user", "content": reworded}], phase="ingest")
    assert refused.failure is not None and refused.failure.status_code == 422
    assert "unrecognised prompt" in refused.failure.message


def test_tool_calls_reply_is_several_calls_in_one_message(meme, oracle):
    episode = _episode(meme)
    session = episode.phase_sessions("before")[0]
    conversation = "\n\n".join(t.content for t in session.to_session().turns)
    messages = [
        {"role": "system", "content": "You are a memory subroutine for an AI."},
        {
            "role": "user",
            "content": "Enrich, prune, and organize memories based on any new information."
            f"\n\n<session_0a1b>\n{conversation}\n</session_0a1b>",
        },
    ]
    memory_tool = {"type": "function", "function": {"name": "Memory", "parameters": {"type": "object"}}}
    result = oracle.for_system(f"langmem@{episode.episode_id}").chat(
        messages, phase="ingest", tools=[memory_tool], tool_choice="required"
    )
    assert result.ok and result.finish_reason == "tool_calls"
    assert [c.name for c in result.tool_calls] == ["Memory"] * len(session.gold_facts)
    assert [c.arguments["content"] for c in result.tool_calls] == [
        worded(f) for f in oracle_unit(oracle, f"langmem@{episode.episode_id}").sessions[0].facts
    ]
    assert json.loads(result.tool_calls[0].arguments_json) == result.tool_calls[0].arguments
