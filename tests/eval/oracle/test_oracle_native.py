"""The native LLM paradigms through the oracle endpoint over real HTTP: each builds, from its own prompts,
the store its ``oracle: memory`` mode builds without an LLM; a run ingests and answers with no refused
call; a reworded prompt is refused at start-up and unrecognised at run time."""

from __future__ import annotations

import json

import pytest

from memsuite.baselines.karpathy_wiki import KarpathyWikiMemory
from memsuite.baselines.llm_extraction import LLMExtractionMemory
from memsuite.baselines.md_flat import MdFlatMemory
from memsuite.baselines.temporal_kg import TemporalKGMemory
from memsuite.eval.benchmarks.meme.generator import generate_episodes
from memsuite.eval.oracle.chunks import chunk_session
from memsuite.eval.oracle.gold import SessionGold, UnitGold
from memsuite.eval.oracle.kinds import Unservable, check_kinds
from memsuite.eval.oracle.prompts import all_kinds
from memsuite.eval.run.config import config_from_dict
from memsuite.eval.run.runner import run
from memsuite.memory_systems.errors import ConfigError


@pytest.fixture(scope="module")
def meme_episodes():
    return generate_episodes(1, filler="none", seed=0)


def _episode(meme):
    return next(iter(meme.episodes.values()))


def _ingest(system, episode):
    for phase in ("before", "after"):
        for source in episode.phase_sessions(phase):
            report = system.ingest_session(source.to_session(), namespace=episode.episode_id)
            assert report.failures == 0, (system.name, source.session_id)


@pytest.mark.parametrize(
    ("cls", "args"),
    [
        (LLMExtractionMemory, {}),
        (TemporalKGMemory, {}),
        (MdFlatMemory, {}),
        (MdFlatMemory, {"protocol": "tools"}),
        # One page at most shown with a session (each fits alone): the others it touches are read first.
        (KarpathyWikiMemory, {"pages_tokens": 90}),
        (KarpathyWikiMemory, {"protocol": "tools"}),
    ],
)
def test_through_http_the_store_is_the_memory_modes(meme, oracle, embedder, cls, args):
    episode = _episode(meme)
    extra = {"embedder": embedder} if cls in (LLMExtractionMemory, TemporalKGMemory) else {}
    memory_mode = cls(oracle="memory", **extra)
    served = cls(llm=oracle.for_system(f"{cls.name}@{episode.episode_id}"), **args, **extra)
    _ingest(memory_mode, episode)
    _ingest(served, episode)
    expected = memory_mode.snapshot(namespace=episode.episode_id)
    assert expected and served.snapshot(namespace=episode.episode_id) == expected
    usage = served.usage()
    assert usage.llm_calls >= 5 and usage.llm_failures == 0
    if cls is KarpathyWikiMemory and args.get("pages_tokens") == 90:
        assert usage.llm_calls > 5  # read rounds happened


def test_wiki_query_names_the_pages_of_the_question_entities(meme, oracle):
    episode = _episode(meme)
    wiki = KarpathyWikiMemory(llm=oracle.for_system(f"karpathy_wiki@{episode.episode_id}"))
    _ingest(wiki, episode)
    calls = wiki.usage().llm_calls
    result = wiki.retrieve("What is my mechanic now?", k=2, namespace=episode.episode_id)
    assert wiki.usage().llm_calls == calls + 1 and wiki.usage().llm_failures == 0
    # The question's entity's page, then the page its [[link]] names (only a chosen page's links are
    # followed: a search fallback would not bring the car's page second).
    assert [hit.text.split("\n", 1)[0] for hit in result.hits] == ["# Mechanic", "# Car"]


def test_a_chunk_of_only_the_assistant_reply_is_its_header_session_without_facts():
    # A chunker can leave a session's acknowledgement alone in its last chunk: no gold turn is there,
    # the header still names the session, and the chunk states nothing.
    sessions = tuple(
        SessionGold(f"s{i}", f"2024-01-0{i} 18:09:28", (f"i ran {i} km today",), ()) for i in (1, 2)
    )
    unit = UnitGold("u", sessions, ())
    first = "[Session: 2024-01-02 18:09:28]\nUser: i ran 2 km today"
    assert chunk_session(unit, first) == (sessions[1], True)
    assert chunk_session(unit, "[Session: 2024-01-02 18:09:28]\nAssistant: [ingested]") == (
        sessions[1],
        False,
    )
    with pytest.raises(Unservable):
        chunk_session(unit, "[Session: 2024-02-01 09:00:00]\nAssistant: [ingested]")


def test_each_paradigm_runs_a_meme_episode_through_the_oracle(tmp_path):
    systems = ["llm_extraction", "temporal_kg", "md_flat", "karpathy_wiki"]
    config = config_from_dict(
        {
            "benchmark": "meme",
            "name": "native_oracle",
            "systems": systems,
            "k": 5,
            "answer_llm": "oracle",
            "judges": ["rule"],
            "benchmark_options": {"episodes": 1, "filler": "none", "seed": 0},
        },
        source="test",
    )
    folder = run(config, out_dir=tmp_path / "run", show_progress=False)
    header = folder.header
    assert header["status"] == "complete", header.get("errors")
    kinds = header["oracle_llm"]["served"]["kinds"]
    assert not any(kind.endswith(":refused") or kind == "unrecognised" for kind in kinds), kinds
    for kind in ("llm_extraction.extract", "llm_extraction.decide", "temporal_kg.extract", "md_flat.edit"):
        assert kinds[kind] == 5, kind  # one call per session (each fits one chunk, one round)
    assert kinds["karpathy_wiki.ingest"] >= 5
    rows = folder.rows()
    assert kinds["karpathy_wiki.pages"] == sum(row.system == "karpathy_wiki" for row in rows)
    units = [json.loads(line) for line in (folder.path / "units.jsonl").open()]
    accounts = header["oracle_llm"]["served"]["accounts"]
    for unit in units:
        tally = accounts[f"{unit['system']}@{unit['unit_id']}"]
        assert unit["usage"]["llm_calls"] == tally["calls"]
        assert unit["usage"]["prompt_tokens"] == tally["prompt_tokens"]
        assert unit["usage"]["llm_failures"] == 0
    assert all(row.metadata["ingest_failures"] == 0 and row.answer == row.gold for row in rows)
    evidence = {s: sum(r.verdicts["evidence"]["correct"] for r in rows if r.system == s) for s in systems}
    # temporal_kg and the wiki keep every value a question needs; llm_extraction and md_flat replace an
    # updated value, so the history question (Tr) misses -- as their oracle: memory rows do.
    assert evidence["temporal_kg"] == evidence["karpathy_wiki"] == 10
    assert evidence["llm_extraction"] >= 9 and evidence["md_flat"] >= 8


def test_a_reworded_native_prompt_is_refused_at_start_and_unrecognised_at_run(meme, oracle, monkeypatch):
    from memsuite.baselines import md_flat

    episode = _episode(meme)
    reworded = md_flat.MD_FLAT_PROMPT.replace(
        "You maintain a user's long-term memory", "You keep a user's notes"
    )
    monkeypatch.setattr(md_flat, "MD_FLAT_PROMPT", reworded)
    with pytest.raises(
        ConfigError, match=r"md_flat\.edit is not in memsuite\.baselines\.md_flat:MD_FLAT_PROMPT"
    ):
        check_kinds(all_kinds(), [])
    system = MdFlatMemory(llm=oracle.for_system(f"md_flat@{episode.episode_id}"))
    source = next(s for s in episode.phase_sessions("before") if s.gold_facts)
    report = system.ingest_session(source.to_session(), namespace=episode.episode_id)
    assert report.failures == 1 and system.usage().llm_failures == 1
    assert system.records(namespace=episode.episode_id) == []
