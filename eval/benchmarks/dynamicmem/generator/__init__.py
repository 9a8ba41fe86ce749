"""DynamicMem's user generator: synthetic users, deterministic by seed, in the release's layout.

:mod:`.users` assembles a user (states, checkpoints, task packs) and writes it; :mod:`.world` draws
the persona and its places; :mod:`.events` simulates the app-event stream; :mod:`.vocabulary`
holds the invented names the draws pick from.
"""

from memsuite.eval.benchmarks.dynamicmem.generator.users import (
    GENERATOR_VERSION,
    GeneratedUser,
    generate_user,
    generate_users,
    user_id_of,
    user_rng,
    write_users,
)

__all__ = [
    "GENERATOR_VERSION",
    "GeneratedUser",
    "generate_user",
    "generate_users",
    "user_id_of",
    "user_rng",
    "write_users",
]
