"""Cognee through the oracle endpoint: cognee 1.6.5's two cognify prompts recognised by markers pinned
to its source (in cognee's own venv) and answered from MEME gold, and a reworded prompt refused. A whole
episode ingested by cognee's own code and answered: test_oracle_runs_libraries.py."""

from __future__ import annotations

import os

import pytest

# importing the adapter registers "cognee" (an installed checkout's entry points may predate it)
from memsuite.baselines.adapters.cognee import cognee_python
from memsuite.eval.benchmarks.meme.generator import generate_episodes
from memsuite.eval.oracle.kinds import PromptKind, check_kinds
from memsuite.eval.oracle.prompts import cognee as cognee_kinds
from memsuite.memory_systems.errors import ConfigError, MissingDependencyError

try:
    cognee_python()
except MissingDependencyError as missing:
    if os.environ.get("CI"):
        raise
    pytest.skip(f"needs cognee's own venv: run `make cognee` ({missing})", allow_module_level=True)


@pytest.fixture(scope="module")
def meme_episodes():
    return generate_episodes(1, filler="none", seed=5)


def test_kinds_are_pinned_to_the_source_in_cognees_venv():
    check_kinds(cognee_kinds.KINDS, ["cognee"])
    kind = cognee_kinds.KINDS[0]
    moved = PromptKind(
        kind.name, kind.markers, kind.reply, kind.library, "1.6.4", kind.sources, roles=kind.roles
    )
    with pytest.raises(ConfigError, match=r"cognee 1\.6\.5 is installed.*1\.6\.4"):
        check_kinds([moved], ["cognee"])
    gone = ("a prompt cognee never wrote",)
    changed = PromptKind(kind.name, gone, kind.reply, kind.library, "1.6.5", kind.sources, roles=kind.roles)
    with pytest.raises(ConfigError, match="the prompt changed"):
        check_kinds([changed], ["cognee"])


def test_a_reworded_prompt_is_refused(meme, oracle):
    episode = next(iter(meme.episodes.values()))
    turn = next(s for s in episode.phase_sessions("before") if s.gold_facts).conversation[0].content
    messages = [
        {"role": "system", "content": "Summarise the chunk for retrieval. Output two sections only."},
        {"role": "user", "content": f"user: {turn}"},
    ]
    result = oracle.for_system(f"cognee@{episode.episode_id}").chat_json(messages, phase="ingest")
    assert result.failure is not None and result.failure.status_code == 422
