"""The simulated user of the DynamicMem generator: profile, life events, seasons and state values.

:class:`World` answers "what is this state's value on that day" for every state of one user, from
a :class:`Persona` (drawn once) and the dates of the user's life events. Internal to
:mod:`memsuite.eval.benchmarks.dynamicmem.generator`; every draw comes from the ``random.Random`` passed in.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from memsuite.eval.benchmarks.dynamicmem.generator import vocabulary as V
from memsuite.eval.benchmarks.dynamicmem.schema import split_state_key

LIFE_EVENTS = ("job_change", "relocation", "pet_adoption", "diet_change", "gym_switch")


def hhmm(minutes: int) -> str:
    """Minutes after midnight -> ``"HH:MM"``."""
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def minutes_of(hhmm: str) -> int:
    """``"HH:MM"`` -> minutes after midnight."""
    hours, minutes = hhmm.split(":")
    return int(hours) * 60 + int(minutes)


# --------------------------------------------------------------------------------------------------
# The user: profile, life events and the state values they imply
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Home:
    city: str
    neighborhood: str
    address: str
    park: str
    dog_park: str
    grocer: str
    cafe: str
    commute_mode: str


@dataclass(frozen=True)
class Persona:
    name: str
    age: int
    homes: tuple[Home, Home]
    jobs: tuple[tuple[str, str, str], tuple[str, str, str]]  # (title, employer, team) before/after
    manager: str
    friends: tuple[str, ...]
    gyms: tuple[tuple[str, str], tuple[str, str]]  # (club, plan) before/after
    pet: tuple[str, str, str]  # species, breed, name
    run_days: tuple[int, ...]
    run_time: int
    winter_run_time: int
    grocery_day: int
    grocery_time: int
    reading_time: int
    reading_spot: str
    school: str
    language: str
    class_days: tuple[tuple[int, ...], tuple[int, ...]]  # before/after a job change
    class_time: tuple[int, int]
    club_week: int
    club_day: int
    club_time: int
    club_cafe: str
    walk_time: int
    cuisine_pair: tuple[str, str]
    music_pairs: tuple[tuple[str, str], ...]
    coffee_pair: tuple[str, str]
    summer_coffee_pair: tuple[str, str]
    reading_pair: tuple[str, str]
    habits: tuple[str, ...]
    preferences: tuple[str, ...]


def _draw_home(rng: random.Random, city: dict[str, Any]) -> Home:
    return Home(
        city["city"],
        rng.choice(city["neighborhoods"]),
        f"{rng.randint(3, 180)} {rng.choice(city['streets'])}",
        rng.choice(city["parks"]),
        rng.choice(city["dog_parks"]),
        rng.choice(city["grocers"]),
        rng.choice(city["cafes"]),
        rng.choice(("bicycling", "transit", "driving", "walking")),
    )


def draw_persona(rng: random.Random) -> Persona:
    cities = rng.sample(V.CITIES, 2)
    homes = (_draw_home(rng, cities[0]), _draw_home(rng, cities[1]))
    employers = rng.sample(V.EMPLOYERS, 2)
    titles = rng.sample(V.JOB_TITLES, 2)
    jobs = ((titles[0], *employers[0]), (titles[1], *employers[1]))
    gyms = rng.sample(V.GYMS, 2)
    plans = rng.sample(V.GYM_PLANS, 2)
    run_days = tuple(sorted(rng.choice(((0, 2, 4), (1, 3, 5), (0, 3, 5), (1, 4, 6)))))
    run_time = rng.choice((6 * 60, 6 * 60 + 15, 6 * 60 + 30, 6 * 60 + 45, 18 * 60 + 30))
    class_days = tuple(sorted(rng.sample(range(4), 2)))
    later_days = tuple(sorted(rng.sample(range(4), 2)))
    habits = (
        "running",
        *sorted(rng.sample(("weekly_grocery_shop", "evening_reading", "language_class", "book_club"), 3)),
    )
    preferences = tuple(
        sorted(rng.sample(("cuisine", "music", "coffee", "reading_genre"), rng.choice((3, 4))))
    )
    return Persona(
        name=f"{rng.choice(V.FIRST_NAMES)} {rng.choice(V.LAST_NAMES)}",
        age=rng.randint(24, 58),
        homes=homes,
        jobs=jobs,
        manager=rng.choice(V.FIRST_NAMES),
        friends=tuple(rng.sample(V.FIRST_NAMES, 4)),
        gyms=((gyms[0], plans[0]), (gyms[1], plans[1])),
        pet=(*rng.choice(V.PETS), rng.choice(V.PET_NAMES)),
        run_days=run_days,
        run_time=run_time,
        winter_run_time=run_time + 45 if run_time < 12 * 60 else run_time - 60,
        grocery_day=rng.choice((5, 6)),
        grocery_time=rng.choice((9 * 60 + 30, 10 * 60, 11 * 60, 16 * 60 + 30)),
        reading_time=rng.choice((21 * 60, 21 * 60 + 30, 22 * 60)),
        reading_spot=rng.choice(V.READING_SPOTS),
        school=rng.choice(V.LANGUAGE_SCHOOLS),
        language=rng.choice(V.LANGUAGES),
        class_days=(class_days, later_days if later_days != class_days else tuple(d + 1 for d in class_days)),
        class_time=(rng.choice((18 * 60 + 30, 19 * 60)), rng.choice((19 * 60 + 30, 20 * 60))),
        club_week=rng.randint(1, 3),
        club_day=rng.choice((1, 2, 3)),
        club_time=rng.choice((18 * 60 + 30, 19 * 60, 19 * 60 + 30)),
        club_cafe=homes[0].cafe,
        walk_time=rng.choice((6 * 60 + 45, 7 * 60, 7 * 60 + 15)),
        cuisine_pair=rng.choice(V.CUISINE_PAIRS),
        music_pairs=tuple(rng.sample(V.GENRE_PAIRS, 3)),
        coffee_pair=rng.choice(V.COFFEE_PAIRS),
        summer_coffee_pair=rng.choice(V.SUMMER_COFFEE_PAIRS),
        reading_pair=rng.choice(V.READING_PAIRS),
        habits=habits,
        preferences=preferences,
    )


def _statement(prefix: str, pair: tuple[str, str], suffix: str) -> str:
    return f"{prefix} {pair[0]} over {pair[1]}{suffix}"


class World:
    """What is true about the user on each day: life events, seasons, and the state values they imply."""

    def __init__(self, persona: Persona, rng: random.Random, start: date, end: date) -> None:
        self.p, self.start, self.end = persona, start, end
        kinds = rng.sample(LIFE_EVENTS, rng.choice((2, 3)))
        span = (end - start).days
        # Life events fall in separate slots of the middle of the trajectory, at least ~6 weeks apart.
        slots = sorted(rng.sample(range(len(kinds) + 1), len(kinds)))
        width = (span - 90) // (len(kinds) + 1)
        self.events: dict[str, date] = {
            kind: start + timedelta(days=45 + slot * width + rng.randint(0, max(0, width - 40)))
            for kind, slot in zip(kinds, slots, strict=True)
        }
        self.music_changes: list[date] = []
        day = start + timedelta(days=rng.randint(140, 210))
        while day < end and len(self.music_changes) < len(persona.music_pairs) - 1:
            self.music_changes.append(day)
            day += timedelta(days=rng.randint(150, 210))
        #: Statement -> (preferred, avoided): service items are built from the gold statement.
        self.pairs: dict[str, tuple[str, str]] = {}

    # -- facts ---------------------------------------------------------------------------------------
    def after(self, kind: str, day: date) -> bool:
        return kind in self.events and day >= self.events[kind]

    def job(self, day: date) -> tuple[str, str, str]:
        return self.p.jobs[1] if self.after("job_change", day) else self.p.jobs[0]

    def home(self, day: date) -> Home:
        return self.p.homes[1] if self.after("relocation", day) else self.p.homes[0]

    def gym(self, day: date) -> tuple[str, str]:
        return self.p.gyms[1] if self.after("gym_switch", day) else self.p.gyms[0]

    @staticmethod
    def winter(day: date) -> bool:
        return day.month in (12, 1, 2)

    @staticmethod
    def summer(day: date) -> bool:
        return day.month in (6, 7, 8)

    def music_pair(self, day: date) -> tuple[str, str]:
        return self.p.music_pairs[sum(1 for d in self.music_changes if day >= d)]

    def state_keys(self) -> list[str]:
        keys = ["employment", "home", "commute_mode", "gym_membership"]
        keys = [f"user_attributes_state:{k}" for k in keys]
        if "pet_adoption" in self.events:
            keys.append("user_attributes_state:pet")
        keys += [f"habits_state:{h}" for h in self.p.habits]
        if "pet_adoption" in self.events:
            keys.append("habits_state:dog_walk")
        keys += [f"preferences_state:{p}" for p in self.p.preferences]
        return keys

    # -- values --------------------------------------------------------------------------------------
    def _habit(self, schedule: dict[str, Any], start: int, location: str) -> dict[str, Any]:
        return {"schedule": schedule, "timing": {"start_time": hhmm(start)}, "location": location}

    def _preference(self, prefix: str, pair: tuple[str, str], suffix: str) -> dict[str, str]:
        text = _statement(prefix, pair, suffix)
        self.pairs[text] = pair
        return {"statement": text}

    def value(self, key: str, day: date) -> Any:
        """The state's value on ``day``, or None when the user does not have that state (yet)."""
        p, name = self.p, split_state_key(key)[1]
        if name == "employment":
            title, employer, _ = self.job(day)
            return {"job_title": title, "employer": employer}
        if name == "home":
            home = self.home(day)
            return {"city": home.city, "neighborhood": home.neighborhood}
        if name == "commute_mode":
            return self.home(day).commute_mode
        if name == "gym_membership":
            club, plan = self.gym(day)
            return {"club": club, "plan": plan}
        if name == "pet":
            return (
                dict(zip(("species", "breed", "name"), p.pet, strict=True))
                if self.after("pet_adoption", day)
                else None
            )
        if name == "running":
            weekly = {"frequency_type": "weekly", "days_of_week": list(p.run_days)}
            if self.winter(day):
                return self._habit(weekly, p.winter_run_time, f"{self.gym(day)[0]} treadmill")
            return self._habit(weekly, p.run_time, self.home(day).park)
        if name == "weekly_grocery_shop":
            return self._habit(
                {"frequency_type": "weekly", "days_of_week": [p.grocery_day]},
                p.grocery_time,
                self.home(day).grocer,
            )
        if name == "evening_reading":
            return self._habit({"frequency_type": "daily"}, p.reading_time, p.reading_spot)
        if name == "language_class":
            later = int(self.after("job_change", day))
            weekly = {"frequency_type": "weekly", "days_of_week": list(p.class_days[later])}
            return self._habit(weekly, p.class_time[later], p.school)
        if name == "book_club":
            schedule = {
                "frequency_type": "monthly_nth_weekday",
                "week_of_month": p.club_week,
                "day_of_week": p.club_day,
            }
            return self._habit(schedule, p.club_time, p.club_cafe)
        if name == "dog_walk":
            if not self.after("pet_adoption", day):
                return None
            return self._habit({"frequency_type": "daily"}, p.walk_time, self.home(day).dog_park)
        if name == "cuisine":
            pair = V.HEALTHY_CUISINE_PAIR if self.after("diet_change", day) else p.cuisine_pair
            return self._preference("Prefers", pair, " when ordering food")
        if name == "music":
            return self._preference("Prefers", self.music_pair(day), " while working")
        if name == "coffee":
            return self._preference(
                "Prefers", p.summer_coffee_pair if self.summer(day) else p.coffee_pair, ""
            )
        if name == "reading_genre":
            return self._preference("Prefers", p.reading_pair, " when choosing books")
        raise ValueError(f"unknown generated state {key!r}")

    def change_reason(self, key: str, day: date) -> str:
        """Why ``key`` holds a different value on ``day`` than before it (the latest change up to ``day``)."""
        current = self.value(key, day)
        probe = day
        while probe > self.start and self.value(key, probe - timedelta(days=1)) == current:
            probe -= timedelta(days=1)
        return self._reason_on(probe)

    def event_reason(self, kind: str) -> str:
        """The gold change reason of a life event."""
        return {
            "job_change": f"Started a new job as {self.p.jobs[1][0]} at {self.p.jobs[1][1]}",
            "relocation": f"Moved to {self.p.homes[1].neighborhood}, {self.p.homes[1].city}",
            "pet_adoption": f"Adopted a {self.p.pet[1]} named {self.p.pet[2]}",
            "diet_change": "A health check-up prompted a lighter, plant-forward diet",
            "gym_switch": f"Switched fitness clubs to {self.p.gyms[1][0]}",
        }[kind]

    def _reason_on(self, day: date) -> str:
        for kind, when in self.events.items():
            if when == day:
                return self.event_reason(kind)
        if day in self.music_changes:
            return "Taste in work music drifted"
        if (day.month, day.day) == (12, 1):
            return "Winter weather moved outdoor routines indoors"
        if (day.month, day.day) == (3, 1):
            return "Spring weather brought routines back outdoors"
        if (day.month, day.day) in ((6, 1), (9, 1)):
            return "Seasonal change of drinks"
        return "Routine adjusted"
