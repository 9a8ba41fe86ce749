"""``memsuite compare``: the paired comparison of two systems (:mod:`memsuite.eval.analysis.compare`) from the
command line -- two systems of one run, or a system of each of two runs."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING

from memsuite.memory_systems.errors import ConfigError

if TYPE_CHECKING:  # the CLI imports this module at start; reports load only when the command runs
    from memsuite.eval.analysis.compare import Side
    from memsuite.eval.run.folder import RunFolder


def choose_sides(runs: Sequence[RunFolder], systems: Sequence[str]) -> tuple[Side, Side]:
    """The two sides named by the command's runs and ``--systems``.

    One run: ``systems`` names two of its systems (default: its only two). Two runs: no name -- the
    one system both share, or each run's only system; one name -- that system in both; two names --
    the first of run A, the second of run B.

    Raises:
        ConfigError: The choice is ambiguous or names a system a run lacks.
    """
    from memsuite.eval.analysis.compare import sides

    if len(runs) not in (1, 2) or len(systems) > 2:
        raise ConfigError("compare takes one run with two systems, or two runs (and at most two --systems)")
    run_a, run_b = runs[0], runs[-1]
    if len(runs) == 1:
        picked = list(systems) or (run_a.systems if len(run_a.systems) == 2 else [])
        if len(picked) != 2:
            raise ConfigError(
                f"{run_a.label} has systems {', '.join(run_a.systems)}: name two with --systems A B"
            )
    elif len(systems) == 2:
        picked = list(systems)
    elif len(systems) == 1:
        picked = [systems[0], systems[0]]
    else:
        shared = [s for s in run_a.systems if s in run_b.systems]
        if len(shared) == 1:
            picked = [shared[0], shared[0]]
        elif len(run_a.systems) == 1 and len(run_b.systems) == 1:
            picked = [run_a.systems[0], run_b.systems[0]]
        else:
            raise ConfigError(
                f"name the systems with --systems: {run_a.label} has {', '.join(run_a.systems)}, "
                f"{run_b.label} has {', '.join(run_b.systems)}"
            )
    for run, system in ((run_a, picked[0]), (run_b, picked[1])):
        if system not in run.systems:
            raise ConfigError(f"{run.label} has no system {system!r} (it has {', '.join(run.systems)})")
    return sides(run_a, picked[0], run_b, picked[1])


def cmd_compare(args: argparse.Namespace) -> int:
    from memsuite.eval.analysis.compare import comparison_table, outcome_spec, pick_judge
    from memsuite.eval.registry import definition
    from memsuite.eval.report.document import table_csv, table_markdown
    from memsuite.eval.run.folder import load_runs

    a, b = choose_sides(load_runs(args.runs), args.systems or ())
    spec = outcome_spec(definition(a.run.benchmark))
    judge = pick_judge(spec, a, b, args.judge)
    table = comparison_table(spec, a, b, judge)
    print(table_csv(table) if args.csv else f"### {table.title}\n\n{table_markdown(table)}", end="\n")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``compare`` on the CLI's subcommands."""
    p = sub.add_parser(
        "compare",
        help="paired comparison of two systems on the same questions: difference, interval, McNemar p",
    )
    p.add_argument("runs", nargs="+", help="one run folder (two of its systems) or two run folders")
    p.add_argument("--systems", nargs="+", metavar="SYSTEM", help="system of A and of B (one name: both)")
    p.add_argument("--judge", help="judge whose verdicts to compare (default: the benchmark's first present)")
    p.add_argument("--csv", action="store_true", help="print CSV instead of Markdown")
    p.set_defaults(func=cmd_compare)
