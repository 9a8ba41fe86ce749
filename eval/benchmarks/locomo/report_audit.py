"""The LoCoMo report's audited-key tables: per answer judge, each system's score under the original and
the audited key (:mod:`.audit`), the AMBIGUOUS questions apart, the verdicts the audit flips, and the
original key's ceiling per category (the best a perfect system can score against it)."""

from __future__ import annotations

from collections.abc import Sequence

from memsuite.eval.benchmarks.locomo.schema import CATEGORY_NAMES, CATEGORY_ORDER
from memsuite.eval.benchmarks.locomo.scoring import audited_value, category_cells
from memsuite.eval.report.intervals import interval_note
from memsuite.eval.report.kit import JudgeScores, Records, percent, rate_intervals
from memsuite.eval.report.layout import run_cell
from memsuite.eval.report.model import Table
from memsuite.eval.run.folder import RunFolder

MAIN = tuple(CATEGORY_NAMES[c] for c in CATEGORY_ORDER if c != 5)
ADVERSARIAL = CATEGORY_NAMES[5]
NOTES = (
    "Audited key: the questions whose gold the LoCoMo audit (dial481/locomo-audit errors.json) marks "
    "wrong are judged against its correct_answer, and retrieval against its correct_evidence; "
    "WRONG_CITATION findings change retrieval only. AMBIGUOUS questions are left out of the audited "
    "rates: 'ambiguous n' counts them, 'ambiguous' is their original-key score.",
    "flips: decided verdicts the audited key turns right (-> right) or wrong (-> wrong).",
    "original-key ceiling: per category, the share of questions whose gold the audit does not mark wrong "
    "or ambiguous -- the most any system can score against the original key.",
)


#: Where LoCoMo's summarize keeps each judge's scores under the audited key.
AUDITED = "by_judge_audited"


def _audited(run: RunFolder, system: str, judge: str) -> JudgeScores | None:
    return run.scores(system).judge_set(AUDITED).get(judge)


def audit_tables(runs: Sequence[RunFolder], systems: Sequence[str], prefix: tuple[str, ...]) -> list[Table]:
    """One table per judge that has audited scores (none when no run used the audit)."""
    judges = sorted({j for run in runs for s in run.systems for j in run.scores(s).judge_set(AUDITED)})
    tables = []
    for judge in judges:
        records = Records()
        for system in systems:
            for run in runs:
                audited = _audited(run, system, judge)
                if audited is None:
                    continue
                original = run.scores(system).judge(judge) or JudgeScores()
                record = {
                    **run_cell(run, prefix),
                    "system": system,
                    **{name: percent(audited.at("categories", name, "mean")) for name in MAIN},
                    "overall": percent(audited.at("overall", "mean")),
                    "overall (original key)": percent(original.at("overall", "mean")),
                    ADVERSARIAL: percent(audited.at("categories", ADVERSARIAL, "mean")),
                    "n": audited.at("overall", "n"),
                    "ambiguous n": audited.at("ambiguous", "n"),
                    "ambiguous": percent(audited.at("ambiguous", "mean")),
                    "-> right": audited.at("flips", "to_right"),
                    "-> wrong": audited.at("flips", "to_wrong"),
                }
                with_adversarial = bool(run.scores(system).at("adversarial_in_overall"))
                found = rate_intervals(
                    run.rows(system),
                    lambda row, j=judge: audited_value(row, j)[0],
                    lambda row, w=with_adversarial: category_cells(row, w),
                    unit=lambda row: row.unit_id,
                )
                records.add(record, found)
        for run in runs:
            owner = next((run.scores(s) for s in run.systems if _audited(run, s, judge)), None)
            if owner is not None and owner.part("original_key_ceiling"):
                records.add(
                    {
                        **run_cell(run, prefix),
                        "system": "original-key ceiling",
                        **{name: percent(owner.at("original_key_ceiling", name, "ceiling")) for name in MAIN},
                        "overall (original key)": percent(
                            owner.at("original_key_ceiling", "overall", "ceiling")
                        ),
                        "n": owner.at("original_key_ceiling", "overall", "n"),
                    }
                )
        columns = (
            *prefix, "system", *MAIN, "overall", "overall (original key)", ADVERSARIAL, "n", "ambiguous n",
            "ambiguous", "-> right", "-> wrong",
        )  # fmt: skip
        rates = (*MAIN, "overall", "overall (original key)", ADVERSARIAL, "ambiguous")
        tables.append(
            records.table(
                f"locomo_{judge}_audited",
                f"LoCoMo -- judge: {judge}, audited answer key",
                columns,
                (*NOTES, interval_note("conversation")),
                {c: ".1f" for c in rates},
            )
        )
    return tables
