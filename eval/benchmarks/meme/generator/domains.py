"""The two MEME generation domains: hand-written dependency DAGs and fictitious value pools.

Each domain has ~50 entities in categories and ~40 dependency edges. An edge ``source -> target``
means *target depends on source*: when the source changes, the target may change with it (the
generator states either a rule with the new value, for Cascade, or the bare dependency, for Absence).
Edge patterns name the kind of coupling: software -- tech_compatibility, derived_config, data_layer,
infra_coupling, observability_pipeline, tooling_integration, team_process; personal life --
location_coupling, household, routine_coupling, employer_coupling, provider_network, health_regimen,
family_schedule, vehicle_coupling, pet_care, financial_link, travel_plan, device_ecosystem.

All values are invented (product, place and person names no model can know), so an answer can only
come from memory (docs/benchmarks/meme.md). Pool rules, checked by the tests: at least four
values per entity, no value contains a comma (Agg and Tr golds are comma-joined), and no value is a
substring of another value of the same domain (answers are matched by substring).

Entity names are noun phrases that read after a possessive ("my family doctor", "our cache layer").
Verbatim entities (Exact Recall targets) get a fresh value per episode from a maker function, e.g. a
multi-line error log or a license key.

The domains are data: ``data/domain_<name>.json`` (entities with their pools, verbatim entities,
edges as ``[source, target, pattern]``), loaded by :func:`load_domain`; the value makers are code.
"""

from __future__ import annotations

import random
import string
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from memsuite.eval.benchmarks.meme.generator.tables import load_table


@dataclass(frozen=True)
class EntitySpec:
    """An entity whose value is drawn from a pool."""

    eid: str
    """Identifier, unique within the domain."""
    name: str
    """Noun phrase used in dialogues and questions (after "my" / "our")."""
    category: str
    """Grouping used for variety (home, data, infra, ...)."""
    pool: tuple[str, ...]
    """Fictitious candidate values."""
    person: bool = False
    """Whether the values are people (questions ask "who" rather than "what")."""


@dataclass(frozen=True)
class VerbatimSpec:
    """An Exact Recall entity: its value is made fresh per episode and must be recalled verbatim."""

    eid: str
    name: str
    category: str
    kind: str
    """Key of the maker in :data:`VERBATIM_MAKERS`."""


@dataclass(frozen=True)
class Edge:
    """``target`` depends on ``source``."""

    source: str
    target: str
    pattern: str


@dataclass(frozen=True)
class Domain:
    """One domain: entities, verbatim entities and the dependency DAG."""

    name: str
    """``personal_life`` or ``software_project``."""
    prefix: str
    """Episode id prefix (``pl`` / ``sw``)."""
    owner: str
    """Possessive the user speaks with ("my" / "our")."""
    entities: tuple[EntitySpec, ...]
    verbatim: tuple[VerbatimSpec, ...]
    edges: tuple[Edge, ...]

    @cached_property
    def by_id(self) -> dict[str, EntitySpec]:
        """Entity id -> spec (pool entities only)."""
        return {e.eid: e for e in self.entities}

    def children(self, eid: str) -> list[str]:
        """Ids that depend directly on ``eid``, in DAG order."""
        return [e.target for e in self.edges if e.source == eid]

    def edge(self, source: str, target: str) -> Edge:
        """The edge ``source -> target``."""
        return next(e for e in self.edges if e.source == source and e.target == target)

    def descendants(self, eid: str) -> set[str]:
        """Every id reachable from ``eid`` (not including it)."""
        seen: set[str] = set()
        stack = self.children(eid)
        while stack:
            node = stack.pop()
            if node not in seen:
                seen.add(node)
                stack.extend(self.children(node))
        return seen

    def roots(self) -> list[str]:
        """Entities that can be an episode root: at least two direct dependents."""
        return [e.eid for e in self.entities if len(self.children(e.eid)) >= 2]


def load_domain(name: str) -> Domain:
    """The domain ``name`` from its table ``data/domain_<name>.json``."""
    table = load_table(f"domain_{name}")
    return Domain(
        name=table["name"],
        prefix=table["prefix"],
        owner=table["owner"],
        entities=tuple(EntitySpec(**entity) for entity in table["entities"]),
        verbatim=tuple(VerbatimSpec(**spec) for spec in table["verbatim"]),
        edges=tuple(Edge(*edge) for edge in table["edges"]),
    )


SOFTWARE_PROJECT = load_domain("software_project")
PERSONAL_LIFE = load_domain("personal_life")

#: Domain name -> domain, in the order episodes alternate between them.
DOMAINS: dict[str, Domain] = {d.name: d for d in (PERSONAL_LIFE, SOFTWARE_PROJECT)}


# ----------------------------------------------------------------------------------------------------
# Verbatim value makers: distinctive strings with random parts, so no two episodes share one.


def _code(rng: random.Random, n: int, alphabet: str = string.ascii_uppercase + string.digits) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _error_log(rng: random.Random) -> str:
    host = rng.choice(
        ("db-stg-7.quarrelwick.internal", "qvx-replica-2.vexhollow.net", "store-b.mirefield.io")
    )
    port, attempt = rng.randint(5100, 9800), rng.randint(2, 6)
    return (
        f"2023-0{rng.randint(3, 4)}-{rng.randint(10, 28)}T{rng.randint(10, 23)}:{rng.randint(10, 59)}:"
        f"{rng.randint(10, 59)}Z ERROR [pool.acquire] connection refused: host={host} port={port}\n"
        f"    at Pool.acquire (pool/acquire.qs:{rng.randint(100, 480)})\n"
        f"    at Session.begin (orm/session.qs:{rng.randint(20, 160)})\n"
        f"Caused by: HandshakeTimeout after {rng.randint(1500, 9000)}ms "
        f"(retry {attempt}/{attempt + rng.randint(1, 3)}, trace {_code(rng, 10, '0123456789abcdef')})"
    )


def _config_snippet(rng: random.Random) -> str:
    return (
        "[pool]\n"
        f"max_connections = {rng.randint(17, 97)}\n"
        f"idle_timeout_ms = {rng.randint(11, 89) * 500}\n"
        "[retry]\n"
        f'backoff = "expo:{rng.choice((125, 250, 375))}ms..{rng.randint(4, 19)}s"\n'
        f"jitter_seed = {rng.randint(1000, 9999)}"
    )


def _license_key(rng: random.Random) -> str:
    return "-".join(_code(rng, 5) for _ in range(5))


def _deploy_command(rng: random.Random) -> str:
    return (
        f"qrel rollout --ring {rng.choice(('canary', 'amber', 'teal'))}-{rng.randint(2, 9)} "
        f"--max-unavailable {rng.randint(1, 4)} --drain-timeout {rng.randint(31, 179)}s "
        f"--tag hotfix-{_code(rng, 6, string.ascii_lowercase + string.digits)}"
    )


def _wifi_password(rng: random.Random) -> str:
    words = ("otter", "lantern", "quince", "marble", "thistle", "gannet", "pewter", "juniper", "saffron")
    first, second = rng.sample(words, 2)
    return f"{first}-{second.capitalize()}-{rng.randint(1000, 9999)}{rng.choice('!?#%&*')}"


def _recipe_note(rng: random.Random) -> str:
    return (
        f"Plum loaf (Nana Ottoline's card #{rng.randint(2, 19)})\n"
        f"- {rng.randint(2, 4)} eggs, {rng.randint(18, 26) * 10} g spelt flour, "
        f"{rng.randint(7, 13) * 10} g dark sugar\n"
        f"- {rng.randint(5, 9)} ripe plums, halved; a pinch of cardamom\n"
        f"- bake {rng.randint(38, 56)} min at {rng.randint(160, 185)} C, "
        f"rest {rng.randint(8, 20)} min before slicing"
    )


def _policy_number(rng: random.Random) -> str:
    return (
        f"SHM-{_code(rng, 2, string.ascii_uppercase)}-{rng.randint(1000, 9999)}-"
        f"{rng.randint(100, 999)}-{_code(rng, 1)}"
    )


def _locker_code(rng: random.Random) -> str:
    return (
        f"Locker {rng.choice('ABCDEFGH')}-{rng.randint(10, 99)}, combination "
        f"{rng.randint(10, 39)}-{rng.randint(10, 39)}-{rng.randint(10, 39)}; "
        f"turn left {rng.randint(2, 4)} times first"
    )


#: Verbatim kind -> maker(rng) -> value.
VERBATIM_MAKERS: dict[str, Callable[[random.Random], str]] = {
    "error_log": _error_log,
    "config_snippet": _config_snippet,
    "license_key": _license_key,
    "deploy_command": _deploy_command,
    "wifi_password": _wifi_password,
    "recipe_note": _recipe_note,
    "policy_number": _policy_number,
    "locker_code": _locker_code,
}
