"""The LifeBench report section: the evidence counts in plain words, evidence recall by question type
and by the record types cited (record and day granularity), retrieval at several depths, the answer
judges by question type (multiple choice beside its majority-letter baseline), usage.

Every rate carries its 95 % interval resampling users whole (the questions of one user share its
memory). Unscored questions (no record the memory holds at the question's time) are left out of
retrieval and counted.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from memsuite.eval.analysis.compare import Outcome, OutcomeSpec
from memsuite.eval.benchmarks.lifebench.schema import DATED_TYPES, QUESTION_TYPES
from memsuite.eval.benchmarks.lifebench.scoring import evidence_counts, majority_baseline, question_type_of
from memsuite.eval.protocol import Row
from memsuite.eval.report.intervals import interval_note
from memsuite.eval.report.kit import Records, ranking_intervals, rate_intervals
from memsuite.eval.report.layout import ordered_systems, run_cell, run_column
from memsuite.eval.report.model import ReportOptions, Section, Table
from memsuite.eval.retrieval_qa.evidence import METRICS
from memsuite.eval.run.folder import RunFolder

#: The evidence tables' metric.
EVIDENCE = "evidence_recall@10"
RETRIEVAL_JUDGE = "retrieval"


def _metric(row: Row, name: str, judge: str = RETRIEVAL_JUDGE) -> float | None:
    metrics = (row.verdicts.get(judge) or {}).get("metrics")
    value = metrics.get(name) if isinstance(metrics, dict) else None
    return None if value is None else float(value)


def _answer(row: Row, judge: str) -> float | None:
    verdict = row.verdicts.get(judge)
    if not isinstance(verdict, dict) or verdict.get("failure") or verdict.get("correct") is None:
        return None
    score = verdict.get("score")
    return float(score) if score is not None else float(bool(verdict["correct"]))


def _types(row: Row) -> tuple[str, ...]:
    return (question_type_of(row), "overall")


def _record_types(row: Row) -> tuple[str, ...]:
    return (*(row.metadata.get("cited_types") or ()), "overall")


def _table(
    runs: Sequence[RunFolder],
    value: Callable[[Row], float | None],
    cells: Callable[[Row], Sequence[str]],
    columns: Sequence[str],
    name: str,
    title: str,
    notes: tuple[str, ...],
    options: ReportOptions,
    extra: Callable[[list[Row]], dict[str, Any]] | None = None,
) -> Table:
    prefix = run_column(runs, options)
    records = Records()
    for system in ordered_systems(runs):
        for run in runs:
            if system not in run.systems:
                continue
            rows = run.rows(system)
            found = rate_intervals(rows, value, cells, unit=lambda r: r.unit_id)
            if not found:
                continue
            record: dict[str, Any] = {**run_cell(run, prefix), "system": system}
            record.update({c: found[c].value if c in found else None for c in (*columns, "overall")})
            record["n"] = found["overall"].n if "overall" in found else 0
            record["users"] = len({r.unit_id for r in rows})
            if extra is not None:
                record.update(extra(rows))
            records.add(record, found)
    shown = (*prefix, "system", *columns, "overall", "n", "users")
    if extra is not None and records.rows:
        shown += tuple(k for k in records.rows[0] if k not in shown)
    percent = {c: ".1f" for c in (*columns, "overall", "majority baseline")}
    return records.table(name, title, shown, (*notes, interval_note("user")), percent)


def evidence_words(runs: Sequence[RunFolder]) -> list[str]:
    """The evidence counts of each run in plain words (the data's, read from its first system)."""
    lines = []
    for run in runs:
        if not run.systems:
            continue
        found = evidence_counts(run.rows(run.systems[0]))
        absent = (run.header.get("benchmark") or {}).get("absent_files") or {}
        missing = "; ".join(f"{user}: {', '.join(files)}" for user, files in absent.items())
        lines.append(
            f"{run.label}: {found['questions']} questions, {found['scored']} scored for retrieval and "
            f"{found['unscored']} unscored (no cited record the memory holds at the question's time); "
            f"{found['dangling']} dangling evidence entries (citing no record) and {found['future']} cited "
            "ids dated after their question (future: listed, not scored)."
            + (f" Absent record files: {missing}." if missing else "")
        )
    return lines


def _retrieval_table(runs: Sequence[RunFolder], options: ReportOptions) -> Table:
    prefix = run_column(runs, options)
    names = tuple(f"{m}@{k}" for k in (1, 5, 10, 50) for m in METRICS)
    records = Records()
    for system in ordered_systems(runs):
        for run in runs:
            if system not in run.systems:
                continue
            rows = run.rows(system)
            for judge, granularity in ((RETRIEVAL_JUDGE, "record"), ("retrieval_day", "day")):
                found = ranking_intervals(
                    rows, lambda r, n, j=judge: _metric(r, n, j), names, unit=lambda r: r.unit_id
                )
                if not found:
                    continue
                record = {
                    **run_cell(run, prefix),
                    "system": system,
                    "granularity": granularity,
                    **{n: found[n].value if n in found else None for n in names},
                    "n": max(i.n for i in found.values()),
                }
                records.add(record, found)
    return records.table(
        "lifebench_retrieval",
        "LifeBench: evidence retrieval at record and day granularity (%)",
        (*prefix, "system", "granularity", *names, "n"),
        (
            "recall_any: any relevant record (day) in the top k; recall_all: every one; evidence_recall: the "
            "share retrieved. Depths 1, 3, 5, 10, 30, 50 and the run's k are in summary.json.",
            interval_note("user"),
        ),
        {n: ".1f" for n in names},
    )


def _baseline(rows: list[Row]) -> dict[str, Any]:
    decided = [r.verdicts["choice"] for r in rows if isinstance(r.verdicts.get("choice"), dict)]
    golds = [str(v.get("gold", "")).upper() for v in decided if v.get("correct") is not None]
    letter, share = majority_baseline(golds)
    return {"majority baseline": None if share is None else 100.0 * share, "majority letter": letter}


_ANSWERS = (
    (
        "choice",
        "multiple choice by letter, LLM-free (%)",
        "The letter read from the answer by the rule of eval/benchmarks/lifebench/judges/choice.py; "
        "an answer naming no letter or two letters is wrong. Majority baseline: always answering the "
        "most common gold letter of the same questions.",
        _baseline,
    ),
    (
        "abstention",
        "Unanswerable questions declined, LLM-free (%)",
        "Right when the answer declines (eval/benchmarks/lifebench/judges/abstention.py).",
        None,
    ),
    (
        "llm",
        "open answers, rubric score from score_points (%)",
        "Points earned over points possible, graded by the run's judge LLM against the question's "
        "score_points (eval/benchmarks/lifebench/judges/llm.py); failed calls are left out and counted.",
        None,
    ),
)


def render(runs: list[RunFolder], options: ReportOptions) -> Section:
    """Evidence counts, evidence recall by question and record type, retrieval by depth, answers, usage."""
    from memsuite.eval.report.usage import usage_table

    section = Section("LifeBench")
    section.notes.extend(evidence_words(runs))
    tables = [
        _table(
            runs,
            lambda r: _metric(r, EVIDENCE),
            _types,
            QUESTION_TYPES,
            "lifebench_evidence",
            "LifeBench: evidence recall@10 by question type, record granularity (%)",
            (
                "LLM-free: the question's relevant records among the top 10 of the system's ranking of every "
                "record it holds at the question's time. Unscored questions are left out.",
            ),
            options,
        ),
        _table(
            runs,
            lambda r: _metric(r, EVIDENCE),
            _record_types,
            DATED_TYPES,
            "lifebench_evidence_by_record",
            "LifeBench: evidence recall@10 by record type cited (%)",
            ("A question citing several record types counts under each.",),
            options,
        ),
        _retrieval_table(runs, options),
    ]
    for judge, title, note, extra in _ANSWERS:
        tables.append(
            _table(
                runs,
                lambda r, j=judge: _answer(r, j),
                _types,
                QUESTION_TYPES,
                f"lifebench_{judge}",
                f"LifeBench: {title}",
                (note,),
                options,
                extra,
            )
        )
    section.tables.extend(t for t in tables if t.rows)
    section.tables.append(usage_table("lifebench_usage", "LifeBench usage and cost", runs, options))
    return section


def lifebench_outcomes(rows: Sequence[Row], judge: str) -> list[Outcome]:
    """Each question's value under ``judge`` (``retrieval``: its evidence recall@10), per question type."""
    out = []
    for row in rows:
        value = _metric(row, EVIDENCE) if judge == RETRIEVAL_JUDGE else _answer(row, judge)
        if value is not None:
            out.append(Outcome(row.unit_id, row.question_id, question_type_of(row), value))
    return out


OUTCOMES = OutcomeSpec(
    lifebench_outcomes,
    ("llm", "choice", "abstention", RETRIEVAL_JUDGE),
    "user",
    cells=QUESTION_TYPES,
    headline="overall (all question types)",
    judge_headlines={RETRIEVAL_JUDGE: "evidence recall@10 (scored questions)"},
)
