"""Paired comparison of two systems on the same questions: per task or category, the difference of
their rates with its paired-bootstrap interval and, for binary verdicts, the exact McNemar test.

The two sides are a system of one run and a system of another run (or of the same run). Each
benchmark says what a question's outcome is under a judge -- the value its rates average, in the
cell it counts in -- with an :class:`OutcomeSpec` its definition names (``BenchmarkDefinition.outcomes``).
The questions are paired by (unit, question id, cell); two sides whose question sets differ are
refused, naming the questions one side lacks, since a difference over different questions is not a
paired difference.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from memsuite.eval.analysis.stats import (
    LEVEL,
    MIN_N,
    MIN_UNITS,
    RESAMPLES,
    SEED,
    Interval,
    bootstrap_interval,
    mcnemar_exact,
    paired_difference,
    point_estimate,
)
from memsuite.eval.definition import BenchmarkDefinition
from memsuite.eval.hooks import Outcome, OutcomeSpec
from memsuite.eval.report.layout import slug
from memsuite.eval.report.model import Section, Table
from memsuite.eval.run.folder import RunFolder
from memsuite.memory_systems.errors import ConfigError

#: The row of the overall difference.
OVERALL = "overall"


def outcome_spec(found: BenchmarkDefinition) -> OutcomeSpec:
    """How the questions of the benchmark ``found`` defines are compared (its ``outcomes``).

    Raises:
        ConfigError: The benchmark declares none.
    """
    if found.outcomes is not None:
        return found.outcomes
    raise ConfigError(no_outcomes(found.name))


def no_outcomes(benchmark: str) -> str:
    """What a benchmark that declares no outcomes cannot do."""
    return f"{benchmark!r} has no per-question outcomes to compare systems on"


@dataclass(frozen=True)
class Side:
    """One side of a comparison: a system of a run."""

    run: RunFolder
    system: str
    name: str
    """Its name in tables: the system, or run/system when the runs differ."""


def sides(run_a: RunFolder, system_a: str, run_b: RunFolder, system_b: str) -> tuple[Side, Side]:
    """The two sides, named by system when both are of one run, else by run/system (or run alone
    when the system is the same)."""
    if run_a.path == run_b.path:
        names = (system_a, system_b)
    elif system_a == system_b:
        names = (run_a.name, run_b.name)
    else:
        names = (f"{run_a.name}/{system_a}", f"{run_b.name}/{system_b}")
    if names[0] == names[1]:
        names = (f"A: {names[0]}", f"B: {names[1]}")
    return Side(run_a, system_a, names[0]), Side(run_b, system_b, names[1])


def _judges(run: RunFolder, system: str) -> set[str]:
    return {name for row in run.rows(system) for name in row.verdicts}


def pick_judge(spec: OutcomeSpec, a: Side, b: Side, judge: str | None) -> str:
    """The judge to compare under: ``judge`` when both sides have it, else the first preferred one.

    Raises:
        ConfigError: No judge both sides carry (or ``judge`` missing on a side).
    """
    both = (_judges(a.run, a.system) & _judges(b.run, b.system)) | set(spec.derived)
    if judge is not None:
        if judge not in both:
            raise ConfigError(f"judge {judge!r} is not on both sides (both have: {', '.join(sorted(both))})")
        return judge
    for name in spec.judges:
        if name in both:
            return name
    raise ConfigError(f"no judge both sides carry among {', '.join(spec.judges)}")


def paired_outcomes(spec: OutcomeSpec, a: Side, b: Side, judge: str) -> list[tuple[Outcome, Outcome]]:
    """The two sides' outcomes on the same questions, in a's order.

    Raises:
        ConfigError: The sides were asked different questions, or score different ones (a question
            left out on one side only, e.g. by a failed call): the message counts and names them.
    """
    if a.run.benchmark != b.run.benchmark:
        raise ConfigError(
            f"cannot pair {a.name} ({a.run.benchmark}) with {b.name} ({b.run.benchmark}): "
            "different benchmarks"
        )
    asked = [{(r.unit_id, r.question_id) for r in side.run.rows(side.system)} for side in (a, b)]
    if asked[0] != asked[1]:
        raise ConfigError(_difference("were asked different questions", a, b, asked[0], asked[1]))
    found = [
        {(o.unit, o.question, o.cell): o for o in spec.outcomes(side.run.rows(side.system), judge)}
        for side in (a, b)
    ]
    if found[0].keys() != found[1].keys():
        raise ConfigError(
            _difference(
                f"score different questions under judge {judge!r}", a, b, set(found[0]), set(found[1])
            )
            + " (a question left out on one side, e.g. by a failed call, cannot be paired)"
        )
    return [(found[0][key], found[1][key]) for key in found[0]]


def _difference(what: str, a: Side, b: Side, left: set, right: set) -> str:
    only_a, only_b = sorted(left - right), sorted(right - left)
    example = ", ".join("/".join(map(str, key)) for key in (only_a or only_b)[:3])
    return (
        f"cannot pair {a.name} with {b.name}: they {what} -- {len(only_a)} only in {a.name}, "
        f"{len(only_b)} only in {b.name} (e.g. {example})"
    )


@dataclass(frozen=True)
class CellComparison:
    """The paired comparison of one cell (task, category, or overall)."""

    cell: str
    n: int
    rate_a: float
    rate_b: float
    difference: Interval
    """a - b with its paired-bootstrap interval."""
    p_value: float | None
    """Exact McNemar p (binary values only), else None."""
    a_only: int | None
    b_only: int | None


def _compare(cell: str, pairs: list[tuple[Outcome, Outcome]], by_cell: bool) -> CellComparison:
    a = [x.value for x, _ in pairs]
    b = [y.value for _, y in pairs]
    units = [x.unit for x, _ in pairs]
    groups = [x.cell for x, _ in pairs] if by_cell else None
    difference = paired_difference(a, b, units, groups)
    rate_a, rate_b = point_estimate(a, groups), point_estimate(b, groups)
    binary = all(v in (0.0, 1.0) for v in (*a, *b))
    test = mcnemar_exact([v == 1.0 for v in a], [v == 1.0 for v in b]) if binary else None
    return CellComparison(
        cell,
        len(pairs),
        rate_a,
        rate_b,
        difference,
        test.p_value if test else None,
        test.a_only if test else None,
        test.b_only if test else None,
    )


def compare(spec: OutcomeSpec, a: Side, b: Side, judge: str) -> list[CellComparison]:
    """Per cell (in the spec's order) and overall: rates, difference, interval, McNemar p."""
    pairs = paired_outcomes(spec, a, b, judge)
    cells = list(dict.fromkeys([*(c for c in spec.cells if any(x.cell == c for x, _ in pairs))]))
    cells += sorted({x.cell for x, _ in pairs} - set(cells))
    out = [_compare(cell, [p for p in pairs if p[0].cell == cell], False) for cell in cells]
    overall = [p for p in pairs if p[0].in_overall]
    if overall:
        out.append(_compare(OVERALL, overall, spec.overall_is_mean_of_cells))
    return out


def comparison_table(
    spec: OutcomeSpec, a: Side, b: Side, judge: str, name: str = "compare", title: str | None = None
) -> Table:
    """The comparison as a report table (one row per cell, overall last)."""
    rows = compare(spec, a, b, judge)
    records = [
        {
            "cell": c.cell,
            "n": c.n,
            a.name: c.rate_a,
            b.name: c.rate_b,
            "difference": c.difference.value,
            "95% lo": c.difference.lo,
            "95% hi": c.difference.hi,
            "McNemar p": c.p_value,
            f"only {a.name}": c.a_only,
            f"only {b.name}": c.b_only,
            "reading": _reading(c, a.name, b.name),
        }
        for c in rows
    ]
    columns = ("cell", "n", a.name, b.name, "difference", "95% lo", "95% hi", "McNemar p",
               f"only {a.name}", f"only {b.name}", "reading")  # fmt: skip
    overall_note = (
        "overall: the mean of the cell rates (as the benchmark's Overall), its interval resampling units"
        if spec.overall_is_mean_of_cells
        else "overall: over every question the benchmark's overall rate counts"
    )
    notes = (
        f"judge: {judge}; difference = {a.name} - {b.name} over the same questions; 95% lo / hi: "
        f"{LEVEL:.0%} paired bootstrap ({RESAMPLES} resamples, seed {SEED}) of the per-question "
        f"differences, resampling {spec.unit}s whole, both systems together.",
        f"McNemar p: exact two-sided test on the questions exactly one system passed (only {a.name} / "
        f"only {b.name}); a dash where values are scores, not verdicts. reading: 'not significant' when "
        f"the interval holds 0 or p >= 0.05; 'too few' below {MIN_N} questions or {MIN_UNITS} {spec.unit}s.",
        overall_note + ".",
    )
    return Table.from_records(
        name, title or f"{a.name} vs {b.name}", columns, records, notes, {"McNemar p": ".3g"}
    )


def _reading(c: CellComparison, a: str, b: str) -> str:
    if c.difference.too_small:
        return "too few"
    holds_zero = c.difference.lo <= 0.0 <= c.difference.hi
    if holds_zero or (c.p_value is not None and c.p_value >= 0.05):
        return "not significant"
    return f"{a if c.difference.value > 0 else b} higher"


def base_variant(values: Sequence[object], base_value: object) -> int | None:
    """Index of the ablation variant holding the base config's value of the swept key, or None."""
    return next((i for i, v in enumerate(values) if v == base_value), None)


def sweep_comparisons(
    runs: Sequence[RunFolder],
    reference: int,
    key: str,
    is_base: bool = True,
    *,
    spec: OutcomeSpec | None,
) -> Section:
    """Each variant against the reference variant, per system: one paired comparison table each.

    ``is_base``: the reference holds the base config's value (else it is the first variant, the base
    value not being swept). ``spec``: the benchmark's outcomes (its definition's; None when it declares
    none). A pair the benchmark cannot compare (no outcomes, different questions -- a swept key that
    changes the data) is named in the section's notes with the reason.
    """
    base = runs[reference]
    why = "the base config's value" if is_base else "the first variant: the base config's value is not swept"
    section = Section(f"Paired comparison against {key} = {base.name} ({why})")
    if spec is None:
        section.notes.append(no_outcomes(base.benchmark))
        return section
    for run in runs:
        if run is base:
            continue
        for system in run.systems:
            if system not in base.systems:
                continue
            a, b = sides(run, system, base, system)
            a, b = replace(a, name=f"{key}={run.name}"), replace(b, name=f"{key}={base.name}")
            try:
                judge = pick_judge(spec, a, b, None)
                name = f"compare_{slug(run.label)}_vs_{slug(base.label)}_{slug(system)}"
                section.tables.append(
                    comparison_table(spec, a, b, judge, name, f"{system}: {a.name} vs {b.name}")
                )
            except ConfigError as exc:
                section.notes.append(f"{system}, {a.name} vs {b.name}: not compared -- {exc}")
    return section


@dataclass(frozen=True)
class Headline:
    """A system's headline metric in a run: its name, the judge and the rate with its interval."""

    name: str
    judge: str
    interval: Interval


def run_judge(spec: OutcomeSpec, *runs: RunFolder) -> str | None:
    """The most preferred judge of ``spec`` that every system of the runs carries (one judge for all the
    points of a sweep)."""
    carried = [_judges(run, s) | set(spec.derived) for run in runs for s in run.systems]
    return next((j for j in spec.judges if carried and all(j in c for c in carried)), None)


def headline(
    run: RunFolder, system: str, judge: str | None = None, *, spec: OutcomeSpec | None
) -> Headline | None:
    """The benchmark's headline rate of one system (its overall outcomes ``spec``, resampling units),
    or None when the benchmark declares no outcomes (``spec`` None) or the run carries none of its
    judges."""
    if spec is None:
        return None
    judge = judge or run_judge(spec, run)
    if judge is None:
        return None
    overall = [o for o in spec.outcomes(run.rows(system), judge) if o.in_overall]
    groups = [o.cell for o in overall] if spec.overall_is_mean_of_cells else None
    interval = bootstrap_interval([o.value for o in overall], [o.unit for o in overall], groups)
    name = spec.judge_headlines.get(judge, spec.headline)
    return Headline(name, judge, interval) if interval is not None else None
