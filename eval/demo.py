"""The demo: a small generated conversation, ingested by every registered system, queried once each.

Proves the install and the contract end to end in seconds; the benchmarks are the real jobs.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from memory_systems.embedder import Embedder
from memory_systems.records import Session, Turn
from memory_systems.registry import get_system, system_names

# Invented names only, so no model can answer from pre-training.
_PEOPLE = ["Ilvana", "Torbek", "Quessa", "Marnel", "Odrin", "Saphie"]
_CITIES = ["Quellport", "Varnhollow", "Destrel", "Obrenmark", "Kaskadia Bay"]
_TOOLS = ["Zunderbuild", "Brakefast", "Plinthwork", "Corvex CI"]
_DISHES = ["smoked trellfish", "ambergrain stew", "pickled vossroot"]


def demo_sessions(seed: int = 7) -> tuple[list[Session], list[str]]:
    """A short deterministic conversation with facts, an update and small talk, plus questions.

    Args:
        seed: Seed of the value choices.

    Returns:
        The sessions in order and the questions to ask.
    """
    rng = random.Random(seed)
    sister, friend = rng.sample(_PEOPLE, 2)
    city, new_city = rng.sample(_CITIES, 2)
    tool, new_tool = rng.sample(_TOOLS, 2)
    dish = rng.choice(_DISHES)
    dialogues = [
        [
            ("user", f"My sister {sister} just moved to {city} for her new job."),
            ("assistant", f"That's exciting! How is {sister} settling into {city}?"),
            ("user", "She likes it, though the winters there are long."),
        ],
        [
            ("user", f"Our team builds everything with {tool} now; the old scripts are gone."),
            ("assistant", f"Noted: your team's build tool is {tool}."),
        ],
        [
            ("user", "Can you suggest a short stretching routine for the mornings?"),
            (
                "assistant",
                "Try five minutes: neck rolls, shoulder circles, a forward fold and a calf stretch.",
            ),
        ],
        [
            ("user", f"For {friend}'s birthday dinner I'm cooking {dish}."),
            ("assistant", f"{dish.capitalize()} sounds great for a birthday. Want a side dish idea?"),
        ],
        [
            ("user", f"Update: we migrated the build from {tool} to {new_tool} this week."),
            ("assistant", f"Got it, the build tool is now {new_tool} instead of {tool}."),
        ],
        [
            ("user", f"{sister} moved again, she now lives in {new_city}."),
            ("assistant", f"Thanks, I'll remember that {sister} lives in {new_city} now."),
        ],
    ]
    start = datetime(2023, 3, 1, 9, 0)  # noqa: DTZ001 - benchmark timestamps are naive local times
    sessions = []
    for i, turns in enumerate(dialogues):
        when = start + timedelta(hours=7 * i + rng.randint(2, 30))
        stamp = when.strftime("%Y/%m/%d (%a) %H:%M")
        sessions.append(Session(f"demo-{i}", stamp, tuple(Turn(r, c) for r, c in turns)))
    questions = [
        f"Where does my sister {sister} live?",
        "Which build tool does our team use?",
        f"What am I cooking for {friend}'s birthday?",
    ]
    return sessions, questions


def run_demo(*, systems: list[str] | None = None, k: int = 3, cache_dir=None, seed: int = 7) -> None:
    """Ingest the demo conversation into each system and print its ranked hits per question.

    Args:
        systems: Registry names; default every registered system.
        k: Hits per question.
        cache_dir: Root of the on-disk caches, or None.
        seed: Seed of the generated conversation.
    """
    sessions, questions = demo_sessions(seed)
    embedder = Embedder(cache_dir=cache_dir / "embeddings" if cache_dir else None)
    print(f"memsuite demo: {len(sessions)} sessions, {len(questions)} questions, k={k}\n")
    for name in systems or system_names():
        system = get_system(name, resources={"embedder": embedder})
        for session in sessions:
            system.ingest_session(session, namespace="demo")
        system.finalize(namespace="demo")
        print(f"=== {name}")
        for question in questions:
            print(f"Q: {question}")
            for rank, hit in enumerate(system.search(question, k=k, namespace="demo"), 1):
                text = " | ".join(hit.text.splitlines()[1:]) or hit.text
                print(f"  {rank}. [{hit.score:.3f}] {text[:110]}")
        print()
