"""Karpathy-wiki agent: pages, index/log/raw sources, link-following queries, both transports, and
failure counting. The LLM is scripted: the real client talks over HTTP to a replay server
(tests/fakes.py ``ReplayLLM``), except in the test at the end: the embedded local model, checked
against its recorded replies.
"""

from __future__ import annotations

import pytest
from fakes import RecordingLLM, check_loop, count_invalid_ops

from memsuite.baselines.karpathy_wiki import KarpathyWikiMemory
from memsuite.memory_systems.base import CONTEXT_SEPARATOR, NO_MEMORY
from memsuite.memory_systems.llm import LLMFailure
from memsuite.memory_systems.records import Session, Turn


def session(session_id: str = "s1", timestamp: str = "2023/03/05 (Sun) 11:24", *lines: str) -> Session:
    turns = lines or ("I renamed the router to Brindlewatch yesterday.",)
    return Session(session_id, timestamp, tuple(Turn("user", t) for t in turns))


# --------------------------------------------------------------------------------------------------
# Karpathy wiki
# --------------------------------------------------------------------------------------------------

WIKI_SESSION_1 = {
    "ops": [
        {
            "op": "write",
            "title": "Home network",
            "summary": "Router and wifi",
            "content": "- Router: Brindlewatch\n- Wifi is managed by [[Odrin]]",
        },
        {"op": "write", "title": "Odrin", "summary": "Neighbour, IT helper", "content": "- Fixes the wifi"},
    ],
    "done": True,
}


def test_wiki_ingest_pages_index_log_and_raw_sources(replay_llm):
    llm = replay_llm(
        {
            "wiki_ingest": [
                WIKI_SESSION_1,
                {"ops": [{"op": "append", "title": "odrin", "text": "- Moved to Varn Street (2023-03-09)"}]},
            ]
        }
    )
    wiki = KarpathyWikiMemory(llm=llm)
    first = wiki.ingest_session(session("s1"))
    log_after_first = wiki.log_md()
    second = wiki.ingest_session(session("s1", "2023/03/09 (Thu) 10:00", "Odrin moved to Varn Street."))

    assert (first.added, second.updated, first.failures + second.failures) == (2, 1, 0)
    assert wiki.index_md() == (
        "# Index\n- [[Home network]] — Router and wifi\n- [[Odrin]] — Neighbour, IT helper"
    )
    odrin = wiki.pages()[1]
    assert odrin.text == "- Fixes the wifi\n- Moved to Varn Street (2023-03-09)"
    log = wiki.log_md()
    assert log.startswith(log_after_first)  # append-only
    assert "## [2023-03-05] ingest | session s1" in log and "- created [[Home network]]" in log
    assert "## [2023-03-09] ingest | session s1" in log and "- updated [[Odrin]]" in log
    # Raw sources are immutable: the same session id twice is kept twice, never overwritten.
    raw = wiki.raw_sources()
    assert list(raw) == ["raw/s1.md", "raw/s1-2.md"] and "Brindlewatch" in raw["raw/s1.md"]
    assert "- source: raw/s1-2.md" in log
    # Ingestion showed the model the index and the pages related to the session.
    task = llm.calls_of("wiki_ingest")[1].messages[1]["content"]
    assert "index.md:\n# Index\n- [[Home network]]" in task and "## Odrin\n- Fixes the wifi" in task
    snapshot = wiki.snapshot()
    assert snapshot.startswith("# Index") and "## Home network\n- Router: Brindlewatch" in snapshot


def test_wiki_query_reads_the_index_and_follows_links(replay_llm):
    llm = replay_llm({"wiki_ingest": [WIKI_SESSION_1], "wiki_query": [{"pages": ["home network"]}]})
    wiki = KarpathyWikiMemory(llm=llm)
    wiki.ingest_session(session())
    wiki.store(["The garden needs water on Tuesdays."])

    context = wiki.retrieve("who manages the wifi?", k=2).context

    assert context.split(CONTEXT_SEPARATOR) == [
        "- Router: Brindlewatch\n- Wifi is managed by [[Odrin]]",
        "- Fixes the wifi",  # reached through the [[Odrin]] link, not by search
    ]
    (query,) = llm.calls_of("wiki_query")
    assert llm.usage(system_name="karpathy_wiki", phase="retrieve").llm_calls == 1  # phase is not on the wire
    assert "at most 2" in query.messages[0]["content"]
    assert "- [[Home network]] — Router and wifi" in query.messages[1]["content"]
    assert "Question: who manages the wifi?" in query.messages[1]["content"]


def test_wiki_query_falls_back_to_search_when_the_model_fails(replay_llm):
    llm = replay_llm({"wiki_query": ["no idea, sorry", [], LLMFailure("timeout", "injected")]})
    wiki = KarpathyWikiMemory(llm=llm)
    wiki.store(["The staging database runs on port 6642.", "The garden needs water."])
    for _ in range(3):
        assert (
            wiki.retrieve("staging database port", k=1).context == "The staging database runs on port 6642."
        )


def test_wiki_forced_tool_calls_for_ingest_and_query(replay_llm):
    llm = replay_llm({"wiki_ingest": [WIKI_SESSION_1], "wiki_query": [{"pages": ["Odrin"]}]})
    wiki = KarpathyWikiMemory(llm=llm, protocol="tools")
    wiki.ingest_session(session())
    assert wiki.retrieve("who is Odrin", k=1).context == "- Fixes the wifi"
    ingest, query = llm.calls
    assert ingest.tool_choice["function"]["name"] == "edit_wiki"
    assert query.tool_choice["function"]["name"] == "open_pages"


def test_wiki_bad_operations_are_counted(replay_llm):
    reply = {
        "ops": [
            {"op": "write", "title": "No content"},
            {"op": "delete", "title": "Missing page"},
            {"op": "write", "content": "no title"},
            {"op": "write", "title": "Router", "content": "- Brindlewatch"},
        ]
    }
    wiki = KarpathyWikiMemory(llm=replay_llm({"wiki_ingest": [reply]}))
    report = wiki.ingest_session(session())
    assert report.failures == 3 and [p.title for p in wiki.pages()] == ["Router"]


def test_wiki_delete_leaves_no_trace_in_index_snapshot_or_log():
    wiki = KarpathyWikiMemory()
    ids = wiki.store(["Port 6642 is the staging database.", "The garden needs water."])
    wiki.delete(ids[0])
    for text in (wiki.index_md(), wiki.snapshot(), wiki.log_md()):
        assert "6642" not in text
    assert "delete | page 0" in wiki.log_md()


def test_wiki_save_load_round_trip(tmp_path, replay_llm):
    wiki = KarpathyWikiMemory(llm=replay_llm({"wiki_ingest": [WIKI_SESSION_1]}))
    wiki.ingest_session(session())
    wiki.save(tmp_path / "wiki")
    loaded = KarpathyWikiMemory.load(tmp_path / "wiki")
    assert loaded.snapshot() == wiki.snapshot() and loaded.log_md() == wiki.log_md()
    assert loaded.raw_sources() == wiki.raw_sources() and loaded.params() == wiki.params()


# --------------------------------------------------------------------------------------------------
# Wiring with the embedded local model
# --------------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_wiring_with_the_local_model(local_llm):
    """The embedded 135M model drives the agent loop and the page choice: whatever it replies, the
    loop's rounds, the report, the pages and the context follow exactly from its recorded replies."""
    from memsuite.memory_systems.llm import LLMClient, local_config

    client = LLMClient(local_config(local_llm.base_url), environ={})
    llm = RecordingLLM(client)
    memory = KarpathyWikiMemory(llm=llm, protocol="json")
    # Something to show and to find, so the wiki's query call reaches the model too.
    memory.store(["[2023/03/01] The office printer is called Quillbeck."])
    invalid_ops = count_invalid_ops(memory)
    report = memory.ingest_session(
        session("s1", "2023/03/05 (Sun) 11:24", "I renamed the router to Brindlewatch yesterday.")
    )
    ingest_replies = len(llm.replies)
    context = memory.retrieve("what is the router called").context
    print(f"\n[karpathy_wiki/json wiring] report={report} usage={memory.usage()}")
    print(f"snapshot={memory.snapshot()!r}\ncontext={context!r}\nreplies={llm.replies!r}")
    check_loop(llm.loop_rounds("wiki_ingest", "json"), memory.max_rounds, report, invalid_ops)
    pages = memory.pages()
    assert len(pages) == 1 + report.added - report.deleted
    assert memory.usage().llm_failures == llm.failed() == client.usage().llm_failures
    # Retrieval asks the model once which pages to open; the context is distinct pages, at most k.
    assert [kind for kind, _ in llm.replies[ingest_replies:]] == ["wiki_query"]
    blocks = context.split(CONTEXT_SEPARATOR)
    assert set(blocks) <= {p.text for p in pages} and len(set(blocks)) == len(blocks) <= memory.top_k
    chosen = llm.replies[-1][1].data
    if not (isinstance(chosen, dict) and chosen.get("pages")):  # nothing named: the search hits alone
        hits = memory.search("what is the router called")
        assert context == (CONTEXT_SEPARATOR.join(h.text for h in hits) if hits else NO_MEMORY)
