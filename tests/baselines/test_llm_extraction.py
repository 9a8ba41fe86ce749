"""LLM-extraction memory (mem0 v1): decisions, id remapping, history, failure counting, usage.

Unit tests script the LLM with a replay server (tests/fakes.py ``ReplayLLM``): the real client talks to
a loopback OpenAI-compatible endpoint over HTTP. The last test runs the embedded local model: its
facts are not worth asserting on, so it checks that everything follows exactly from its recorded replies.
"""

from __future__ import annotations

import json
import logging

import pytest
from fakes import RecordingLLM

from memsuite.baselines.llm_extraction import FACTS_HEADER, MEMORIES_HEADER, LLMExtractionMemory
from memsuite.memory_systems.base import CONTEXT_SEPARATOR, NO_MEMORY
from memsuite.memory_systems.errors import ConfigError
from memsuite.memory_systems.llm import LLMFailure
from memsuite.memory_systems.records import Session, Turn

SESSION = Session(
    "s2",
    "2023/03/09 (Thu) 10:00",
    (
        Turn("user", "My dentist is now Dr. Torbek, and I moved out of Varnholm."),
        Turn("assistant", "Noted."),
    ),
)


def _listed(call) -> tuple[list[dict], list[str]]:
    """The memories and facts a decision call showed the model."""
    task = call.messages[-1]["content"]
    memories = json.loads(task.split(MEMORIES_HEADER, 1)[1].strip().splitlines()[0])
    facts = json.loads(task.split(FACTS_HEADER, 1)[1].strip().splitlines()[0])
    return memories, facts


def _decide(decisions: dict[str, tuple[str, str | None]], added: list[str]):
    """A scripted decision reply: memory text -> (event, new text), plus facts to ADD.

    Looks up the prompt id of each memory, so the test does not depend on similarity order.
    """

    def reply(messages):
        task = messages[-1]["content"]
        memories = json.loads(task.split(MEMORIES_HEADER, 1)[1].strip().splitlines()[0])
        ids = {m["text"]: m["id"] for m in memories}
        out = [
            {"id": ids[text], "event": event, "text": new, "old_memory": text}
            for text, (event, new) in decisions.items()
        ]
        return {"memory": out + [{"event": "ADD", "text": text} for text in added]}

    return reply


@pytest.fixture
def memory_and_llm(embedder, replay_llm):
    llm = replay_llm()
    memory = LLMExtractionMemory(llm=llm, embedder=embedder)
    # Ids are global: fill another namespace first so the real ids differ from the prompt's 0, 1, 2.
    memory.store([f"Unrelated note {i}." for i in range(10)], namespace="other")
    return memory, llm


def test_add_update_delete_none_with_remapped_ids_and_history(memory_and_llm):
    memory, llm = memory_and_llm
    dentist, home, bike = memory.store(
        ["User's dentist is Dr. Quessa.", "User lives in Varnholm.", "User owns a red bike."]
    )
    assert int(dentist) >= 10
    llm.script["extract_facts"] = [
        {
            "facts": [
                "User's dentist is Dr. Torbek.",
                "User moved out of Varnholm.",
                "User owns a red bike.",
                "User adopted a cat named Pelmet.",
            ]
        }
    ]
    llm.script["update_memory"] = [
        _decide(
            {
                "User's dentist is Dr. Quessa.": ("UPDATE", "User's dentist is Dr. Torbek."),
                "User lives in Varnholm.": ("DELETE", None),
                "User owns a red bike.": ("NONE", None),
            },
            added=["User adopted a cat named Pelmet."],
        )
    ]

    report = memory.ingest_session(SESSION)

    assert (report.added, report.updated, report.deleted, report.failures) == (1, 1, 1, 0)
    memories, facts = _listed(llm.calls_of("update_memory")[0])
    assert sorted(m["id"] for m in memories) == ["0", "1", "2"]  # small integers, not the real ids
    assert {m["text"] for m in memories} == {
        "User's dentist is Dr. Quessa.",
        "User lives in Varnholm.",
        "User owns a red bike.",
    }
    assert len(facts) == 4
    texts = [r.text for r in memory.records()]
    assert texts == [
        "User's dentist is Dr. Torbek.",
        "User owns a red bike.",
        "User adopted a cat named Pelmet.",
    ]
    assert memory.search("who is my dentist", k=1)[0].text == "User's dentist is Dr. Torbek."
    assert "Varnholm" not in memory.retrieve("where does the user live", k=10).context

    updated = memory.history(dentist)
    assert [(h.event, h.old_text, h.new_text) for h in updated] == [
        ("ADD", None, "User's dentist is Dr. Quessa."),
        ("UPDATE", "User's dentist is Dr. Quessa.", "User's dentist is Dr. Torbek."),
    ]
    assert updated[0].session_id is None and updated[1].session_id == "s2"
    assert updated[1].session_time == SESSION.timestamp and updated[1].created_at.endswith("+00:00")
    deleted = memory.history(home)
    assert [(h.event, h.old_text, h.new_text) for h in deleted][-1] == (
        "DELETE",
        "User lives in Varnholm.",
        None,
    )
    assert [h.event for h in memory.history(bike)] == ["ADD"]  # NONE changes nothing


def test_each_fact_sees_its_five_nearest_memories(embedder, replay_llm):
    llm = replay_llm({"extract_facts": [{"facts": ["User's favourite tea is oolong."]}]})
    memory = LLMExtractionMemory(llm=llm, embedder=embedder)
    memory.store([f"User's note number {i} about tea." for i in range(8)])
    memory.ingest_session(SESSION)
    memories, _ = _listed(llm.calls_of("update_memory")[0])
    assert [m["id"] for m in memories] == ["0", "1", "2", "3", "4"]


def test_forced_tool_calls_transport(embedder, replay_llm):
    llm = replay_llm()
    memory = LLMExtractionMemory(llm=llm, embedder=embedder, protocol="tools")
    report = memory.ingest_session(SESSION)
    assert report.added == 2 and report.failures == 0
    extract, decide = llm.calls
    assert extract.tool_choice["function"]["name"] == "record_facts"
    assert decide.tool_choice["function"]["name"] == "decide_events"
    assert decide.tools[0]["function"]["parameters"]["properties"]["memory"]["items"]["properties"]["event"][
        "enum"
    ] == ["ADD", "UPDATE", "DELETE", "NONE"]


def test_direct_verbs_are_in_history(embedder):
    memory = LLMExtractionMemory(embedder=embedder)  # no LLM needed for the verbs
    (memory_id,) = memory.store(["The boiler code is 4471."])
    memory.update(memory_id, "The boiler code is 9902.")
    memory.delete(memory_id)
    assert [h.event for h in memory.history(memory_id)] == ["ADD", "UPDATE", "DELETE"]
    assert memory.records() == [] and memory.search("boiler code") == []


@pytest.mark.parametrize(
    "script",
    [
        {"extract_facts": ["this is not JSON at all"]},
        {"extract_facts": [{"wrong_key": []}]},
        {"extract_facts": [LLMFailure("timeout", "injected")]},
        {"update_memory": ["{{{ broken"]},
        {"update_memory": [LLMFailure("connection", "injected")]},
    ],
    ids=["extract-not-json", "extract-no-facts", "extract-timeout", "decide-not-json", "decide-refused"],
)
def test_failures_are_counted_never_raised(embedder, replay_llm, script, caplog):
    memory = LLMExtractionMemory(llm=replay_llm(script), embedder=embedder)
    with caplog.at_level(logging.INFO, logger="memsuite.baselines.llm_extraction"):
        report = memory.ingest_session(SESSION)
    assert report.failures == 1 and report.added == 0
    assert memory.records() == []
    assert caplog.records  # says what went wrong


def test_unusable_decisions_are_counted_and_the_rest_applied(memory_and_llm):
    memory, llm = memory_and_llm
    memory.store(["User's dentist is Dr. Quessa."])
    llm.script["update_memory"] = [
        {
            "memory": [
                {"id": "7", "event": "UPDATE", "text": "made-up id"},
                {"id": "0", "event": "MERGE", "text": "unknown event"},
                {"event": "ADD"},
                "not an object",
                {"event": "ADD", "text": "User moved out of Varnholm."},
            ]
        }
    ]
    report = memory.ingest_session(SESSION)
    assert report.failures == 4 and report.added == 1
    assert [r.text for r in memory.records()] == [
        "User's dentist is Dr. Quessa.",
        "User moved out of Varnholm.",
    ]


def test_long_session_is_ingested_in_chunks(embedder, replay_llm):
    turns = tuple(Turn("user", f"Fact number {i}: the locker {i} code is {1000 + i}.") for i in range(40))
    llm = replay_llm()
    memory = LLMExtractionMemory(llm=llm, embedder=embedder, input_tokens=150)
    report = memory.ingest_session(Session("long", "2023/03/01 (Wed) 09:00", turns))
    assert len(llm.calls_of("extract_facts")) > 1
    assert report.added == 40 and report.failures == 0


def test_usage_counts_this_instance_only(embedder, replay_llm):
    llm = replay_llm()
    first = LLMExtractionMemory(llm=llm, embedder=embedder)
    first.ingest_session(SESSION)
    assert first.usage().llm_calls == 2 and first.usage().prompt_tokens > 0
    assert llm.usage(system_name="llm_extraction", phase="ingest").llm_calls == 2
    assert first.usage().wall_s["ingest"] > 0
    # The runner builds a new system per unit around one client: each reports its own calls.
    second = LLMExtractionMemory(llm=llm, embedder=embedder)
    assert second.usage().llm_calls == 0
    second.ingest_session(SESSION)
    assert second.usage().llm_calls == 2
    # The first instance's account is its own: the second's calls never leak into it.
    assert first.usage().llm_calls == 2
    assert llm.usage(system_name="llm_extraction").llm_calls == 4  # the client-wide total


def test_ingest_without_llm_is_a_config_error(embedder):
    with pytest.raises(ConfigError, match="needs an LLM"):
        LLMExtractionMemory(embedder=embedder).ingest_session(SESSION)


def test_save_load_keeps_history(memory_and_llm, tmp_path):
    memory, _ = memory_and_llm
    (memory_id,) = memory.store(["The boiler code is 4471."])
    memory.update(memory_id, "The boiler code is 9902.")
    memory.save(tmp_path / "store")
    loaded = LLMExtractionMemory.load(tmp_path / "store", embedder=memory.embedder)
    assert loaded.history(memory_id) == memory.history(memory_id)
    assert loaded.search("boiler code", k=1)[0].text == "The boiler code is 9902."


def _expected_on_empty_store(replies) -> tuple[list[str], int, int]:
    """(texts added, failures, calls) a one-chunk session must give from these recorded replies.

    The store starts empty, so the decision call sees no memory: only ADD (new text, once) and NONE
    are usable; UPDATE and DELETE name no shown id, and anything else is unusable too.
    """
    kind, extracted = replies[0]
    assert kind == "extract_facts"
    payload = extracted.data if extracted.ok else None
    facts = payload.get("facts") if isinstance(payload, dict) else payload
    if not isinstance(facts, list):
        return [], 1, 1
    if not [f for f in facts if isinstance(f, str) and f.strip()]:
        return [], 0, 1
    kind, decided = replies[1]
    assert kind == "update_memory"
    payload = decided.data if decided.ok else None
    actions = payload.get("memory", payload.get("memories")) if isinstance(payload, dict) else payload
    if not isinstance(actions, list):
        return [], 1, 2
    added: list[str] = []
    failures = 0
    for action in actions:
        event = str(action.get("event", "")).strip().upper() if isinstance(action, dict) else ""
        text = action.get("text") if isinstance(action, dict) else None
        text = text.strip() if isinstance(text, str) else ""
        if event == "ADD" and text:
            added += [text] if text not in added else []
        elif event != "NONE":
            failures += 1
    return added, failures, 2


@pytest.mark.slow
def test_wiring_with_the_local_model(local_llm, embedder):
    """The embedded 135M model end to end: whatever it replies, the report, the store, the history
    and the context follow exactly from its recorded replies (its quality is not asserted on)."""
    from memsuite.memory_systems.llm import LLMClient, local_config

    client = LLMClient(local_config(local_llm.base_url), environ={})
    llm = RecordingLLM(client)
    memory = LLMExtractionMemory(llm=llm, embedder=embedder)
    report = memory.ingest_session(
        Session(
            "s1",
            "2023/03/05 (Sun) 11:24",
            (
                Turn("user", "I renamed the router to Brindlewatch yesterday."),
                Turn("assistant", "Noted, Brindlewatch."),
            ),
        )
    )
    context = memory.retrieve("what is the router called").context
    print(f"\n[llm_extraction wiring] report={report} usage={memory.usage()}\nreplies={llm.replies!r}")
    added, failures, calls = _expected_on_empty_store(llm.replies)
    assert len(llm.replies) == calls
    assert (report.added, report.updated, report.deleted, report.failures) == (len(added), 0, 0, failures)
    records = memory.records()
    assert [r.text for r in records] == added
    for record in records:
        assert [(h.event, h.old_text, h.new_text, h.session_id) for h in memory.history(record.id)] == [
            ("ADD", None, record.text, "s1")
        ]
    usage = memory.usage()
    assert usage.llm_failures == llm.failed() == client.usage().llm_failures
    assert usage.llm_calls == client.usage().llm_calls >= calls  # retries add requests, never remove
    hits = memory.search("what is the router called")
    assert len(hits) == min(memory.top_k, len(records))
    assert context == (CONTEXT_SEPARATOR.join(h.text for h in hits) if hits else NO_MEMORY)
