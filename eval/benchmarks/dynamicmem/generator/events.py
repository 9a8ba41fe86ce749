"""Event templates of the DynamicMem generator: how each state shows up in the app stream.

Each template turns one state's value on one day into an app's API call (``request``/``response``)
that implies the value without stating it, and names the state and fields it evidences. Filler
events (:mod:`.filler_events`) evidence nothing; life events arrive as short chains. Internal to
:mod:`memsuite.eval.benchmarks.dynamicmem.generator`.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from datetime import date, timedelta
from functools import cache
from importlib import resources
from typing import Any

from memsuite.eval.benchmarks.dynamicmem.generator import vocabulary as V
from memsuite.eval.benchmarks.dynamicmem.generator.filler_events import filler_event
from memsuite.eval.benchmarks.dynamicmem.generator.stream import Event, any_time, at, name_slug, ref
from memsuite.eval.benchmarks.dynamicmem.generator.world import World, hhmm, minutes_of
from memsuite.eval.benchmarks.dynamicmem.schema import category_of, split_state_key

_HABIT_FIELDS = ["current_value.schedule", "current_value.timing.start_time", "current_value.location"]


def _employment_event(w: World, day: date, rng: random.Random) -> Event:
    title, employer, team = w.job(day)
    key, slug = "user_attributes_state:employment", name_slug(employer)
    kind = rng.randrange(3)
    if kind == 0:
        return Event(
            any_time(day, rng, 8, 11),
            V.APPS["email"],
            "ListInbox",
            {"folder": "inbox", "limit": 1},
            {
                "messages": [
                    {
                        "from": f"payroll@{slug}.example",
                        "subject": f"Your payslip for {day.strftime('%B %Y')}",
                        "snippet": f"Employer: {employer}. Position: {title}. Net pay has been transferred.",
                    }
                ]
            },
            "work_education",
            [(key, ["current_value.job_title", "current_value.employer"])],
        )
    if kind == 1:
        return Event(
            any_time(day, rng, 8, 10),
            V.APPS["calendar"],
            "CreateEvent",
            {
                "title": f"{team} weekly sync",
                "organizer": f"{w.p.manager.lower()}@{slug}.example",
                "location": f"{employer} office, room {rng.randint(101, 420)}",
                "start": f"{day.isoformat()} 10:00",
                "duration_minutes": 30,
            },
            {"event_id": ref(rng, "evt"), "status": "confirmed"},
            "work_education",
            [(key, ["current_value.employer"])],
        )
    task = rng.choice(("quarterly review slides", "status update for my manager", "handover notes"))
    return Event(
        any_time(day, rng, 9, 18),
        V.APPS["assistant"],
        "SendMessage",
        {"message": f"Help me draft the {task} for the {team} team at {employer}. Keep it to one page."},
        {
            "reply": f"Here is a one-page draft written for a {title.lower()}'s audience: summary, progress, "
            "next steps."
        },
        "work_education",
        [(key, ["current_value.job_title", "current_value.employer"])],
    )


def _home_event(w: World, day: date, rng: random.Random) -> Event:
    home, key = w.home(day), "user_attributes_state:home"
    kind = rng.randrange(3)
    address = {"street": home.address, "neighborhood": home.neighborhood, "city": home.city}
    if kind == 0:
        item = rng.choice(V.HOUSEHOLD_GOODS)
        return Event(
            any_time(day, rng),
            V.APPS["ecommerce"],
            "PlaceOrder",
            {"items": [{"name": item, "quantity": rng.randint(1, 3)}], "shipping_address": address},
            {"order_id": ref(rng, "ord"), "estimated_delivery": (day + timedelta(days=2)).isoformat()},
            "home_living",
            [(key, ["current_value.city", "current_value.neighborhood"])],
        )
    if kind == 1:
        return Event(
            any_time(day, rng, 8, 20),
            V.APPS["banking"],
            "PayBill",
            {
                "payee": f"{home.city} Water & Power",
                "service_address": address,
                "amount": round(rng.uniform(35, 95), 2),
            },
            {"status": "paid", "confirmation": ref(rng, "pay")},
            "finance",
            [(key, ["current_value.city", "current_value.neighborhood"])],
        )
    return Event(
        any_time(day, rng, 10, 23),
        V.APPS["rides"],
        "RequestRide",
        {
            "pickup": rng.choice(V.ERRAND_PLACES),
            "dropoff": f"Home, {home.address}, {home.neighborhood}, {home.city}",
        },
        {
            "ride_id": ref(rng, "ride"),
            "fare": round(rng.uniform(8, 24), 2),
            "eta_minutes": rng.randint(3, 12),
        },
        "home_living",
        [(key, ["current_value.city", "current_value.neighborhood"])],
    )


def _commute_event(w: World, day: date, rng: random.Random) -> Event | None:
    if day.weekday() >= 5:
        return None
    home, employer = w.home(day), w.job(day)[1]
    return Event(
        at(day, rng.randint(7 * 60 + 30, 8 * 60 + 40), rng),
        V.APPS["maps"],
        "GetDirections",
        {"origin": f"Home, {home.address}", "destination": f"{employer} office", "mode": home.commute_mode},
        {
            "duration_minutes": rng.randint(12, 48),
            "route_summary": f"via {rng.choice(('the ring road', 'the riverside', 'downtown'))}",
        },
        "work_education",
        [("user_attributes_state:commute_mode", ["current_value"])],
    )


def _gym_event(w: World, day: date, rng: random.Random) -> Event:
    club, plan = w.gym(day)
    key = "user_attributes_state:gym_membership"
    if rng.random() < 0.5:
        return Event(
            any_time(day, rng, 6, 21),
            V.APPS["fitness"],
            "CheckIn",
            {"facility": club, "membership_tier": plan},
            {"status": "checked_in", "visits_this_month": rng.randint(1, 14)},
            "health_fitness",
            [(key, ["current_value.club", "current_value.plan"])],
        )
    return Event(
        any_time(day, rng, 0, 6),
        V.APPS["banking"],
        "ListTransactions",
        {"account": "checking", "limit": 1},
        {
            "transactions": [
                {
                    "merchant": f"{club.upper()} {plan.upper()} MEMBERSHIP",
                    "amount": -round(rng.uniform(25, 79), 2),
                }
            ]
        },
        "finance",
        [(key, ["current_value.club", "current_value.plan"])],
    )


def _pet_event(w: World, day: date, rng: random.Random) -> Event:
    species, breed, name = w.p.pet
    key = "user_attributes_state:pet"
    if rng.random() < 0.5:
        return Event(
            any_time(day, rng, 9, 18),
            V.APPS["pets"],
            "BookAppointment",
            {
                "pet": {"name": name, "species": species, "breed": breed},
                "service": rng.choice(("vaccination", "check-up", "grooming")),
            },
            {"appointment_id": ref(rng, "vet"), "status": "booked"},
            "pets",
            [(key, ["current_value.species", "current_value.breed", "current_value.name"])],
        )
    return Event(
        any_time(day, rng),
        V.APPS["social"],
        "CreatePost",
        {"caption": f"{name} vs. the garden hose, round three", "tags": [breed, f"{species}sofcirclet"]},
        {"post_id": ref(rng, "post"), "likes": rng.randint(3, 60)},
        "pets",
        [(key, ["current_value.species", "current_value.breed", "current_value.name"])],
    )


def occurs(schedule: dict[str, Any], day: date) -> bool:
    kind = schedule["frequency_type"]
    if kind == "daily":
        return True
    if kind == "weekly":
        return day.weekday() in schedule["days_of_week"]
    if kind == "monthly_nth_weekday":
        return (
            day.weekday() == schedule["day_of_week"] and (day.day - 1) // 7 + 1 == schedule["week_of_month"]
        )
    raise ValueError(f"unknown frequency_type {kind!r}")


def _habit_event(w: World, key: str, day: date, rng: random.Random) -> Event:
    value = w.value(key, day)
    start, place = minutes_of(value["timing"]["start_time"]), value["location"]
    name = split_state_key(key)[1]
    evidence = [(key, list(_HABIT_FIELDS))]
    if name == "running":
        indoor = "treadmill" in place
        return Event(
            at(day, start),
            V.APPS["fitness"],
            "LogWorkout",
            {
                "activity_type": "treadmill running" if indoor else "running",
                "start_time": f"{day.isoformat()} {hhmm(start)}",
                "location": place,
                "duration_minutes": rng.randint(28, 55),
            },
            {
                "distance_km": round(rng.uniform(4.5, 10.5), 1),
                "avg_pace_min_per_km": round(rng.uniform(4.8, 6.4), 2),
            },
            "health_fitness",
            evidence,
        )
    if name == "weekly_grocery_shop":
        return Event(
            at(day, start - 10),
            V.APPS["maps"],
            "StartNavigation",
            {"destination": place, "place_category": "grocery store", "arrive_by": hhmm(start)},
            {"eta_minutes": 10, "status": "navigating"},
            "home_living",
            evidence,
        )
    if name == "evening_reading":
        title = rng.choice(V.BOOK_GENRES[w.p.reading_pair[0]][0])
        return Event(
            at(day, start),
            V.APPS["books"],
            "StartReadingSession",
            {"book_title": title, "session_start": hhmm(start), "place_tag": place},
            {"session_id": ref(rng, "read"), "progress_percent": rng.randint(3, 97)},
            "entertainment",
            evidence,
        )
    if name == "language_class":
        return Event(
            at(day, start - 30),
            V.APPS["calendar"],
            "EventReminder",
            {
                "title": f"{w.p.language} class",
                "location": place,
                "start": f"{day.isoformat()} {hhmm(start)}",
            },
            {"reminder": "30 minutes before", "status": "delivered"},
            "work_education",
            evidence,
        )
    if name == "book_club":
        return Event(
            at(day, start - 120, rng),
            V.APPS["messaging"],
            "SendGroupMessage",
            {"group": "Book club", "message": f"See you all at {place} at {hhmm(start)} tonight!"},
            {"delivered_to": len(w.p.friends), "status": "sent"},
            "social",
            evidence,
        )
    if name == "dog_walk":
        return Event(
            at(day, start),
            V.APPS["pets"],
            "LogWalk",
            {"pet": w.p.pet[2], "start_time": hhmm(start), "route": place},
            {"duration_minutes": rng.randint(20, 45), "distance_km": round(rng.uniform(1.5, 4.0), 1)},
            "pets",
            evidence,
        )
    raise ValueError(f"no events for habit {key!r}")


def _preference_event(w: World, key: str, day: date, rng: random.Random) -> Event:
    name = split_state_key(key)[1]
    statement = w.value(key, day)["statement"]
    preferred, avoided = w.pairs[statement]
    evidence = [(key, ["current_value.statement"])]
    like = rng.random() < 0.75  # most signals show what is preferred, some what is avoided
    if name == "cuisine":
        restaurants, dishes = V.CUISINES[preferred if like else avoided]
        if like:
            return Event(
                any_time(day, rng, 11, 22),
                V.APPS["food_delivery"],
                "PlaceOrder",
                {
                    "restaurant": rng.choice(restaurants),
                    "items": [{"name": rng.choice(dishes), "quantity": 1}],
                },
                {"order_id": ref(rng, "fd"), "status": "delivered"},
                "food_dining",
                evidence,
            )
        return Event(
            any_time(day, rng, 11, 22),
            V.APPS["food_delivery"],
            "DismissRecommendation",
            {"restaurant": rng.choice(restaurants), "reason": "not interested"},
            {"status": "hidden"},
            "food_dining",
            evidence,
        )
    if name == "music":
        artists, tracks = V.GENRES[preferred if like else avoided]
        return Event(
            any_time(day, rng, 9, 18),
            V.APPS["music"],
            "PlayPlaylist" if like else "SkipTrack",
            {
                "playlist": f"{preferred} for focus" if like else "Daily mix",
                "track": rng.choice(tracks),
                "artist": rng.choice(artists),
            },
            {
                "status": "playing" if like else "skipped",
                "played_seconds": rng.randint(600, 3600) if like else rng.randint(2, 9),
            },
            "entertainment",
            evidence,
        )
    if name == "coffee":
        drink = preferred if like else avoided
        return Event(
            any_time(day, rng, 7, 16),
            V.APPS["food_delivery"],
            "PlaceOrder" if like else "RemoveFromCart",
            {
                "restaurant": w.home(day).cafe,
                "items": [{"name": drink, "size": rng.choice(("small", "regular"))}],
            },
            {"order_id": ref(rng, "cafe"), "status": "delivered" if like else "removed"},
            "food_dining",
            evidence,
        )
    if name == "reading_genre":
        titles, authors = V.BOOK_GENRES[preferred if like else avoided]
        return Event(
            any_time(day, rng, 12, 23),
            V.APPS["books"],
            "PurchaseBook" if like else "RateBook",
            {
                "title": rng.choice(titles),
                "author": rng.choice(authors),
                "genre": preferred if like else avoided,
            }
            | ({} if like else {"rating": rng.choice((1, 2))}),
            {"status": "purchased" if like else "rated"},
            "entertainment",
            evidence,
        )
    raise ValueError(f"no events for preference {key!r}")


def _life_event_fields(w: World, kind: str, day: date) -> dict[str, str]:
    """The values a life event's templates are filled with (``data/life_events.json``)."""
    if kind == "job_change":
        title, employer, team = w.p.jobs[1]
        return {"title": title, "employer": employer, "team": team, "slug": name_slug(employer)}
    if kind == "relocation":
        home = w.p.homes[1]
        return {"address": home.address, "neighborhood": home.neighborhood, "city": home.city}
    if kind == "pet_adoption":
        species, breed, name = w.p.pet
        return {"species": species, "breed": breed, "name": name, "city": w.home(day).city}
    if kind == "gym_switch":
        club, plan = w.p.gyms[1]
        return {"club": club, "plan": plan, "club_slug": name_slug(club)}
    return {}


def _fill(template: Any, fields: dict[str, str], rng: random.Random) -> Any:
    """A template with its ``{field}`` strings filled and its random values drawn, in document order."""
    if isinstance(template, dict):
        if "$ref" in template:
            return ref(rng, template["$ref"])
        if "$randint" in template:
            return rng.randint(*template["$randint"])
        return {key: _fill(value, fields, rng) for key, value in template.items()}
    if isinstance(template, list):
        return [_fill(item, fields, rng) for item in template]
    return template.format_map(fields) if isinstance(template, str) else template


def _life_event_chain(w: World, kind: str, day: date, rng: random.Random) -> list[Event]:
    """The few events through which a life event shows up (on its day and the days around it)."""
    templates = life_event_templates()
    if kind not in templates:
        raise ValueError(f"unknown life event {kind!r}")
    fields = _life_event_fields(w, kind, day)
    events = []
    for template in templates[kind]:
        when = day + timedelta(days=template["day"])
        event_fields = {**fields, "event_date": when.isoformat()}
        events.append(
            Event(
                any_time(when, rng, *template.get("hours", ())),
                V.APPS[template["app"]],
                template["api"],
                _fill(template["request"], event_fields, rng),
                _fill(template["response"], event_fields, rng),
                template["domain"],
                [(key, list(paths)) for key, paths in template.get("evidence", ())],
                chain=f"{kind}_{day.isoformat()}",
            )
        )
    return events


_TEMPLATE_KEYS = {"day", "app", "api", "request", "response", "domain"}


@cache
def life_event_templates() -> dict[str, list[dict[str, Any]]]:
    """The life-event templates of ``data/life_events.json``, checked on load.

    Raises:
        ValueError: A template lacks a required key or names an unknown app (file and entry named).
    """
    path = resources.files(__package__).joinpath("data", "life_events.json")
    table = {k: v for k, v in json.loads(path.read_text(encoding="utf-8")).items() if not k.startswith("_")}
    for kind, templates in table.items():
        for index, template in enumerate(templates):
            missing = _TEMPLATE_KEYS - set(template)
            if missing or template["app"] not in V.APPS:
                problem = f"lacks {sorted(missing)}" if missing else f"names unknown app {template['app']!r}"
                raise ValueError(f"{path}: {kind}[{index}] {problem}")
    return table


def simulate(w: World, rng: random.Random, activity: float) -> list[Event]:
    """Every event of the trajectory, in no particular order."""
    keys = w.state_keys()
    habit_p = {"daily": min(1.0, 0.45 * activity), "other": min(1.0, 0.85 * activity)}
    attribute_p, preference_p, filler_rate = 0.1 * activity, 0.09 * activity, 1.3 * activity
    attribute_events: dict[str, Callable[[World, date, random.Random], Event | None]] = {
        "employment": _employment_event,
        "home": _home_event,
        "commute_mode": _commute_event,
        "gym_membership": _gym_event,
        "pet": _pet_event,
    }
    events: list[Event] = []
    for kind, day in sorted(w.events.items(), key=lambda kv: kv[1]):
        events.extend(e for e in _life_event_chain(w, kind, day, rng) if e.when[:10] >= w.start.isoformat())
    day = w.start
    while day <= w.end:
        for key in keys:
            value = w.value(key, day)
            if value is None:
                continue
            category, name = category_of(key), split_state_key(key)[1]
            if category == "habits":
                frequency = value["schedule"]["frequency_type"]
                if (
                    occurs(value["schedule"], day)
                    and rng.random() < habit_p["daily" if frequency == "daily" else "other"]
                ):
                    events.append(_habit_event(w, key, day, rng))
            elif category == "attributes":
                if rng.random() < attribute_p and (event := attribute_events[name](w, day, rng)) is not None:
                    events.append(event)
            elif rng.random() < preference_p:
                events.append(_preference_event(w, key, day, rng))
        for _ in range(_poisson(rng, filler_rate)):
            events.append(filler_event(w, day, rng))
        day += timedelta(days=1)
    return [e for e in events if e.when[:10] <= w.end.isoformat()]


def _poisson(rng: random.Random, rate: float) -> int:
    """A Poisson draw (Knuth's method; rates here are small)."""
    limit, k, product = pow(2.718281828459045, -rate), 0, rng.random()
    while product > limit:
        k += 1
        product *= rng.random()
    return k
