"""graphiti through the oracle endpoint: the reference time graphiti writes into its edge prompt is read
whole, so a value changed later on the same day invalidates the earlier edge (graphiti-core 0.31.1's
``resolve_edge_contradictions`` needs the earlier edge valid strictly before the new one)."""

from __future__ import annotations

from datetime import UTC, datetime
from importlib.util import find_spec

import pytest

if find_spec("graphiti_core") is None or find_spec("kuzu") is None:
    pytest.skip("needs the 'adapters' extra (graphiti-core, kuzu)", allow_module_level=True)

from memsuite.baselines.adapters._common import scope_id
from memsuite.baselines.adapters.graphiti import GraphitiMemory
from memsuite.eval.benchmarks.meme.generator import generate_episodes
from memsuite.eval.oracle.kinds import Unservable
from memsuite.eval.oracle.prompts.graphiti import _reference_time


@pytest.fixture(scope="module")
def meme_episodes():
    # Seed 0's episode changes the vet clinic twice on 2023/03/03, at 05:26 and at 13:17.
    return generate_episodes(1, filler="none", seed=0)


def test_the_reference_time_is_read_with_its_time_of_day():
    # As graphiti 0.31.1's extract_edges prompt writes it: str(datetime), then a comment.
    prompt = "<REFERENCE_TIME>\n2023-03-03 13:17:00+00:00  # ISO 8601 (UTC); used to ...\n</REFERENCE_TIME>"
    assert _reference_time(prompt) == "2023-03-03T13:17:00Z"
    iso = "2023-03-03T13:17:00Z"
    assert _reference_time(f"<REFERENCE_TIME>\n{iso}\n</REFERENCE_TIME>") == iso
    assert _reference_time("<REFERENCE_TIME>\nNone  # ISO\n</REFERENCE_TIME>") is None
    assert _reference_time("no such section") is None
    with pytest.raises(Unservable, match="REFERENCE_TIME"):
        _reference_time("<REFERENCE_TIME>\nlast tuesday\n</REFERENCE_TIME>")


def test_a_change_later_the_same_day_invalidates_the_earlier_edge(meme, oracle, embedder, tmp_path):
    episode = next(iter(meme.episodes.values()))
    sessions = [s.to_session() for s in episode.phase_sessions("before")][:3]
    assert [s.timestamp[:10] for s in sessions[1:]] == ["2023/03/03", "2023/03/03"]  # the same day
    memory = GraphitiMemory(
        embedder=embedder, llm=oracle.for_system(f"graphiti@{episode.episode_id}"), workdir=tmp_path
    )
    try:
        reports = [memory.ingest_session(session, namespace="u") for session in sessions]
        assert sum(r.failures for r in reports) == 0
        edges = {e.fact: e for e in memory._edges(scope_id("u")) if "vet clinic" in e.fact}
        earlier = next(e for fact, e in edges.items() if "Furrowby" in fact and "Pawsmere" not in fact)
        later = next(e for fact, e in edges.items() if "Pawsmere" in fact)
        # The edges carry the sessions' times of day, not midnight of the day.
        assert _utc(earlier.valid_at) == datetime(2023, 3, 3, 5, 26, tzinfo=UTC)
        assert _utc(later.valid_at) == datetime(2023, 3, 3, 13, 17, tzinfo=UTC)
        assert _utc(earlier.invalid_at) == _utc(later.valid_at) and earlier.expired_at is not None
        assert later.invalid_at is None
        assert reports[2].deleted >= 1  # the adapter reports the invalidation
        # graphiti's own search returns both values with their dates; the filter keeps the current one.
        memory.sim_min_score = -1.0
        hits = memory.search("vet clinic Furrowby Pawsmere", k=10, namespace="u")
        assert {earlier.uuid, later.uuid} <= {h.id for h in hits}
        memory.exclude_invalidated = True
        current = {h.id for h in memory.search("vet clinic Furrowby Pawsmere", k=10, namespace="u")}
        assert later.uuid in current and earlier.uuid not in current
    finally:
        memory.close()


def _utc(when: datetime | None) -> datetime | None:
    """A datetime read back from Kuzu, which stores UTC without its zone."""
    return None if when is None else when.replace(tzinfo=when.tzinfo or UTC)
