"""Deterministic MEME episode generator (docs/benchmarks/meme.md), written in the released schema.

Per episode (one domain from :mod:`memsuite.eval.benchmarks.meme.generator.domains`):

* **Roles.** A *root* with at least two dependents; a 1-hop dependent ``X1`` (Cas) and another
  ``X2`` (Abs); sometimes (``has_2hop``) dependents of ``X1`` one hop further, a Cas and/or an Abs
  target. Outside the root's descendants: a Tr entity, three Agg entities, a Del entity, and a
  verbatim Exact Recall entity.
* **Sessions.** ``[F][1a][F][1b][F][1c][F][Part 2][F]`` -> before-questions -> ``[Change + Delete][F]``
  -> after-questions, where each ``[F]`` is a run of filler sessions. 1a introduces the root, ``X1``,
  ``X2``, the first Tr value and an Agg value; 1b the 2-hop values, the second Tr value, an Agg value
  and the Del value; 1c the third Tr value, the last Agg value and the verbatim value; Part 2 states
  the dependencies (Cas: "X depends on Y; if Y changes, X will be Z"; Abs: "X depends on Y"); the
  change session changes the root and asks to forget the Del fact.
* **Questions and gold.** Before-questions (ER, Del, Cas, Abs) expect the current value. After:
  ER the verbatim value; Agg the three values comma-joined; Tr the three values in order
  comma-joined; Del ``No — explicitly removed``; Cas the value the rule declared; Abs
  ``Uncertain — previously '<old>', but <owner> <source> changed``.
* **Time.** The first session is at 2023/03/01 (Wed) 09:00; every session, and each question set,
  comes 2-48 hours (uniform, whole minutes) after the previous one.
* **Filler.** ``none`` / ``32k`` / ``128k`` -> 0 / 32,000 / 128,000 cl100k tokens of filler turns
  per episode (content only; see :func:`.filler.filler_sessions` for the tolerance),
  spread over the six filler slots with random weights.

Determinism: ``generate_episodes(n, seed=s)`` draws one 64-bit seed per episode from
``random.Random(s)``; an episode is a function of its seed alone. Each episode seeds separate
generators for evidence, filler and time first, so the evidence (values, dialogues, questions) of an
episode is identical across the three filler settings -- which is what a filler-noise curve needs.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from memsuite.eval.benchmarks.meme.generator.dialogue import FactPlan, evidence_dialogue, templates
from memsuite.eval.benchmarks.meme.generator.domains import (
    DOMAINS,
    VERBATIM_MAKERS,
    Domain,
    EntitySpec,
    VerbatimSpec,
)
from memsuite.eval.benchmarks.meme.generator.filler import conversation_tokens, filler_sessions
from memsuite.eval.benchmarks.meme.schema import (
    DELETION_GOLD,
    DependencyEdge,
    Episode,
    EpisodeSession,
    GoldFact,
    Question,
    QuestionSet,
    Task,
    abs_gold,
)
from memsuite.memory_systems.errors import ConfigError
from memsuite.memory_systems.records import Turn

logger = logging.getLogger(__name__)

#: Bumped whenever the same seed would produce different episodes.
GENERATOR_VERSION = 1
#: Filler setting -> cl100k tokens of filler per episode.
FILLER_BUDGETS = {"none": 0, "32k": 32_000, "128k": 128_000}
#: Time of the first session of every episode.
START_TIME = datetime(2023, 3, 1, 9, 0, tzinfo=UTC)
#: Gap between consecutive sessions (and question sets), in minutes.
GAP_MINUTES = (2 * 60, 48 * 60)
#: Evidence session names (``evidence_type``) in layout order.
EVIDENCE_TYPES = ("fact_intro_1a", "fact_intro_1b", "fact_intro_1c", "part2_dependencies", "change_delete")

_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")  # locale-independent, unlike %a
_FILLER_SLOTS = 6  # before 1a, after 1a, after 1b, after 1c, after Part 2, after the change


def format_timestamp(moment: datetime) -> str:
    """Format a time as MEME does: ``"2023/03/05 (Sun) 11:24"``.

    Args:
        moment: The time.

    Returns:
        ``YYYY/MM/DD (Ddd) HH:MM``.
    """
    return f"{moment:%Y/%m/%d} ({_WEEKDAYS[moment.weekday()]}) {moment:%H:%M}"


def generate_episodes(
    n: int,
    *,
    seed: int,
    filler: str = "none",
    domains: Sequence[str] = ("personal_life", "software_project"),
    phrasing: str = "dev",
) -> list[Episode]:
    """Generate ``n`` episodes, alternating over ``domains``.

    Args:
        n: Number of episodes.
        seed: Master seed; the same seed gives the same episodes (in every filler setting the same
            evidence).
        filler: ``none``, ``32k`` or ``128k``.
        domains: Domain names to alternate over; ids are numbered per domain (``pl_001``, ``sw_001``, ...).
        phrasing: ``dev`` (default), ``dev2``, ``dev3``, ``dev4`` or ``heldout``: the dialogue's phrasing
            family (:data:`.dialogue.PHRASINGS`); the values, questions and gold are drawn from the same seed
            in every family.

    Returns:
        The episodes in order.

    Raises:
        ConfigError: Unknown filler setting, domain or phrasing, or a negative ``n``.
    """
    templates(phrasing)  # refuse an unknown family before any work
    if n < 0:
        raise ConfigError(f"number of episodes must be >= 0, got {n}")
    _check_filler(filler)
    unknown = [d for d in domains if d not in DOMAINS]
    if unknown or not domains:
        raise ConfigError(f"unknown MEME domain(s) {unknown or domains!r}; known: {', '.join(DOMAINS)}")
    master = random.Random(seed)
    counters = dict.fromkeys(domains, 0)
    episodes = []
    for i in range(n):
        domain = domains[i % len(domains)]
        counters[domain] += 1
        episode_seed = master.getrandbits(64)
        episode_id = f"{DOMAINS[domain].prefix}_{counters[domain]:03d}"
        episodes.append(
            generate_episode(
                episode_seed, episode_id=episode_id, domain=domain, filler=filler, phrasing=phrasing
            )
        )
        logger.info("generated %s (%s sessions)", episode_id, len(episodes[-1].sessions))
    return episodes


def generate_episode(
    episode_seed: int, *, episode_id: str, domain: str, filler: str = "none", phrasing: str = "dev"
) -> Episode:
    """Generate one episode from its own seed.

    Args:
        episode_seed: Seed of this episode (``generate_episodes`` draws it from the master seed).
        episode_id: Id to give it (``pl_NNN`` / ``sw_NNN``).
        domain: ``personal_life`` or ``software_project``.
        filler: ``none``, ``32k`` or ``128k``.
        phrasing: ``dev``, ``dev2``, ``dev3``, ``dev4`` or ``heldout`` (see :func:`generate_episodes`).

    Returns:
        The episode, in the released schema.

    Raises:
        ConfigError: Unknown filler setting or domain.
    """
    _check_filler(filler)
    if domain not in DOMAINS:
        raise ConfigError(f"unknown MEME domain {domain!r}; known: {', '.join(DOMAINS)}")
    rng = random.Random(episode_seed)
    # Filler and time get their own generators, drawn before any evidence, so the evidence does not
    # depend on the filler setting.
    filler_rng = random.Random(rng.getrandbits(64))
    time_rng = random.Random(rng.getrandbits(64))
    dom = DOMAINS[domain]
    plan = _plan_roles(rng, dom)
    _assign_values(rng, dom, plan)
    evidence = _evidence_sessions(rng, dom, plan, phrasing)
    fillers = filler_sessions(filler_rng, FILLER_BUDGETS[filler])
    episode = _assemble(
        episode_id,
        episode_seed,
        dom,
        plan,
        evidence,
        fillers,
        filler,
        filler_rng=filler_rng,
        time_rng=time_rng,
    )
    if phrasing != "dev":  # dev episodes stay byte-identical to earlier releases
        episode.extra["generator"]["phrasing"] = phrasing
    return episode


def _check_filler(filler: str) -> None:
    if filler not in FILLER_BUDGETS:
        raise ConfigError(f"unknown filler setting {filler!r}; expected one of {', '.join(FILLER_BUDGETS)}")


# ----------------------------------------------------------------------------------------------------
# Roles and values


@dataclass
class _Plan:
    """Who plays which role in one episode, and their values (filled by :func:`_assign_values`)."""

    root: str
    cas1: str
    abs1: str
    cas2: str | None
    abs2: str | None
    tracking: str
    aggregation: tuple[str, str, str]
    deletion: str
    verbatim: VerbatimSpec
    values: dict[str, list[str]] | None = None
    """eid -> values: root [old, new]; Cas [old, rule value]; Tr [v1, v2, v3]; others [value]."""

    @property
    def has_2hop(self) -> bool:
        return self.cas2 is not None or self.abs2 is not None

    @property
    def chain(self) -> list[str]:
        return [e for e in (self.root, self.cas1, self.abs1, self.cas2, self.abs2) if e is not None]

    @property
    def outside(self) -> list[str]:
        return [self.tracking, *self.aggregation, self.deletion, self.verbatim.eid]


def _plan_roles(rng: random.Random, dom: Domain) -> _Plan:
    root = rng.choice(dom.roots())
    children = dom.children(root)

    def grandchildren(child: str) -> list[str]:
        # Not also a direct dependent of the root: a 2-hop entity must be reached only through X1.
        return [g for g in dom.children(child) if g not in children and g != root]

    two_hop_parents = [c for c in children if grandchildren(c)]
    has_2hop = bool(two_hop_parents) and rng.random() < 0.6
    cas1 = rng.choice(two_hop_parents if has_2hop else children)
    abs1 = rng.choice([c for c in children if c != cas1])
    cas2 = abs2 = None
    if has_2hop:
        second = grandchildren(cas1)
        rng.shuffle(second)
        if len(second) >= 2:
            cas2, abs2 = second[0], second[1]
        elif rng.random() < 0.5:
            cas2 = second[0]
        else:
            abs2 = second[0]
    affected = {root} | dom.descendants(root)
    outside = [e.eid for e in dom.entities if e.eid not in affected]
    tracking, agg1, agg2, agg3, deletion = rng.sample(outside, 5)
    return _Plan(
        root=root,
        cas1=cas1,
        abs1=abs1,
        cas2=cas2,
        abs2=abs2,
        tracking=tracking,
        aggregation=(agg1, agg2, agg3),
        deletion=deletion,
        verbatim=rng.choice(dom.verbatim),
    )


def _assign_values(rng: random.Random, dom: Domain, plan: _Plan) -> None:
    used: set[str] = set()  # values are unique within an episode, so no answer can be right by accident

    def pick(eid: str, k: int) -> list[str]:
        values = rng.sample([v for v in dom.by_id[eid].pool if v not in used], k)
        used.update(values)
        return values

    values = {plan.root: pick(plan.root, 2), plan.cas1: pick(plan.cas1, 2), plan.abs1: pick(plan.abs1, 1)}
    if plan.cas2:
        values[plan.cas2] = pick(plan.cas2, 2)
    if plan.abs2:
        values[plan.abs2] = pick(plan.abs2, 1)
    values[plan.tracking] = pick(plan.tracking, 3)
    for eid in (*plan.aggregation, plan.deletion):
        values[eid] = pick(eid, 1)
    values[plan.verbatim.eid] = [VERBATIM_MAKERS[plan.verbatim.kind](rng)]
    plan.values = values


# ----------------------------------------------------------------------------------------------------
# Evidence sessions


def _spec(dom: Domain, plan: _Plan, eid: str) -> EntitySpec | VerbatimSpec:
    return plan.verbatim if eid == plan.verbatim.eid else dom.by_id[eid]


def _evidence_sessions(
    rng: random.Random, dom: Domain, plan: _Plan, phrasing: str = "dev"
) -> list[tuple[str, list, list]]:
    """``[(evidence_type, conversation, gold_facts), ...]`` in layout order."""
    v = plan.values or {}

    def name(eid: str) -> str:
        return _spec(dom, plan, eid).name

    def state(eid: str, note: str) -> FactPlan:
        return FactPlan("state", eid, name(eid), value=v[eid][0], notes=note)

    tr = plan.tracking
    agg = plan.aggregation
    intro_a = [
        state(plan.root, "state: root of the dependency chain"),
        state(plan.cas1, "state: Cas target (1-hop), value before the change"),
        state(plan.abs1, "state: Abs target (1-hop), value before the change"),
        state(tr, "Tr value 1 of 3"),
        state(agg[0], "Agg value 1 of 3"),
    ]
    intro_b = [
        FactPlan("update", tr, name(tr), value=v[tr][1], old=v[tr][0], notes="Tr value 2 of 3"),
        state(agg[1], "Agg value 2 of 3"),
        state(plan.deletion, "Del target: stated here, deleted in the change session"),
    ]
    if plan.cas2:
        intro_b.append(state(plan.cas2, "state: Cas target (2-hop), value before the change"))
    if plan.abs2:
        intro_b.append(state(plan.abs2, "state: Abs target (2-hop), value before the change"))
    intro_c = [
        FactPlan("update", tr, name(tr), value=v[tr][2], old=v[tr][1], notes="Tr value 3 of 3"),
        state(agg[2], "Agg value 3 of 3"),
        FactPlan(
            "verbatim",
            plan.verbatim.eid,
            name(plan.verbatim.eid),
            value=v[plan.verbatim.eid][0],
            notes=f"ER target: verbatim {plan.verbatim.kind}",
        ),
    ]
    for facts in (intro_a, intro_b, intro_c):
        # Tr values stay in their sessions (1a < 1b < 1c); order within a session is free.
        rng.shuffle(facts)
    part2 = [
        FactPlan(
            "rule",
            plan.cas1,
            name(plan.cas1),
            value=v[plan.cas1][1],
            source=plan.root,
            source_name=name(plan.root),
            notes="Cas rule (1-hop): declares the value after the change",
        ),
        FactPlan(
            "dependency",
            plan.abs1,
            name(plan.abs1),
            source=plan.root,
            source_name=name(plan.root),
            notes="Abs dependency (1-hop): no rule, so the value after the change is unknown",
        ),
    ]
    if plan.cas2:
        part2.append(
            FactPlan(
                "rule",
                plan.cas2,
                name(plan.cas2),
                value=v[plan.cas2][1],
                source=plan.cas1,
                source_name=name(plan.cas1),
                notes="Cas rule (2-hop): declares the value after X1 changes",
            )
        )
    if plan.abs2:
        part2.append(
            FactPlan(
                "dependency",
                plan.abs2,
                name(plan.abs2),
                source=plan.cas1,
                source_name=name(plan.cas1),
                notes="Abs dependency (2-hop): no rule, so the value after X1 changes is unknown",
            )
        )
    change = [
        FactPlan(
            "change",
            plan.root,
            name(plan.root),
            value=v[plan.root][1],
            old=v[plan.root][0],
            notes="root change: triggers the Cas rules and makes Abs targets uncertain",
        ),
        FactPlan(
            "delete", plan.deletion, name(plan.deletion), notes="Del: the user asks to forget this fact"
        ),
    ]
    rng.shuffle(change)
    out = []
    for evidence_type, facts in zip(EVIDENCE_TYPES, (intro_a, intro_b, intro_c, part2, change), strict=True):
        conversation, gold = evidence_dialogue(
            rng, facts, domain=dom.name, owner=dom.owner, phrasing=phrasing
        )
        out.append((evidence_type, conversation, gold))
    return out


# ----------------------------------------------------------------------------------------------------
# Questions, tasks and metadata


def _ask(dom: Domain, plan: _Plan, eid: str, *, now: bool = False) -> str:
    spec = _spec(dom, plan, eid)
    verb = "Who is" if isinstance(spec, EntitySpec) and spec.person else "What is"
    return f"{verb} {dom.owner} {spec.name}{' now' if now else ''}?"


def _tasks_and_questions(dom: Domain, plan: _Plan) -> tuple[list[Task], list[Question], list[Question]]:
    v = plan.values or {}
    own = dom.owner

    def name(eid: str) -> str:
        return _spec(dom, plan, eid).name

    er = plan.verbatim.eid
    tr = plan.tracking
    agg = list(plan.aggregation)
    dl = plan.deletion
    er_q = f"What exactly is {own} {name(er)}? Quote it verbatim."
    agg_q = f"What are {own} {name(agg[0])}, {own} {name(agg[1])} and {own} {name(agg[2])}?"
    tr_q = f"What has {own} {name(tr)} been over time? List every value in chronological order."
    agg_values = [v[e][0] for e in agg]

    tasks = [
        Task(
            "ER",
            (er,),
            [v[er][0]],
            "What exactly is {owner} {entity}? Quote it verbatim.",
            v[er][0],
            notes=f"verbatim {plan.verbatim.kind}, recalled word for word",
        ),
        Task(
            "Agg",
            tuple(agg),
            agg_values,
            "What are {owner} {entity1}, {owner} {entity2} and {owner} {entity3}?",
            ", ".join(agg_values),
            notes="three outside entities, current values",
        ),
        Task(
            "Tr",
            (tr,),
            list(v[tr]),
            "What has {owner} {entity} been over time? List every value in chronological order.",
            ", ".join(v[tr]),
            notes="values stated in sessions 1a, 1b, 1c",
        ),
        Task(
            "Del",
            (dl,),
            [v[dl][0]],
            "What is {owner} {entity}?",
            DELETION_GOLD,
            notes="the user asked to forget it in the change session",
        ),
    ]
    before = [
        Question("ER", er_q, v[er][0], (er,), [v[er][0]]),
        Question("Del", _ask(dom, plan, dl), v[dl][0], (dl,), [v[dl][0]]),
    ]
    after = [
        Question("ER", er_q, v[er][0], (er,), [v[er][0]], gold_key="gold_answer"),
        Question("Agg", agg_q, ", ".join(agg_values), tuple(agg), agg_values, gold_key="gold_answer"),
        Question("Tr", tr_q, ", ".join(v[tr]), (tr,), list(v[tr]), gold_key="gold_answer"),
        Question("Del", _ask(dom, plan, dl), DELETION_GOLD, (dl,), [v[dl][0]], gold_key="gold_answer"),
    ]
    cascades = [(plan.cas1, 1, plan.root)] + ([(plan.cas2, 2, plan.cas1)] if plan.cas2 else [])
    for eid, hop, source in cascades:
        old, new = v[eid]
        tasks.append(
            Task(
                "Cas",
                (eid,),
                [old, new],
                "What is {owner} {entity} now?",
                new,
                notes=f"rule stated in Part 2; {source} changes",
                hop=hop,
                cascade_source=source,
            )
        )
        before.append(Question("Cas", _ask(dom, plan, eid), old, (eid,), [old], hop=hop))
        after.append(
            Question(
                "Cas",
                _ask(dom, plan, eid, now=True),
                new,
                (eid,),
                [old, new],
                hop=hop,
                gold_key="gold_answer",
            )
        )
    absences = [(plan.abs1, 1, plan.root)] + ([(plan.abs2, 2, plan.cas1)] if plan.abs2 else [])
    for eid, hop, source in absences:
        old = v[eid][0]
        gold = abs_gold(old, f"{own} {name(source)}")
        tasks.append(
            Task(
                "Abs",
                (eid,),
                [old],
                "What is {owner} {entity} now?",
                gold,
                notes=f"dependency stated in Part 2 without a rule; {source} changes",
                hop=hop,
                cascade_source=source,
            )
        )
        before.append(Question("Abs", _ask(dom, plan, eid), old, (eid,), [old], hop=hop))
        after.append(
            Question(
                "Abs", _ask(dom, plan, eid, now=True), gold, (eid,), [old], hop=hop, gold_key="gold_answer"
            )
        )
    return tasks, before, after


def _entities(dom: Domain, plan: _Plan) -> dict[str, dict]:
    v = plan.values or {}
    out: dict[str, dict] = {}

    def add(eid: str, role: str, task: str | None, before: str, after: str | None, **more) -> None:
        spec = _spec(dom, plan, eid)
        out[eid] = {
            "name": spec.name,
            "category": spec.category,
            "role": role,
            "task": task,
            "before": before,
            "after": after,
            **more,
        }

    add(plan.root, "root", None, v[plan.root][0], v[plan.root][1])
    add(plan.cas1, "cascade_1hop", "Cas", v[plan.cas1][0], v[plan.cas1][1], depends_on=plan.root, hop=1)
    add(plan.abs1, "absence_1hop", "Abs", v[plan.abs1][0], None, depends_on=plan.root, hop=1)
    if plan.cas2:
        add(plan.cas2, "cascade_2hop", "Cas", v[plan.cas2][0], v[plan.cas2][1], depends_on=plan.cas1, hop=2)
    if plan.abs2:
        add(plan.abs2, "absence_2hop", "Abs", v[plan.abs2][0], None, depends_on=plan.cas1, hop=2)
    add(
        plan.tracking,
        "tracking",
        "Tr",
        v[plan.tracking][2],
        v[plan.tracking][2],
        values=list(v[plan.tracking]),
    )
    for eid in plan.aggregation:
        add(eid, "aggregation", "Agg", v[eid][0], v[eid][0])
    add(plan.deletion, "deletion", "Del", v[plan.deletion][0], None, deleted=True)
    er = plan.verbatim.eid
    add(er, "exact_recall", "ER", v[er][0], v[er][0], kind=plan.verbatim.kind)
    return out


def _edges(dom: Domain, plan: _Plan) -> list[DependencyEdge]:
    pairs = [(plan.root, plan.cas1, 1), (plan.root, plan.abs1, 1)]
    pairs += [(plan.cas1, e, 2) for e in (plan.cas2, plan.abs2) if e]
    return [DependencyEdge(s, t, hop, dom.edge(s, t).pattern) for s, t, hop in pairs]


# ----------------------------------------------------------------------------------------------------
# Assembly


def _split_counts(rng: random.Random, n: int, k: int) -> list[int]:
    """``n`` items over ``k`` slots in proportion to random weights (largest remainders)."""
    weights = [rng.uniform(0.5, 1.5) for _ in range(k)]
    ideal = [n * w / sum(weights) for w in weights]
    counts = [int(x) for x in ideal]
    by_remainder = sorted(range(k), key=lambda i: ideal[i] - counts[i], reverse=True)
    for i in by_remainder[: n - sum(counts)]:
        counts[i] += 1
    return counts


def _assemble(
    episode_id: str,
    episode_seed: int,
    dom: Domain,
    plan: _Plan,
    evidence: list[tuple[str, list, list]],
    fillers: list[tuple[list[dict[str, str]], int]],
    filler: str,
    *,
    filler_rng: random.Random,
    time_rng: random.Random,
) -> Episode:
    counts = _split_counts(filler_rng, len(fillers), _FILLER_SLOTS)
    filler_iter = iter(fillers)
    clock = START_TIME
    first = True

    def tick() -> str:
        nonlocal clock, first
        if not first:
            clock += timedelta(minutes=time_rng.randint(*GAP_MINUTES))
        first = False
        return format_timestamp(clock)

    sessions: list[EpisodeSession] = []
    evidence_indices: list[int] = []
    filler_tokens = evidence_tokens = 0

    def add_fillers(count: int) -> None:
        nonlocal filler_tokens
        for _ in range(count):
            conversation, tokens = next(filler_iter)
            sessions.append(_session(episode_id, len(sessions), tick(), conversation, "filler"))
            filler_tokens += tokens

    def add_evidence(item: tuple[str, list, list]) -> None:
        nonlocal evidence_tokens
        evidence_type, conversation, gold = item
        evidence_indices.append(len(sessions))
        sessions.append(
            _session(episode_id, len(sessions), tick(), conversation, "evidence", evidence_type, gold)
        )
        evidence_tokens += conversation_tokens(conversation)

    add_fillers(counts[0])
    for slot, item in enumerate(evidence[:4], start=1):
        add_evidence(item)
        add_fillers(counts[slot])
    before_position = len(sessions) - 1
    before_time = tick()
    add_evidence(evidence[4])
    add_fillers(counts[5])
    after_time = tick()

    tasks, before_qs, after_qs = _tasks_and_questions(dom, plan)
    values = plan.values or {}
    return Episode(
        episode_id=episode_id,
        domain=dom.name,
        sessions=tuple(sessions),
        before_questions=QuestionSet("before", before_position, tuple(before_qs), before_time),
        after_questions=QuestionSet("after", len(sessions) - 1, tuple(after_qs), after_time),
        root=plan.root,
        root_change={"before": values[plan.root][0], "after": values[plan.root][1]},
        chain_entities=tuple(plan.chain),
        filler_entities=tuple(plan.outside),
        entities=_entities(dom, plan),
        has_2hop=plan.has_2hop,
        dependency_edges_used=tuple(_edges(dom, plan)),
        tasks=tuple(tasks),
        evidence_session_indices=tuple(evidence_indices),
        extra={
            "num_sessions": len(sessions),
            "num_evidence_sessions": len(evidence_indices),
            "num_filler_sessions": len(sessions) - len(evidence_indices),
            "filler_setting": filler,
            "filler_budget_tokens": FILLER_BUDGETS[filler],
            "filler_tokens": filler_tokens,
            "evidence_tokens": evidence_tokens,
            "total_tokens": filler_tokens + evidence_tokens,
            "generator": {
                "name": "memsuite.meme",
                "version": GENERATOR_VERSION,
                "episode_seed": episode_seed,
            },
        },
    )


def _session(
    episode_id: str,
    index: int,
    timestamp: str,
    conversation: list[dict[str, str]],
    session_type: str,
    evidence_type: str | None = None,
    gold: list[dict] | None = None,
) -> EpisodeSession:
    return EpisodeSession(
        session_id=f"{episode_id}_s{index:03d}",
        timestamp=timestamp,
        conversation=tuple(Turn(t["role"], t["content"]) for t in conversation),
        session_type=session_type,
        evidence_type=evidence_type,
        gold_facts=None if gold is None else tuple(_gold_fact(fact) for fact in gold),
    )


_GOLD_FACT_FIELDS = ("entity", "value", "fact_text", "conveyed_in_turn", "notes")


def _gold_fact(fact: dict) -> GoldFact:
    """A gold fact dict as a record; keys it does not model (kind, name, source, ...) go to ``extra``."""
    known = {k: fact[k] for k in _GOLD_FACT_FIELDS if k in fact}
    return GoldFact(**known, extra={k: v for k, v in fact.items() if k not in _GOLD_FACT_FIELDS})
