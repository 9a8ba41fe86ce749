"""The DynamicMem generator's event record and the time and id helpers every event template uses."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from memsuite.eval.benchmarks.dynamicmem.generator.world import hhmm


@dataclass
class Event:
    """An event before ids are assigned."""

    when: str
    app: str
    api: str
    request: dict[str, Any]
    response: dict[str, Any]
    domain: str
    evidence: list[tuple[str, list[str]]] = field(default_factory=list)
    chain: str = ""


def at(day: date, minutes: int, rng: random.Random | None = None) -> str:
    seconds = rng.randint(0, 59) if rng is not None else 0
    minutes = max(0, min(minutes, 23 * 60 + 59))
    return f"{day.isoformat()} {hhmm(minutes)}:{seconds:02d}"


def any_time(day: date, rng: random.Random, lo: int = 7, hi: int = 23) -> str:
    return at(day, rng.randint(lo * 60, hi * 60 - 1), rng)


def ref(rng: random.Random, prefix: str) -> str:
    return f"{prefix}-{rng.randint(100000, 999999)}"


def name_slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", name.lower())
