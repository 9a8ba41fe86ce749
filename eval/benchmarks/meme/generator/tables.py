"""The generator's template tables: JSON files in ``data/`` shipped as package data, read on demand.

Tables are data, not code: the domains' entities, value pools and dependency edges, and the filler
chat's slot pools, topics and phrases. Lists come back as tuples so seeded draws see exactly the
sequences the generator was written against.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any


def _frozen(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, dict):
        return {k: _frozen(v) for k, v in value.items()}
    return value


def load_table(name: str) -> Any:
    """The table ``data/<name>.json``, lists as tuples.

    Raises:
        FileNotFoundError: No such table in the installed package (package data missing).
    """
    text = resources.files(__package__).joinpath("data", f"{name}.json").read_text(encoding="utf-8")
    return _frozen(json.loads(text))
