"""The toy's report section and its per-question outcomes for ``memsuite compare``."""

from memsuite.eval.analysis.compare import Outcome, OutcomeSpec
from memsuite.eval.report.model import Section, Table


def render(runs, options) -> Section:
    rows = [(run.label, system, run.scores(system).get("found")) for run in runs for system in run.systems]
    return Section("Toy capitals", [Table("toy_found", "Capital found", ("run", "system", "found"), rows)])


def _outcomes(rows, judge):
    return [
        Outcome(r.unit_id, r.question_id, "capitals", float(r.verdicts[judge]["correct"]))
        for r in rows
        if judge in r.verdicts
    ]


OUTCOMES = OutcomeSpec(_outcomes, ("found",), "country")
