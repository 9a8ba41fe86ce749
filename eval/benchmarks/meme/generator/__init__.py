"""MEME's episode generator: deterministic by seed, written in the released schema.

:mod:`.episodes` lays out an episode (roles, sessions, questions, gold, time, filler budget);
:mod:`.domains` holds the two domains' entities and value makers; :mod:`.dialogue` writes the
evidence sessions; :mod:`.filler` composes filler chat. Their template tables are package data
(``data/*.json``, :mod:`.tables`), read when the modules are imported.
"""

from memsuite.eval.benchmarks.meme.generator.episodes import (
    EVIDENCE_TYPES,
    FILLER_BUDGETS,
    GENERATOR_VERSION,
    format_timestamp,
    generate_episode,
    generate_episodes,
)

__all__ = [
    "EVIDENCE_TYPES",
    "FILLER_BUDGETS",
    "GENERATOR_VERSION",
    "format_timestamp",
    "generate_episode",
    "generate_episodes",
]
