"""Counters of LLM use per (memory system, phase), shared by a client and its views."""

from __future__ import annotations

import copy
import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Tally:
    requests: int = 0
    cache_hits: int = 0
    failures: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_prompt_tokens: int = 0
    cached_completion_tokens: int = 0
    wall_s: float = 0.0
    failure_kinds: Counter = field(default_factory=Counter)


class Ledger:
    """Counters per (memory system, phase), shared by a client and its per-system views."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tallies: dict[tuple[str, str], Tally] = {}

    def add(self, system_name: str, phase: str, **counts: Any) -> None:
        with self._lock:
            tally = self._tallies.setdefault((system_name, phase), Tally())
            for name, value in counts.items():
                if name == "failure_kind":
                    tally.failure_kinds[value] += 1
                else:
                    setattr(tally, name, getattr(tally, name) + value)

    def select(self, system_name: str | None, phase: str | None) -> list[tuple[str, Tally]]:
        with self._lock:
            return [
                (p, copy.deepcopy(t))
                for (s, p), t in self._tallies.items()
                if (system_name is None or s == system_name) and (phase is None or p == phase)
            ]
