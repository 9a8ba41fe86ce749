"""The oracle endpoint bound to one module's generated MEME episodes (``meme_episodes``, defined by
each test module)."""

from __future__ import annotations

import pytest

from memsuite.eval.oracle.run import bind_gold, open_oracle
from memsuite.eval.registry import definition


class _Built:
    """The part of a built MEME benchmark that its gold reader uses."""

    def __init__(self, episodes):
        self.episodes = {e.episode_id: e for e in episodes}

    def units(self):
        return list(self.episodes)


@pytest.fixture(scope="module")
def meme(meme_episodes):
    return _Built(meme_episodes)


@pytest.fixture()
def oracle(meme):
    with open_oracle("oracle") as client:
        bind_gold({"internal": client}, definition("meme"), meme)
        yield client
