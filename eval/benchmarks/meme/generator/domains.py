"""The two MEME generation domains: hand-written dependency DAGs and fictitious value pools.

Each domain has ~50 entities in categories and ~40 dependency edges. An edge ``source -> target``
means *target depends on source*: when the source changes, the target may change with it (the
generator states either a rule with the new value, for Cascade, or the bare dependency, for Absence).
Edge patterns name the kind of coupling: software -- tech_compatibility, derived_config, data_layer,
infra_coupling, observability_pipeline, tooling_integration, team_process; personal life --
location_coupling, household, routine_coupling, employer_coupling, provider_network, health_regimen,
family_schedule, vehicle_coupling, pet_care, financial_link, travel_plan, device_ecosystem.

All values are invented (product, place and person names no model can know), so an answer can only
come from memory (DESIGN.md §5 MEME generation). Pool rules, checked by the tests: at least four
values per entity, no value contains a comma (Agg and Tr golds are comma-joined), and no value is a
substring of another value of the same domain (answers are matched by substring).

Entity names are noun phrases that read after a possessive ("my family doctor", "our cache layer").
Verbatim entities (Exact Recall targets) get a fresh value per episode from a maker function, e.g. a
multi-line error log or a license key.
"""

# ruff: noqa: E501 -- data tables read better with one entity per line.
from __future__ import annotations

import random
import string
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property


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


def _persons(first: str, last: str, prefix: str = "") -> tuple[str, ...]:
    return tuple(f"{prefix}{f} {s}" for f, s in zip(first.split(), last.split(), strict=True))


# Invented surnames paired with ordinary given names; a separate set per role keeps episode values unique.
_SW_PEOPLE = _persons(
    "Orla Dagny Teodric Ilsabet Casimir Wren Marek Saoirse Fenna Lorcan",
    "Vantressi Pellworth Malvane Quorne Oakhollow Tamsby Drevin Kellaway Brannoch Quillfeather",
)
_SW_PEOPLE_2 = _persons(
    "Anouk Bastien Cerys Dorian Elif Gideon Hester Ivo Juno Kasimir",
    "Marrowby Thistlewood Ravelle Ostergaard Penhallow Vexley Sallowmere Corrindale Aberwick Mallory-Finch",
)
_PL_PEOPLE = _persons(
    "Maren Tobiah Ysolde Rostam Annika Caspar Mireille Bram Linnea Osric",
    "Hallowby Fenwright Marrin Ivers Quell Wendeline Tosk Hollister Ashcombe Dunmarrow",
)
_PL_PEOPLE_2 = _persons(
    "Greer Alaric Niamh Sefton Ottilie Peregrine Rosalind Thaddeus Una Vesna",
    "Brackwater Coldridge Everdene Farrowdale Gillimore Harkness-Vey Inchcombe Jessamy Kilbride Larchmont",
)

SOFTWARE_PROJECT = Domain(
    name="software_project",
    prefix="sw",
    owner="our",
    entities=(
        # platform
        EntitySpec(
            "runtime",
            "backend runtime",
            "platform",
            ("Corvane 3", "Vessic 11", "Ardent VM 7", "Kelpie Runtime 2", "Quarrow VM 9"),
        ),
        EntitySpec(
            "frontend_framework",
            "frontend framework",
            "platform",
            ("Glimmerkit", "Panebright", "Vellumfold", "Sprocketjs", "Tindrel UI"),
        ),
        EntitySpec(
            "build_tool",
            "build tool",
            "platform",
            ("Forgewright", "Brickle", "Malletry", "Stackhammer", "Kilnmake"),
        ),
        EntitySpec(
            "package_registry",
            "internal package registry",
            "platform",
            ("Crateyard", "Parcelhold", "Binmoor", "Stowline", "Hampercrate"),
        ),
        EntitySpec(
            "test_framework",
            "test framework",
            "platform",
            ("Probewright", "Assertly", "Checkmere", "Specbrook", "Quizzle"),
        ),
        EntitySpec(
            "linter", "linter", "platform", ("Lintmoor", "Tidyhawk", "Stylewarden", "Nitpikr", "Fluffcheck")
        ),
        EntitySpec(
            "artifact_format",
            "release artifact format",
            "platform",
            ("QPK bundle", "VRX capsule", "Tarnpack archive", "Bndlite package"),
        ),
        EntitySpec(
            "container_base_image",
            "container base image",
            "platform",
            ("loam-slim 9", "pebble-base 3.1", "husk-minimal 12", "grist-os 5", "chaff-lite 8"),
        ),
        # data
        EntitySpec(
            "db_engine",
            "primary database engine",
            "data",
            ("Tallowmere DB", "Quorvex", "Brindlestore", "Okrasql", "Fernhold DB"),
        ),
        EntitySpec(
            "db_driver",
            "database driver",
            "data",
            ("tallow-link 4", "qvx-connect 2", "brindle-wire 7", "okra-pipe 3", "fernbridge 1.9"),
        ),
        EntitySpec(
            "orm",
            "ORM library",
            "data",
            ("Quillstone ORM", "Tablewright", "Rowkeeper", "Ledgerline", "Mapleframe"),
        ),
        EntitySpec(
            "schema_migration",
            "schema migration tool",
            "data",
            ("Shiftwright", "Migrato", "Ledgerstep", "Tidemark Migrate", "Stepladder DDL"),
        ),
        EntitySpec(
            "cache",
            "cache layer",
            "data",
            ("Swiftcache", "Embercache", "Holdfast KV", "Rimecache", "Nookstore"),
        ),
        EntitySpec(
            "cache_ttl",
            "default cache TTL",
            "data",
            ("137 seconds", "415 seconds", "1190 seconds", "2675 seconds", "83 seconds"),
        ),
        EntitySpec(
            "connection_pool",
            "database connection pool size",
            "data",
            (
                "37 connections",
                "58 connections",
                "83 pooled connections",
                "121 connections",
                "29 connections",
            ),
        ),
        EntitySpec(
            "db_backup_schedule",
            "database backup schedule",
            "data",
            (
                "nightly at 02:40",
                "every 5 hours at :17",
                "hourly at :53",
                "twice daily at 03:10 and 15:10",
                "weekly on Sunday at 04:25",
            ),
        ),
        EntitySpec(
            "search_engine",
            "search backend",
            "data",
            ("Findlark", "Seekwell", "Lanternix", "Gleanery", "Huntmoor"),
        ),
        EntitySpec(
            "message_queue",
            "message queue",
            "data",
            ("Drumline MQ", "Courierhub", "Pipewren", "Relaymoth", "Quayside Queue"),
        ),
        EntitySpec(
            "serialization",
            "event serialization format",
            "data",
            ("Knotpack", "Braidbuf", "Weavecode", "Plaitform", "Twinehex"),
        ),
        EntitySpec(
            "object_storage",
            "object storage service",
            "data",
            ("Cairnvault", "Bucketrow", "Stashmere", "Hoardly", "Silocrate"),
        ),
        # infra
        EntitySpec(
            "cloud_provider",
            "cloud provider",
            "infra",
            ("Nimbrel Cloud", "Stratavane", "Cirrowell", "Altocove", "Vaporline Cloud"),
        ),
        EntitySpec(
            "deploy_region",
            "deployment region",
            "infra",
            ("quenmark-east-1", "dravel-north-2", "ostrel-central-3", "yarrowby-west-4", "fenmoor-south-2"),
        ),
        EntitySpec(
            "container_platform",
            "container orchestrator",
            "infra",
            ("Hivewright", "Podmarshal", "Fleetloom", "Corralis", "Shepherdly"),
        ),
        EntitySpec(
            "load_balancer",
            "load balancer",
            "infra",
            ("Evenkeel LB", "Balancewright", "Scalespan", "Tiltgate", "Fulcra"),
        ),
        EntitySpec("cdn", "CDN", "infra", ("Skyferry", "Edgewick", "Swiftquay", "Farreach", "Relaycove")),
        EntitySpec(
            "dns_provider",
            "DNS provider",
            "infra",
            ("Namewell", "Zonekeep", "Resolvia", "Pointerly", "Lookuply"),
        ),
        EntitySpec(
            "api_gateway",
            "API gateway",
            "infra",
            ("Portcullis GW", "Turnstile Edge", "Gatehaven", "Archway Proxy", "Wicketgate"),
        ),
        EntitySpec(
            "staging_host",
            "staging hostname",
            "infra",
            (
                "stg.quarrelwick.internal",
                "stage.brambleton.lan",
                "preprod.vexhollow.net",
                "stg-01.mirefield.io",
            ),
        ),
        EntitySpec(
            "service_port",
            "API service port",
            "infra",
            ("port 8417", "port 9235", "port 7741", "port 6652", "port 5329"),
        ),
        # api and security
        EntitySpec(
            "api_style",
            "API protocol",
            "api",
            ("Threadwire RPC", "Glasspipe REST", "Quillcall", "Spindle RPC", "Murmurlink"),
        ),
        EntitySpec(
            "auth_provider",
            "identity provider",
            "security",
            ("Keyrook", "Sigilgate", "Passwarden", "Latchkey ID", "Wardmark"),
        ),
        EntitySpec(
            "secrets_manager",
            "secrets manager",
            "security",
            ("Vaultmoss", "Cipherbox", "Lockhollow", "Hushvault", "Cryptcellar"),
        ),
        EntitySpec(
            "token_lifetime",
            "session token lifetime",
            "security",
            ("47 minutes", "3 hours 20 minutes", "11 hours", "26 hours", "97 minutes"),
        ),
        # observability
        EntitySpec(
            "logging_stack",
            "log aggregation tool",
            "observability",
            ("Logwhistle", "Scrollhound", "Tracequill", "Bramblelog", "Ledgermoth"),
        ),
        EntitySpec(
            "metrics_tool",
            "metrics dashboard",
            "observability",
            ("Gaugewell", "Dialcraft", "Pulseloom", "Meterfield", "Quillgauge"),
        ),
        EntitySpec(
            "alerting",
            "alerting tool",
            "observability",
            ("Klaxonly", "Pagewren", "Sirenhall", "Belltower Alerts", "Hootwatch"),
        ),
        EntitySpec(
            "monitoring_agent",
            "monitoring agent",
            "observability",
            ("Watchwren", "Lookoutd", "Vigilark", "Sentinelle Agent", "Peekmoor"),
        ),
        # tooling
        EntitySpec(
            "ci_system",
            "CI system",
            "tooling",
            ("Runwarden", "Checkwheel", "Buildmoth", "Gatepost CI", "Pipelark"),
        ),
        EntitySpec(
            "code_host",
            "code hosting platform",
            "tooling",
            ("Forkhaven", "Repoloom", "Commitfield", "Branchwell", "Mergemoor"),
        ),
        EntitySpec(
            "issue_tracker",
            "issue tracker",
            "tooling",
            ("Tickety", "Tasklark", "Bugwharf", "Tracklet", "Snagbook"),
        ),
        EntitySpec(
            "docs_tool",
            "documentation generator",
            "tooling",
            ("Pagesmith", "Docfellow", "Leafpress", "Scribewell", "Tomecraft"),
        ),
        EntitySpec(
            "feature_flags",
            "feature-flag service",
            "tooling",
            ("Switchyard", "Togglewood", "Pennantly", "Flipwick", "Leverhouse"),
        ),
        EntitySpec(
            "email_service",
            "transactional email service",
            "tooling",
            ("Postwren", "Mailquay", "Sendmere", "Letterloft", "Envelopia"),
        ),
        EntitySpec(
            "payment_processor",
            "payment processor",
            "tooling",
            ("Coinlark", "Paywharf", "Tallyfast", "Mintgate Pay", "Pursewell"),
        ),
        EntitySpec(
            "analytics",
            "product analytics tool",
            "tooling",
            ("Glimpsewell", "Trendmoor", "Clickwren", "Heedly", "Tallyhawk"),
        ),
        # team and process
        EntitySpec("tech_lead", "tech lead", "team", _SW_PEOPLE[:5], person=True),
        EntitySpec("product_owner", "product owner", "team", _SW_PEOPLE[5:], person=True),
        EntitySpec("on_call_owner", "on-call rotation owner", "team", _SW_PEOPLE_2[:5], person=True),
        EntitySpec("release_manager", "release manager", "team", _SW_PEOPLE_2[5:], person=True),
        EntitySpec(
            "sprint_length",
            "sprint length",
            "process",
            ("9 working days", "13 working days", "6 working days", "11 working days", "17 working days"),
        ),
        EntitySpec(
            "release_cadence",
            "release cadence",
            "process",
            (
                "Tuesdays at 16:20",
                "every other Wednesday at 11:05",
                "the first Monday of the month at 09:40",
                "Fridays at 13:35",
            ),
        ),
        EntitySpec(
            "branch_strategy",
            "branching strategy",
            "process",
            ("Sparrow flow", "Ladder branching", "Braided trunk", "Tidepool branches", "Comb merging"),
        ),
        EntitySpec(
            "code_review_policy",
            "code review policy",
            "process",
            (
                "the Two-Key rule",
                "the Buddy-Pass rule",
                "the Triple-Check rule",
                "the Open-Door rule",
                "the Lantern review",
            ),
        ),
    ),
    verbatim=(
        VerbatimSpec(
            "staging_error_log", "error log from the failed staging deploy", "verbatim", "error_log"
        ),
        VerbatimSpec("pool_config", "connection pool config snippet", "verbatim", "config_snippet"),
        VerbatimSpec("license_key", "license key for the profiler", "verbatim", "license_key"),
        VerbatimSpec("hotfix_command", "hotfix rollout command", "verbatim", "deploy_command"),
    ),
    edges=(
        Edge("db_engine", "orm", "tech_compatibility"),
        Edge("db_engine", "db_driver", "tech_compatibility"),
        Edge("db_engine", "connection_pool", "derived_config"),
        Edge("db_engine", "db_backup_schedule", "derived_config"),
        Edge("db_engine", "search_engine", "data_layer"),
        Edge("db_engine", "cache", "data_layer"),
        Edge("orm", "schema_migration", "tech_compatibility"),
        Edge("cache", "cache_ttl", "derived_config"),
        Edge("message_queue", "serialization", "data_layer"),
        Edge("message_queue", "email_service", "data_layer"),
        Edge("cloud_provider", "deploy_region", "infra_coupling"),
        Edge("cloud_provider", "object_storage", "infra_coupling"),
        Edge("cloud_provider", "container_platform", "infra_coupling"),
        Edge("cloud_provider", "secrets_manager", "infra_coupling"),
        Edge("deploy_region", "cdn", "infra_coupling"),
        Edge("deploy_region", "dns_provider", "infra_coupling"),
        Edge("container_platform", "container_base_image", "derived_config"),
        Edge("container_platform", "load_balancer", "infra_coupling"),
        Edge("container_platform", "monitoring_agent", "infra_coupling"),
        Edge("load_balancer", "service_port", "derived_config"),
        Edge("load_balancer", "staging_host", "derived_config"),
        Edge("runtime", "build_tool", "tech_compatibility"),
        Edge("runtime", "test_framework", "tech_compatibility"),
        Edge("runtime", "linter", "tech_compatibility"),
        Edge("build_tool", "artifact_format", "derived_config"),
        Edge("build_tool", "package_registry", "tech_compatibility"),
        Edge("api_style", "api_gateway", "tech_compatibility"),
        Edge("auth_provider", "api_gateway", "tech_compatibility"),
        Edge("auth_provider", "token_lifetime", "derived_config"),
        Edge("api_gateway", "token_lifetime", "derived_config"),
        Edge("monitoring_agent", "metrics_tool", "observability_pipeline"),
        Edge("metrics_tool", "alerting", "observability_pipeline"),
        Edge("logging_stack", "alerting", "observability_pipeline"),
        Edge("code_host", "ci_system", "tooling_integration"),
        Edge("code_host", "issue_tracker", "tooling_integration"),
        Edge("ci_system", "code_review_policy", "team_process"),
        Edge("tech_lead", "code_review_policy", "team_process"),
        Edge("tech_lead", "branch_strategy", "team_process"),
        Edge("product_owner", "sprint_length", "team_process"),
        Edge("sprint_length", "release_cadence", "team_process"),
        Edge("release_cadence", "branch_strategy", "team_process"),
        Edge("frontend_framework", "analytics", "tech_compatibility"),
        Edge("frontend_framework", "feature_flags", "tech_compatibility"),
    ),
)

PERSONAL_LIFE = Domain(
    name="personal_life",
    prefix="pl",
    owner="my",
    entities=(
        # home and neighbourhood
        EntitySpec(
            "home_town",
            "home town",
            "home",
            ("Quellmouth", "Brackenford", "Sallowby", "Tarnwick", "Ivelby Cross"),
        ),
        EntitySpec(
            "neighbourhood",
            "neighbourhood",
            "home",
            ("Old Copperside", "Linden Rise", "Marrowgate", "Fennel Quarter", "Harrowdene"),
        ),
        EntitySpec(
            "apartment_building",
            "apartment building",
            "home",
            ("Pellucid Tower", "Wrenfield Court", "Alder Lofts", "Kestrel House", "Tallis Block"),
        ),
        EntitySpec("landlord", "landlord", "home", _PL_PEOPLE_2[:5], person=True),
        EntitySpec(
            "parking_spot",
            "parking spot",
            "home",
            ("bay C-17", "level 3 bay 42", "spot 9 on Rowan Mews", "bay K-04", "space 118 under Tallow Arch"),
        ),
        EntitySpec(
            "internet_provider",
            "internet provider",
            "home",
            ("Linkmoor Broadband", "Fibrewren", "Quickthistle Net", "Strandline", "Wirelark"),
        ),
        EntitySpec(
            "grocery_store",
            "usual grocery store",
            "home",
            ("Pantrywell Market", "Basketby", "Greengable Grocers", "Larderlane", "Hearthcart"),
        ),
        EntitySpec(
            "gym",
            "gym",
            "home",
            ("Ironwhistle Fitness", "Pulsehaus", "Liftmoor", "Sweatbarrow", "Kettlecove Gym"),
        ),
        EntitySpec(
            "workout_class",
            "weekly workout class",
            "home",
            (
                "Tuesday Rowstorm",
                "Thursday Kettleflow",
                "Saturday Spinquake",
                "Monday Corecraft",
                "Wednesday Stepfire",
            ),
        ),
        EntitySpec(
            "coffee_shop",
            "regular coffee shop",
            "home",
            ("Beanwick", "The Drowsy Kettle", "Crema Hollow", "Steamhaven", "Mugwort and Fig"),
        ),
        EntitySpec(
            "favourite_restaurant",
            "favourite restaurant",
            "home",
            ("Copper Ladle", "Saffron Wren", "The Gilded Turnip", "Mossgrove Kitchen", "Hearthbloom"),
        ),
        # work
        EntitySpec(
            "employer",
            "employer",
            "work",
            (
                "Corvick Lyle Partners",
                "Brightmoor Analytics",
                "Halvard Systems",
                "Tessaly Foods",
                "Ostrander Maps",
            ),
        ),
        EntitySpec(
            "office",
            "office",
            "work",
            ("Dunmere Plaza", "the Fairweather Building", "Ketterley Wharf", "Vantage Row 12", "Lumen Yard"),
        ),
        EntitySpec(
            "commute",
            "commute route",
            "work",
            (
                "tram line 17",
                "the Riverlark cycle path",
                "bus route 88X",
                "the Gorsey Lane shuttle",
                "the ferry from Pike Steps",
            ),
        ),
        EntitySpec("manager", "manager", "work", _PL_PEOPLE[:5], person=True),
        EntitySpec(
            "work_schedule",
            "work schedule",
            "work",
            ("Mon-Thu 07:40-17:10", "Tue-Sat 10:15-18:45", "Mon-Fri 08:20-16:35", "Wed-Sun 11:00-19:25"),
        ),
        EntitySpec(
            "health_insurer",
            "health insurer",
            "work",
            (
                "Sureharbor Mutual",
                "Kindleaf Health",
                "Carewell Shield",
                "Bramblecross Cover",
                "Hollowell Assurance",
            ),
        ),
        EntitySpec(
            "lunch_spot",
            "lunch spot near work",
            "work",
            ("Pickle and Pine", "Noodlewick", "Crustwell Bakery", "Brothmoor Bowls", "Tiffinly"),
        ),
        # health
        EntitySpec(
            "doctor",
            "family doctor",
            "health",
            (
                "Dr. Hallam Brisk",
                "Dr. Perpetua Vance-Orley",
                "Dr. Ambrose Kettleby",
                "Dr. Saskia Morrow-Leigh",
                "Dr. Evander Skelwith",
            ),
            person=True,
        ),
        EntitySpec(
            "dentist",
            "dentist",
            "health",
            (
                "Dr. Ines Vallory",
                "Dr. Cuthbert Ormsley",
                "Dr. Leocadia Finistere",
                "Dr. Barnaby Quistell-Hart",
                "Dr. Talulla Ebbsworth",
            ),
            person=True,
        ),
        EntitySpec(
            "pharmacy",
            "pharmacy",
            "health",
            (
                "Mortar Lane Pharmacy",
                "Pillwick Chemists",
                "Remedy Row Pharmacy",
                "Tinctura",
                "Balmhouse Dispensary",
            ),
        ),
        EntitySpec("physio", "physiotherapist", "health", _PL_PEOPLE[5:], person=True),
        EntitySpec(
            "diet_plan",
            "meal plan",
            "health",
            (
                "the Harvest-7 plan",
                "the Low-Salt Lantern plan",
                "the Greenmoor diet",
                "the Tidewater plan",
                "the Oakcrest regimen",
            ),
        ),
        EntitySpec(
            "meal_kit",
            "meal-kit delivery",
            "health",
            ("Platewise", "Forkful Box", "Ladleloop", "Supperstack", "Kitchenkite"),
        ),
        EntitySpec(
            "supplement",
            "daily supplement",
            "health",
            ("Vitalune D3", "Ironbloom", "Omegarrow", "Calmerra", "Zestwell B12"),
        ),
        # family
        EntitySpec(
            "kid_school",
            "daughter's school",
            "family",
            (
                "Larkspur Primary",
                "Willowbend Academy",
                "Hazelrow School",
                "St. Edric's Primary",
                "Foxglove Lane School",
            ),
        ),
        EntitySpec(
            "after_school",
            "daughter's after-school club",
            "family",
            (
                "Robotics Rookies",
                "Clay and Kiln Club",
                "Junior Fencing at Hazelmere",
                "Little Chorale",
                "Chess Owls",
            ),
        ),
        EntitySpec("babysitter", "babysitter", "family", _PL_PEOPLE_2[5:], person=True),
        EntitySpec(
            "school_bus",
            "school bus route",
            "family",
            ("route 14B", "route 7K", "route 22Q", "route 31M", "route 5V"),
        ),
        EntitySpec(
            "piano_teacher",
            "piano teacher",
            "family",
            ("Madame Celestine Orrow", "Mr. Lucan Pemberly", "Ms. Dorcas Fairholme", "Mr. Jory Trevanion"),
            person=True,
        ),
        # vehicle
        EntitySpec(
            "car",
            "car",
            "vehicle",
            ("Velora Sprite", "Maddox Terrane", "Kestrel Compact 4", "Aurin Wayfarer", "Dunmore Glide"),
        ),
        EntitySpec(
            "car_insurer",
            "car insurer",
            "vehicle",
            ("Roadhaven Mutual", "Wheelwise Cover", "Safelane Insurance", "Milestone Shield", "Gearguard"),
        ),
        EntitySpec(
            "mechanic",
            "mechanic",
            "vehicle",
            (
                "Gearwell Garage",
                "Torque and Tally",
                "Sparkhollow Motors",
                "Lugnut Lane Repairs",
                "Pistonbrook Auto",
            ),
        ),
        # pets
        EntitySpec(
            "vet_clinic",
            "vet clinic",
            "pets",
            (
                "Pawsmere Vet",
                "Whiskerwell Clinic",
                "Tailwind Animal Care",
                "Barkley Row Vets",
                "Furrowby Veterinary",
            ),
        ),
        EntitySpec(
            "pet_food",
            "dog food brand",
            "pets",
            ("Kibblecraft", "Muttmeal", "Houndharvest", "Chowbarrow", "Woofgrain"),
        ),
        EntitySpec(
            "dog_walker",
            "dog walker",
            "pets",
            ("Sunniva Larkhill", "Emrys Colquhoun-Tate", "Philippa Wrenwood", "Anselm Grisedale"),
            person=True,
        ),
        EntitySpec(
            "groomer",
            "dog groomer",
            "pets",
            ("Suds and Snips", "Fluffworks", "Brushwick Grooming", "Tidytail", "Combhaven"),
        ),
        # finance
        EntitySpec(
            "bank",
            "bank",
            "finance",
            (
                "Quaystone Bank",
                "Fernleigh Credit Union",
                "Harbourlight Savings",
                "Ashgrove Bank",
                "Coppergate Mutual",
            ),
        ),
        EntitySpec(
            "credit_card",
            "credit card",
            "finance",
            (
                "Lumen Rewards card",
                "Birchline Cashback card",
                "Tidal Platinum card",
                "Emberpoint Travel card",
            ),
        ),
        EntitySpec(
            "budgeting_app",
            "budgeting app",
            "finance",
            ("Thriftwick", "Budgetmoth", "Pursekeep", "Tallyroo", "Centwhistle"),
        ),
        EntitySpec(
            "accountant",
            "accountant",
            "finance",
            ("Gwendolyn Aspley", "Horatio Quenby", "Imelda Stroud-Vance", "Jasper Nettlefold"),
            person=True,
        ),
        # hobbies
        EntitySpec(
            "book_club_book",
            "book club's current book",
            "hobbies",
            (
                "The Salt Cartographer",
                "Lanterns Over Vell",
                "A Winter of Small Engines",
                "The Glassblower's Debt",
                "Nine Quiet Harbours",
            ),
        ),
        EntitySpec(
            "running_club",
            "running club",
            "hobbies",
            (
                "Ridgeback Runners",
                "Dawnpatrol Joggers",
                "Mudlark Milers",
                "Heron Bank Harriers",
                "Cobblestone Striders",
            ),
        ),
        EntitySpec(
            "language_course",
            "language course",
            "hobbies",
            ("Parlance Path Level 2", "Lingomoor Intermediate", "Verbhall Evening Class", "Tonguewell B1"),
        ),
        # devices
        EntitySpec(
            "phone", "phone", "devices", ("Orbix P7", "Nuvola 12", "Tessel Nova", "Kairo X3", "Lumo Pocket 5")
        ),
        EntitySpec(
            "phone_carrier",
            "mobile carrier",
            "devices",
            ("Signalwick", "Towerly", "Hummingline", "Beaconly", "Chirrup Mobile"),
        ),
        EntitySpec(
            "photo_backup",
            "photo backup service",
            "devices",
            ("Memorystack", "Picturehold", "Albumoor", "Shutterbin", "Snapcellar"),
        ),
        EntitySpec(
            "laptop",
            "laptop",
            "devices",
            ("Slateform 14", "Brightleaf Air 13", "Corvo Book Pro", "Quill Notebook 15", "Ashbook S2"),
        ),
        # travel
        EntitySpec(
            "trip_destination",
            "summer trip destination",
            "travel",
            (
                "Isle of Carrowmere",
                "the Vellanic Coast",
                "Port Aubrenne",
                "Lake Tessin Hollow",
                "Mount Orrinvale",
            ),
        ),
        EntitySpec(
            "airline",
            "airline for the trip",
            "travel",
            ("Aerwyn Airways", "Bluekite Air", "Northgull", "Swallowtail Air", "Cirrowind Air"),
        ),
        EntitySpec(
            "hotel",
            "hotel for the trip",
            "travel",
            ("Saltmarsh Inn", "Hotel Verdance", "The Lantern Quay", "Driftwood Grand", "Auberge Calloway"),
        ),
        EntitySpec(
            "travel_insurer",
            "travel insurer",
            "travel",
            ("Wanderguard", "Tripshield Mutual", "Roamwell Cover", "Passage Assurance", "Voyager Oak"),
        ),
    ),
    verbatim=(
        VerbatimSpec("wifi_password", "home Wi-Fi password", "verbatim", "wifi_password"),
        VerbatimSpec("plum_loaf_recipe", "grandmother's plum loaf recipe card", "verbatim", "recipe_note"),
        VerbatimSpec("policy_number", "home insurance policy number", "verbatim", "policy_number"),
        VerbatimSpec("locker_code", "gym locker combination and note", "verbatim", "locker_code"),
    ),
    edges=(
        Edge("home_town", "neighbourhood", "location_coupling"),
        Edge("home_town", "internet_provider", "location_coupling"),
        Edge("home_town", "kid_school", "location_coupling"),
        Edge("home_town", "vet_clinic", "location_coupling"),
        Edge("home_town", "dentist", "location_coupling"),
        Edge("neighbourhood", "apartment_building", "location_coupling"),
        Edge("neighbourhood", "grocery_store", "location_coupling"),
        Edge("neighbourhood", "coffee_shop", "location_coupling"),
        Edge("neighbourhood", "gym", "location_coupling"),
        Edge("apartment_building", "landlord", "household"),
        Edge("apartment_building", "parking_spot", "household"),
        Edge("gym", "workout_class", "routine_coupling"),
        Edge("employer", "office", "employer_coupling"),
        Edge("employer", "health_insurer", "employer_coupling"),
        Edge("employer", "manager", "employer_coupling"),
        Edge("employer", "work_schedule", "employer_coupling"),
        Edge("office", "commute", "routine_coupling"),
        Edge("office", "lunch_spot", "routine_coupling"),
        Edge("health_insurer", "doctor", "provider_network"),
        Edge("health_insurer", "pharmacy", "provider_network"),
        Edge("health_insurer", "physio", "provider_network"),
        Edge("doctor", "diet_plan", "health_regimen"),
        Edge("diet_plan", "meal_kit", "health_regimen"),
        Edge("diet_plan", "supplement", "health_regimen"),
        Edge("diet_plan", "favourite_restaurant", "health_regimen"),
        Edge("kid_school", "after_school", "family_schedule"),
        Edge("kid_school", "school_bus", "family_schedule"),
        Edge("after_school", "babysitter", "family_schedule"),
        Edge("after_school", "piano_teacher", "family_schedule"),
        Edge("work_schedule", "babysitter", "family_schedule"),
        Edge("work_schedule", "dog_walker", "routine_coupling"),
        Edge("car", "car_insurer", "vehicle_coupling"),
        Edge("car", "mechanic", "vehicle_coupling"),
        Edge("vet_clinic", "pet_food", "pet_care"),
        Edge("vet_clinic", "groomer", "pet_care"),
        Edge("bank", "credit_card", "financial_link"),
        Edge("bank", "budgeting_app", "financial_link"),
        Edge("bank", "accountant", "financial_link"),
        Edge("trip_destination", "airline", "travel_plan"),
        Edge("trip_destination", "hotel", "travel_plan"),
        Edge("trip_destination", "travel_insurer", "travel_plan"),
        Edge("phone", "phone_carrier", "device_ecosystem"),
        Edge("phone", "photo_backup", "device_ecosystem"),
        Edge("laptop", "photo_backup", "device_ecosystem"),
    ),
)

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
        f"- {rng.randint(2, 4)} eggs, {rng.randint(18, 26) * 10} g spelt flour, {rng.randint(7, 13) * 10} g dark sugar\n"
        f"- {rng.randint(5, 9)} ripe plums, halved; a pinch of cardamom\n"
        f"- bake {rng.randint(38, 56)} min at {rng.randint(160, 185)} C, rest {rng.randint(8, 20)} min before slicing"
    )


def _policy_number(rng: random.Random) -> str:
    return f"SHM-{_code(rng, 2, string.ascii_uppercase)}-{rng.randint(1000, 9999)}-{rng.randint(100, 999)}-{_code(rng, 1)}"


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
