"""Filler events of the DynamicMem generator: weather, shows, newsletters, small talk -- app traffic
that evidences no state (noise a memory has to ignore)."""

from __future__ import annotations

import random
from datetime import date

from memsuite.eval.benchmarks.dynamicmem.generator import vocabulary as V
from memsuite.eval.benchmarks.dynamicmem.generator.stream import Event, any_time, ref
from memsuite.eval.benchmarks.dynamicmem.generator.world import World


def filler_event(w: World, day: date, rng: random.Random) -> Event:
    kind = rng.randrange(9)
    when = any_time(day, rng)
    if kind == 0:
        return Event(
            when,
            V.APPS["weather"],
            "GetForecast",
            {"location": "current", "days": 1},
            {
                "summary": rng.choice(("light rain", "sunny spells", "overcast", "windy")),
                "high_c": rng.randint(-2, 31),
            },
            "misc",
        )
    if kind == 1:
        show = rng.choice(V.SHOWS)
        return Event(
            when,
            V.APPS["video"],
            "PlayEpisode",
            {"show": show, "episode": f"S{rng.randint(1, 4)}E{rng.randint(1, 10)}"},
            {"status": "playing", "duration_minutes": rng.randint(22, 58)},
            "entertainment",
        )
    if kind == 2:
        return Event(
            when,
            V.APPS["messaging"],
            "SendMessage",
            {"to": rng.choice(w.p.friends), "text": rng.choice(V.SMALL_TALK)},
            {"status": "delivered"},
            "social",
        )
    if kind == 3:
        sender, subject = rng.choice(V.NEWSLETTERS)
        return Event(
            when,
            V.APPS["email"],
            "ListInbox",
            {"folder": "promotions", "limit": 1},
            {"messages": [{"from": sender, "subject": subject}]},
            "misc",
        )
    if kind == 4:
        question, answer = rng.choice(V.ASSISTANT_SMALL_TALK)
        return Event(
            when, V.APPS["assistant"], "SendMessage", {"message": question}, {"reply": answer}, "misc"
        )
    if kind == 5:
        return Event(
            when,
            V.APPS["banking"],
            "TransferMoney",
            {
                "to": rng.choice(w.p.friends),
                "amount": round(rng.uniform(8, 60), 2),
                "memo": rng.choice(("dinner split", "concert tickets", "gift pool")),
            },
            {"status": "sent"},
            "finance",
        )
    if kind == 6:
        return Event(
            when,
            V.APPS["ecommerce"],
            "SearchProducts",
            {"query": rng.choice(V.HOUSEHOLD_GOODS)},
            {"results": rng.randint(12, 240)},
            "misc",
        )
    if kind == 7:
        return Event(
            when,
            V.APPS["notes"],
            "CreateNote",
            {"title": rng.choice(("Gift ideas", "To do", "Weekend plan", "Packing list"))},
            {"note_id": ref(rng, "note")},
            "misc",
        )
    return Event(
        when,
        V.APPS["social"],
        "LikePost",
        {"author": rng.choice(w.p.friends), "post_id": ref(rng, "post")},
        {"status": "liked"},
        "social",
    )
