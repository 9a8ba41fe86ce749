"""The paired view's data: the series a reader may pair (one system of one run) and McNemar's exact test
of every two series under every judge, from the same verdict letters the page counts.

Two series are paired on the questions (``unit_id/question_id``) both were asked and a judge decided
(pass or fail) for both; undecided, failed and unjudged verdicts are left out, as the page's counts
leave them out. The page computes the discordant pairs itself (it lists them) and shows the p-value
from here beside them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

from memsuite.eval.analysis.stats import mcnemar_exact
from memsuite.eval.report.html.questions import QuestionData

#: Verdict letters that decided.
DECIDED = ("p", "f")


def series(data: QuestionData, run_systems: Mapping[str, Sequence[str]]) -> list[list[Any]]:
    """``[run position, system position, "run / system"]`` for every system with rows, run by run."""
    found = []
    for r, run in enumerate(data.runs):
        for system in run_systems.get(run, ()):
            if system in data.systems:
                found.append([r, data.systems.index(system), f"{run} / {system}"])
    return found


def mcnemar_table(data: QuestionData, pairs_of: Sequence[Sequence[Any]]) -> dict[str, list[Any]]:
    """``"i-k-j"`` (series ``i`` < ``k``, judge ``j``) -> ``[i passes only, k passes only, p]`` for each
    pair of ``pairs_of`` (from :func:`series`) and judge with at least one question decided for both."""
    verdicts: dict[tuple[int, int], dict[str, str]] = {}
    for entry in data.index:
        verdicts.setdefault((entry[0], entry[1]), {})[f"{entry[2]}/{entry[3]}"] = entry[6]
    table: dict[str, list[Any]] = {}
    for (i, a), (k, b) in combinations(enumerate(pairs_of), 2):
        va, vb = verdicts.get((a[0], a[1]), {}), verdicts.get((b[0], b[1]), {})
        shared = [key for key in va if key in vb]
        for j in range(len(data.judges)):
            both = [(va[key][j], vb[key][j]) for key in shared]
            both = [(x, y) for x, y in both if x in DECIDED and y in DECIDED]
            if not both:
                continue
            test = mcnemar_exact([x == "p" for x, _ in both], [y == "p" for _, y in both])
            table[f"{i}-{k}-{j}"] = [test.a_only, test.b_only, test.p_value]
    return table
