"""A MEME run config over generated episodes, for tests that run ``memsuite run`` in a subprocess."""

from __future__ import annotations

import json
from pathlib import Path


def bm25_meme_config(folder: Path, name: str, *, episodes: int, seed: int) -> Path:
    """``folder/<name>.yaml``: bm25 at k = 5 with the rule judge over ``episodes`` generated episodes
    (no filler) saved beside it."""
    from memsuite.eval.benchmarks.meme.generator import generate_episodes
    from memsuite.eval.benchmarks.meme.loader import save_episodes

    data = folder / "episodes.json"
    save_episodes(generate_episodes(episodes, seed=seed, filler="none"), data)
    config = folder / f"{name}.yaml"
    config.write_text(
        f"benchmark: meme\nname: {name}\nsystems: [bm25]\nk: 5\n"
        f"benchmark_options: {{data: {json.dumps(str(data))}}}\n"
    )
    return config
