"""``oracle: facts`` for the file agents and the temporal graph: gold facts in, the system's own upkeep.

Each system's ingestion LLM is the scripted replay server (tests/fakes.py ``ReplayLLM``): the tests
check that it is called, that it reads the worded gold facts and none of the dialogue, and that the
memory ends as its replies dictate -- a reply that ignores a deletion request leaves the value where
``oracle: memory`` would have removed it, and one that obeys removes it.
"""

from __future__ import annotations

import pytest

from memsuite.baselines.gold_facts import FACTS_HEADING, fact_chunks, oracle_facts, worded
from memsuite.baselines.karpathy_wiki import KarpathyWikiMemory
from memsuite.baselines.llm_extraction import LLMExtractionMemory
from memsuite.baselines.md_flat import MdFlatMemory
from memsuite.baselines.temporal_kg import TemporalKGMemory
from memsuite.eval.benchmarks.meme.generator import generate_episodes
from memsuite.eval.benchmarks.meme.matching import contains
from memsuite.memory_systems.errors import InvalidInputError
from memsuite.memory_systems.records import Session, Turn

INSURER = "Safelane Insurance"
NEW_INSURER = "Kestrel Mutual"


def _session(session_id: str, timestamp: str, said: str, fact: dict) -> Session:
    turns = (Turn("user", said), Turn("assistant", "Got it, I will keep that in mind for you."))
    return Session(session_id, timestamp, turns, {"type": "evidence", "gold_facts": [fact]})


STATE = _session(
    "s1",
    "2023/03/05 (Sun) 11:24",
    "Oh, and I signed up with Safelane Insurance for the car last week, finally.",
    {
        "entity": "car_insurer",
        "name": "car insurer",
        "value": INSURER,
        "kind": "state",
        "fact_text": f"My car insurer is {INSURER}.",
    },
)
UPDATE = _session(
    "s2",
    "2023/04/02 (Sun) 09:10",
    "Safelane hiked the premium, so I moved the car over to Kestrel Mutual yesterday.",
    {
        "entity": "car_insurer",
        "name": "car insurer",
        "value": NEW_INSURER,
        "kind": "update",
        "fact_text": f"My car insurer changed from {INSURER} to {NEW_INSURER}.",
    },
)
DELETE = _session(
    "s3",
    "2023/05/07 (Sun) 18:45",
    "Could you please wipe whatever you know about how my car is insured? Thanks a lot.",
    {
        "entity": "car_insurer",
        "name": "car insurer",
        "value": "",
        "kind": "delete",
        "fact_text": "Please forget my car insurer.",
    },
)

# Per system: its prompt kind, how to build it, and scripted replies to STATE and to DELETE (ignoring
# and obeying the request), all in the system's own reply format.
MD_KEEP = {"ops": [{"op": "append", "text": f"User's car insurer: {INSURER}"}], "done": True}
WIKI_KEEP = {
    "ops": [{"op": "write", "title": "Car insurer", "summary": INSURER, "content": f"- {INSURER}"}],
    "done": True,
}
KG_KEEP = {
    "facts": [
        {"subject": "user", "relation": "car_insurer", "object": INSURER, "fact": f"Car insurer: {INSURER}"}
    ],
    "dependencies": [],
    "forget": [],
}
SYSTEMS = {
    "md_flat": (
        "md_flat_edit",
        lambda llm, embedder, oracle: MdFlatMemory(llm=llm, oracle=oracle),
        MD_KEEP,
        {"ignore": {"ops": [], "done": True}, "obey": {"ops": [{"op": "delete", "line": 1}], "done": True}},
    ),
    "karpathy_wiki": (
        "wiki_ingest",
        lambda llm, embedder, oracle: KarpathyWikiMemory(llm=llm, oracle=oracle),
        WIKI_KEEP,
        {
            "ignore": {"ops": [], "done": True},
            "obey": {"ops": [{"op": "delete", "title": "Car insurer"}], "done": True},
        },
    ),
    "temporal_kg": (
        "kg_extract",
        lambda llm, embedder, oracle: TemporalKGMemory(llm=llm, embedder=embedder, oracle=oracle),
        KG_KEEP,
        {
            "ignore": {"facts": [], "dependencies": [], "forget": []},
            "obey": {
                "facts": [],
                "dependencies": [],
                "forget": [{"subject": "user", "relation": "car_insurer"}],
            },
        },
    ),
}


def _task(call) -> str:
    """The task message of an ingestion call (the first user message)."""
    return next(m["content"] for m in call.messages if m["role"] == "user")


def _assert_reads_facts_not_dialogue(task: str, session: Session) -> None:
    assert FACTS_HEADING in task
    for fact in oracle_facts(session):
        if fact.kind == "verbatim":  # its lines go indented under the item
            assert all(line.strip() in task for line in fact.value.splitlines())
        else:
            assert worded(fact) in task, (worded(fact), task)
    for turn in session.turns:
        assert turn.content not in task
    assert "User: " not in task and "Assistant: " not in task


@pytest.mark.parametrize("name", list(SYSTEMS))
@pytest.mark.parametrize("decision", ["ignore", "obey"])
def test_facts_mode_hands_the_worded_facts_to_the_llm_and_keeps_its_decisions(
    name, decision, replay_llm, embedder
):
    kind, build, keep, deletes = SYSTEMS[name]
    llm = replay_llm({kind: [keep, deletes[decision]]})
    system = build(llm, embedder, "facts")
    system.ingest_session(STATE)
    assert contains(system.snapshot(), INSURER)
    report = system.ingest_session(DELETE)

    calls = llm.calls_of(kind)
    assert len(calls) == 2 and system.usage().llm_calls == 2  # (a) the LLM runs at ingestion
    for call, session in zip(calls, (STATE, DELETE), strict=True):
        _assert_reads_facts_not_dialogue(_task(call), session)  # (b) gold facts in, no dialogue
    assert "User asked that everything about their car insurer be forgotten" in _task(calls[1])
    # (c) The deletion happens only if the LLM's reply makes it.
    assert contains(system.snapshot(), INSURER) is (decision == "ignore")
    assert report.deleted == (decision == "obey")

    gold = build(None, embedder, "memory")  # gold maintenance removes it whatever an LLM would do
    for session in (STATE, DELETE):
        gold.ingest_session(session)
    assert not contains(gold.snapshot(), INSURER)


@pytest.mark.parametrize(("relation", "invalidated"), [("car_insurer", True), ("insurance_company", False)])
def test_temporal_kg_facts_mode_invalidates_by_the_relation_its_llm_names(
    relation, invalidated, replay_llm, embedder
):
    """Whether the switch retires the old value is the system's own logic on its LLM's triples."""
    update = {
        "facts": [{"subject": "user", "relation": relation, "object": NEW_INSURER, "fact": "Switched"}],
        "dependencies": [],
        "forget": [],
    }
    llm = replay_llm({"kg_extract": [KG_KEEP, update]})
    system = TemporalKGMemory(llm=llm, embedder=embedder, oracle="facts")
    system.ingest_session(STATE)
    system.ingest_session(UPDATE)
    _assert_reads_facts_not_dialogue(_task(llm.calls_of("kg_extract")[1]), UPDATE)
    current = {e.value for e in system.edges() if e.current}
    assert NEW_INSURER in current
    assert (INSURER not in current) is invalidated


@pytest.mark.parametrize("name", list(SYSTEMS))
def test_facts_mode_over_an_episode_sends_every_fact_and_no_turn(name, replay_llm, embedder):
    kind, build, _, deletes = SYSTEMS[name]
    llm = replay_llm({kind: [deletes["ignore"]] * 100})
    system = build(llm, embedder, "facts")
    episode = generate_episodes(1, seed=11)[0]
    sessions = [s.to_session() for s in episode.sessions]
    tasks = []
    for session in sessions:
        before = len(llm.calls_of(kind))
        system.ingest_session(session, namespace=episode.episode_id)
        calls = llm.calls_of(kind)[before:]
        assert len(calls) == len(fact_chunks(session, system.input_tokens))  # one call per chunk
        tasks.append("\n".join(_task(c) for c in calls))
    assert sum(len(oracle_facts(s)) for s in sessions) >= 10
    for task, session in zip(tasks, sessions, strict=True):
        _assert_reads_facts_not_dialogue(task, session)
        for other in sessions:  # nor any other session's dialogue
            assert not any(len(t.content) > 30 and t.content in task for t in other.turns)


@pytest.mark.parametrize(
    "build",
    [
        lambda llm, embedder: LLMExtractionMemory(llm=llm, embedder=embedder, oracle="memory"),
        lambda llm, embedder: TemporalKGMemory(llm=llm, embedder=embedder, oracle="memory"),
        lambda llm, embedder: MdFlatMemory(llm=llm, oracle="memory"),
        lambda llm, embedder: KarpathyWikiMemory(llm=llm, oracle="memory"),
    ],
)
def test_memory_mode_makes_no_llm_call_even_with_an_llm(build, replay_llm, embedder):
    llm = replay_llm()
    system = build(llm, embedder)
    for session in (STATE, UPDATE, DELETE):
        system.ingest_session(session)
    assert llm.calls == [] and system.usage().llm_calls == 0
    assert not contains(system.snapshot(), INSURER) and not contains(system.snapshot(), NEW_INSURER)


@pytest.mark.parametrize("name", list(SYSTEMS))
def test_facts_mode_refuses_a_session_without_gold_facts_before_any_work(name, replay_llm, embedder):
    _, build, _, _ = SYSTEMS[name]
    llm = replay_llm()
    system = build(llm, embedder, "facts")
    with pytest.raises(InvalidInputError, match="gold facts"):
        system.ingest_session(Session("s", "2023/03/05 (Sun) 11:24", (Turn("user", "hi"),)))
    assert llm.calls == [] and system.snapshot() == ""
    if name == "karpathy_wiki":
        assert system.raw_sources() == {}
    filler = Session("f", "2023/03/05 (Sun) 11:24", (Turn("user", "hi"),), {"type": "filler"})
    assert system.ingest_session(filler).added == 0 and llm.calls == []


@pytest.mark.parametrize("name", list(SYSTEMS))
def test_facts_mode_survives_save_and_load(name, replay_llm, embedder, tmp_path):
    kind, build, keep, _ = SYSTEMS[name]
    system = build(replay_llm({kind: [keep]}), embedder, "facts")
    assert system.params()["oracle"] == "facts"
    system.ingest_session(STATE)
    system.save(tmp_path / name)
    loaded = type(system).load(tmp_path / name, embedder=embedder)
    assert loaded.params()["oracle"] == "facts" and loaded.oracle_mode == "facts"
    assert contains(loaded.snapshot(), INSURER)


def test_fact_chunks_pack_worded_facts_under_the_session_header():
    facts = [
        {"entity": f"e{i}", "name": f"thing {i}", "value": f"Value number {i}", "kind": "state"}
        for i in range(6)
    ]
    facts.append({"entity": "poem", "name": "poem", "value": "first line\nsecond line", "kind": "verbatim"})
    session = Session("s", "2023/03/05 (Sun) 11:24", (Turn("user", "x"),), {"gold_facts": facts})
    [whole] = fact_chunks(session, 500)
    assert whole.splitlines()[:3] == [
        "[Session: 2023/03/05 (Sun) 11:24]",
        FACTS_HEADING,
        "- User's thing 0: Value number 0",
    ]
    assert whole.endswith("- User's poem (exact text):\n  first line\n  second line")
    small = fact_chunks(session, 40)
    assert len(small) > 1 and all(
        c.startswith("[Session: 2023/03/05 (Sun) 11:24]\n" + FACTS_HEADING) for c in small
    )
    assert "\n".join(small).count("- User's") == 7  # every fact once, none split
