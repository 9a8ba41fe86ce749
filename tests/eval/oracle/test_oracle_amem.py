"""A-MEM through the oracle endpoint: a-mem 0.2.6's two prompts recognised by markers pinned to its
source and answered from MEME gold, a reworded prompt refused, and a whole episode ingested and
answered by the library's own code."""

from __future__ import annotations

import json
from importlib.util import find_spec

import pytest

if find_spec("agentic_memory") is None:
    pytest.skip("needs the 'amem' extra (a-mem)", allow_module_level=True)

from memsuite.baselines.adapters.amem import AMemMemory
from memsuite.eval.benchmarks.meme.generator import generate_episodes
from memsuite.eval.oracle.kinds import PromptKind, check_kinds
from memsuite.eval.oracle.prompts import amem as amem_kinds
from memsuite.eval.oracle.server import OracleServer
from memsuite.eval.run.config import config_from_dict
from memsuite.eval.run.runner import run
from memsuite.memory_systems.errors import ConfigError


@pytest.fixture(scope="module")
def meme_episodes():
    return generate_episodes(1, filler="none", seed=5)


def _episode(meme):
    return next(iter(meme.episodes.values()))


def test_kinds_are_pinned_to_the_installed_source():
    check_kinds(amem_kinds.KINDS, ["a-mem"])
    kind = amem_kinds.KINDS[0]
    moved = PromptKind(kind.name, kind.markers, kind.reply, kind.library, "0.2.5", kind.sources)
    with pytest.raises(ConfigError, match=r"a-mem 0\.2\.6 is installed.*0\.2\.5"):
        check_kinds([moved], ["a-mem"])
    gone = ("a prompt a-mem never wrote",)
    changed = PromptKind(kind.name, gone, kind.reply, kind.library, "0.2.6", kind.sources)
    with pytest.raises(ConfigError, match="the prompt changed"):
        check_kinds([changed], ["a-mem"])


def test_each_turn_is_analysed_and_linked_from_gold(meme, oracle, embedder):
    episode = _episode(meme)
    session = next(s for s in episode.phase_sessions("before") if s.gold_facts).to_session()
    memory = AMemMemory(embedder=embedder, llm=oracle.for_system(f"amem@{episode.episode_id}"))
    report = memory.ingest_session(session, namespace="x")
    assert report.failures == 0 and report.added == sum(1 for t in session.turns if t.content.strip())
    system = memory._systems["x"]
    notes = [system.read(r.id) for r in memory.records(namespace="x")]
    values = [f["value"] for f in session.metadata["gold_facts"] if f.get("value")]
    stating = [n for n in notes if any(v.lower() in n.content.lower() for v in values)]
    assert stating and all(n.context != "General" and n.keywords for n in stating)
    # notes about the same entity are linked by the evolution call
    assert any(n.links for n in notes) == (len(stating) > 1)
    memory.close()


def test_a_reworded_prompt_is_refused(meme, oracle):
    episode = _episode(meme)
    turn = next(s for s in episode.phase_sessions("before") if s.gold_facts).conversation[0].content
    reworded = (
        f"Produce a structured analysis of the following content by:\nContent for analysis:\nuser: {turn}"
    )
    result = oracle.for_system(f"amem@{episode.episode_id}").chat_json(
        [{"role": "user", "content": reworded}], phase="ingest"
    )
    assert result.failure is not None and result.failure.status_code == 422


def test_a_note_that_is_no_turn_of_the_unit_is_refused(meme):
    with OracleServer(gold=lambda unit: None) as server:
        prompt = amem_kinds.KINDS[0].markers[0] + "\nContent for analysis:\nx"
        body = {"messages": [{"role": "user", "content": prompt}]}
        status, payload = server.complete(body, "amem@nowhere")
    assert status == 422 and "no unit gold" in payload["error"]["message"]


def test_amem_ingests_and_answers_a_meme_episode(tmp_path):
    config = config_from_dict(
        {
            "benchmark": "meme",
            "name": "amem_oracle",
            "systems": ["amem"],
            "k": 5,
            "internal_llm": "oracle",
            "answer_llm": "oracle",
            "judges": ["rule"],
            "benchmark_options": {"episodes": 1, "filler": "none", "seed": 0},
        },
        source="test",
    )
    folder = run(config, out_dir=tmp_path / "run", show_progress=False)
    header, rows = folder.header, folder.rows()
    (unit,) = [json.loads(line) for line in (folder.path / "units.jsonl").open()]
    assert header["status"] == "complete", header.get("errors")
    served = header["oracle_llm"]["served"]
    assert not any(k.endswith(":refused") or k == "unrecognised" for k in served["kinds"]), served
    assert served["kinds"]["amem.analyze"] >= 10 and served["kinds"]["amem.evolve"] >= 10
    tally = served["accounts"][f"amem@{unit['unit_id']}"]
    assert unit["usage"]["llm_calls"] == tally["calls"] and unit["usage"]["llm_failures"] == 0
    assert rows and all(row.metadata["ingest_failures"] == 0 for row in rows)
    assert all(row.answer == row.gold for row in rows)
    evidence = sum(row.verdicts["evidence"]["correct"] for row in rows) / len(rows)
    assert evidence >= 0.5, evidence
