"""MD-flat agent: the tool loop and its cap, both transports, whole-file retrieval, failure counting.

The LLM is scripted: the real client talks over HTTP to a replay server (tests/fakes.py
``ReplayLLM``), except in the test at the end, which runs the embedded local model and checks what
follows exactly from its recorded replies.
"""

from __future__ import annotations

import pytest
from fakes import RecordingLLM, check_loop, count_invalid_ops

from memsuite.baselines.md_flat import MdFlatMemory
from memsuite.memory_systems.base import CONTEXT_SEPARATOR, NO_MEMORY
from memsuite.memory_systems.errors import ConfigError
from memsuite.memory_systems.llm import LLMFailure
from memsuite.memory_systems.records import Session, Turn


def session(session_id: str = "s1", timestamp: str = "2023/03/05 (Sun) 11:24", *lines: str) -> Session:
    turns = lines or ("I renamed the router to Brindlewatch yesterday.",)
    return Session(session_id, timestamp, tuple(Turn("user", t) for t in turns))


# --------------------------------------------------------------------------------------------------
# MD-flat
# --------------------------------------------------------------------------------------------------


def test_md_flat_tool_loop_reads_appends_replaces_deletes(replay_llm):
    llm = replay_llm(
        {
            "md_flat_edit": [
                {
                    "ops": [
                        {"op": "append", "text": "Router is named Brindlewatch."},
                        {"op": "replace", "line": 1, "text": "Team uses a solo on-call rotation."},
                        {"op": "delete", "line": 2},
                        {"op": "read"},
                    ],
                    "done": False,
                },
                {"ops": [], "done": True},
            ]
        }
    )
    memory = MdFlatMemory(llm=llm)
    memory.store(["[2023/03/01] Team uses a paired on-call rotation.", "[2023/03/01] Office is in Destrel."])

    report = memory.ingest_session(session())

    assert memory.memory_md() == (
        "[2023/03/05] Team uses a solo on-call rotation.\n[2023/03/05] Router is named Brindlewatch."
    )
    assert (report.added, report.updated, report.deleted, report.failures) == (1, 1, 1, 0)
    first, second = llm.calls_of("md_flat_edit")
    task = first.messages[1]["content"]
    assert "1: [2023/03/01] Team uses a paired on-call rotation." in task and "New session:" in task
    feedback = second.messages[-1]["content"]  # the read shows the file after this round's edits
    assert "memory.md now:" in feedback and "2: [2023/03/05] Router is named Brindlewatch." in feedback
    assert memory.snapshot() == memory.memory_md()
    assert (
        memory.search("what is the router called", k=1)[0].text
        == "[2023/03/05] Router is named Brindlewatch."
    )


@pytest.mark.parametrize("max_rounds", [5, 2])
def test_md_flat_loop_stops_at_the_round_cap(max_rounds, replay_llm):
    # A model that never says it is done: it reads and appends forever.
    def endless(messages):
        return {"ops": [{"op": "read"}, {"op": "append", "text": f"note {len(messages)}"}], "done": False}

    llm = replay_llm({"md_flat_edit": [endless] * 50})
    memory = MdFlatMemory(llm=llm, max_rounds=max_rounds)
    report = memory.ingest_session(session())
    assert len(llm.calls_of("md_flat_edit")) == max_rounds
    assert report.added == max_rounds and report.failures == 0


def test_md_flat_missing_done_ends_the_loop_and_duplicates_are_skipped(replay_llm):
    llm = replay_llm(
        {"md_flat_edit": [[{"op": "append", "text": "[2023/03/05] Router is named Brindlewatch."}]]}
    )
    memory = MdFlatMemory(llm=llm)
    memory.store(["[2023/03/05] Router is named Brindlewatch."])
    report = memory.ingest_session(session())
    assert len(llm.calls) == 1 and report.added == 0 and len(memory.records()) == 1


def test_md_flat_forced_tool_calls(replay_llm):
    llm = replay_llm(
        {
            "md_flat_edit": [
                {
                    "ops": [{"op": "append", "text": "Router is named Brindlewatch."}, {"op": "read"}],
                    "done": False,
                },
                {"ops": [], "done": True},
            ]
        }
    )
    memory = MdFlatMemory(llm=llm, protocol="tools")
    report = memory.ingest_session(session())
    first, second = llm.calls
    assert first.tool_choice == {"type": "function", "function": {"name": "edit_memory"}}
    assert first.tools[0]["function"]["parameters"]["properties"]["ops"]["type"] == "array"
    assert "Call edit_memory" in first.messages[0]["content"]
    assert second.messages[-1]["role"] == "tool" and second.messages[-2]["tool_calls"]
    assert report.added == 1 and memory.memory_md() == "[2023/03/05] Router is named Brindlewatch."


@pytest.mark.parametrize(
    ("reply", "failures", "lines"),
    [
        ("I will add the router name to the file.", 1, 0),  # prose, not JSON
        ({"answer": "something else"}, 1, 0),  # JSON, but no operations
        (LLMFailure("timeout", "injected"), 1, 0),
        (
            {
                "ops": [
                    {"op": "replace", "line": 99, "text": "no such line"},
                    {"op": "append"},
                    {"op": "rename", "line": 1},
                    {"op": "append", "text": "Router is named Brindlewatch."},
                ],
                "done": True,
            },
            3,
            1,
        ),
    ],
    ids=["prose", "no-ops", "timeout", "bad-ops"],
)
def test_md_flat_failures_are_counted_never_raised(reply, failures, lines, replay_llm):
    memory = MdFlatMemory(llm=replay_llm({"md_flat_edit": [reply]}))
    report = memory.ingest_session(session())
    assert report.failures == failures and len(memory.records()) == lines


def test_md_flat_whole_file_retrieval_and_budget():
    memory = MdFlatMemory(whole_file=True, context_tokens=40)
    memory.store(["[2023/03/01] Office is in Destrel.", "[2023/03/02] Router is named Brindlewatch."])
    assert memory.retrieve("router name").context == memory.memory_md()  # fits: the whole file
    memory.store([f"[2023/03/0{i}] Filler entry number {i} about the weather." for i in range(3, 9)])
    context = memory.retrieve("what is the router named").context
    assert "Brindlewatch" in context and context != memory.memory_md()
    assert "\n" in context and CONTEXT_SEPARATOR not in context  # lines of the file, not hits


def test_md_flat_shows_the_relevant_part_of_a_long_file(replay_llm):
    llm = replay_llm()
    memory = MdFlatMemory(llm=llm, view_tokens=60)
    memory.store([f"[2023/03/01] Filler entry number {i} about the weather." for i in range(30)])
    memory.store(["[2023/03/02] Router is named Oldname."])
    memory.ingest_session(session())
    task = llm.calls[0].messages[1]["content"]
    assert "(showing" in task and "31: [2023/03/02] Router is named Oldname." in task


def test_md_flat_needs_an_llm_only_to_ingest():
    memory = MdFlatMemory()
    memory.store(["[2023/03/01] Office is in Destrel."])
    assert memory.search("office")[0].text == "[2023/03/01] Office is in Destrel."
    with pytest.raises(ConfigError, match="needs an LLM"):
        memory.ingest_session(session())
    with pytest.raises(ConfigError, match="protocol"):
        MdFlatMemory(protocol="xml")


# --------------------------------------------------------------------------------------------------
# Wiring with the embedded local model
# --------------------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("protocol", ["json", "tools"])
def test_wiring_with_the_local_model(local_llm, protocol):
    """The embedded 135M model drives the agent loop: whatever it replies, the loop's rounds, the
    report, the file and the context follow exactly from its recorded replies."""
    from memsuite.memory_systems.llm import LLMClient, local_config

    client = LLMClient(local_config(local_llm.base_url), environ={})
    llm = RecordingLLM(client)
    memory = MdFlatMemory(llm=llm, protocol=protocol)
    memory.store(["[2023/03/01] The office printer is called Quillbeck."])
    invalid_ops = count_invalid_ops(memory)
    report = memory.ingest_session(
        session("s1", "2023/03/05 (Sun) 11:24", "I renamed the router to Brindlewatch yesterday.")
    )
    context = memory.retrieve("what is the router called").context
    print(f"\n[md_flat/{protocol} wiring] report={report} usage={memory.usage()}")
    print(f"snapshot={memory.snapshot()!r}\ncontext={context!r}\nreplies={llm.replies!r}")
    check_loop(llm.loop_rounds("md_flat_edit", protocol), memory.max_rounds, report, invalid_ops)
    assert len(memory.records()) == 1 + report.added - report.deleted
    assert memory.usage().llm_failures == llm.failed() == client.usage().llm_failures
    hits = memory.search("what is the router called")
    assert context == (CONTEXT_SEPARATOR.join(h.text for h in hits) if hits else NO_MEMORY)
