"""The LongMemEval report section: the official retrieval metrics, per question type, answer rates, usage.

Retrieval tables follow LongMemEval's retrieval printouts (recall_any / recall_all / ndcg_any at 5 and
10, per granularity; abstention questions left out), averaged as its scripts average
(:mod:`.scoring`: ``official``), with the recall_all@5 of questions that have a relevant document beside
it. Answer-level rates (``answer_in_context``; the ``llm`` judge when the run has one) per question
type, abstention apart. Published QA accuracies (:mod:`.paper`) follow, each with its source and how
its protocol differs from the runs reported.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from memsuite.eval.analysis.compare import Outcome, OutcomeSpec
from memsuite.eval.analysis.stats import Interval
from memsuite.eval.benchmarks.longmemeval.paper import PUBLISHED_QA
from memsuite.eval.benchmarks.longmemeval.scoring import TYPE_ORDER, row_type
from memsuite.eval.protocol import Row
from memsuite.eval.report.intervals import interval_note
from memsuite.eval.report.kit import Records, percent, ranking_intervals, rate_intervals
from memsuite.eval.report.layout import ordered_systems, run_cell, run_column
from memsuite.eval.report.model import ReportOptions, Section, Table
from memsuite.eval.report.runs import llm_label
from memsuite.eval.report.usage import usage_table
from memsuite.eval.retrieval_qa.published import add_published
from memsuite.eval.run.folder import RunFolder

HEADLINE = tuple(f"{m}@{k}" for k in (5, 10) for m in ("recall_any", "recall_all", "ndcg_any"))
LEVEL_NOTES = {
    "session": "session: one document per session (its user turns); for a turn-granularity run, its turn "
    "ranking read as sessions (k grows until k distinct sessions are covered), as LongMemEval's scripts do.",
    "turn": "turn: one document per user turn.",
}

_AVERAGING_NOTE = (
    "Averaged over non-abstention questions, as LongMemEval's scripts do: a question with no relevant "
    "document (single-session-assistant evidence lies in assistant turns, which the corpus leaves out) "
    "counts with recall_all 1 and recall_any and ndcg 0 ('no relevant' of n); 'with relevant' leaves "
    "those out. Every k of 1, 3, 5, 10, 30, 50 is in summary.json."
)


def _ranked(row: Row) -> Mapping[str, Any] | None:
    """A non-abstention row's retrieval metrics (the rows the official averages cover), else None."""
    if row.metadata.get("abstention"):
        return None
    metrics = (row.verdicts.get("retrieval") or {}).get("metrics")
    return metrics if isinstance(metrics, Mapping) else None


def _metric(row: Row, level: str, name: str, with_relevant: bool = False) -> float | None:
    metrics = _ranked(row)
    if metrics is None or (with_relevant and not row.metadata.get("relevant")):
        return None
    value = (metrics.get(level) or {}).get(name)
    return None if value is None else float(value)


def _retrieval_intervals(rows: list[Row], level: str) -> dict[str, Interval]:
    """Each headline metric's interval over questions (one question per unit: questions are independent)."""
    return {
        **ranking_intervals(rows, lambda r, n: _metric(r, level, n), HEADLINE),
        **rate_intervals(
            rows,
            lambda r: _metric(r, level, "recall_all@5", with_relevant=True),
            lambda r: ("recall_all@5 (with relevant)",),
        ),
    }


def _verdict_value(row: Row, judge: str) -> float | None:
    verdict = row.verdicts.get(judge)
    if not isinstance(verdict, dict) or verdict.get("failure") or verdict.get("correct") is None:
        return None
    return 1.0 if verdict["correct"] else 0.0


#: The pseudo-judge of a comparison on retrieval: session recall_all@5 of each non-abstention question.
RETRIEVAL_JUDGE = "retrieval"


def longmemeval_outcomes(rows: Sequence[Row], judge: str) -> list[Outcome]:
    """Each question's verdict under ``judge`` (``retrieval``: its session recall_all@5), per type."""
    out = []
    for row in rows:
        if judge == RETRIEVAL_JUDGE:
            value = _metric(row, "session", "recall_all@5")
        else:
            value = _verdict_value(row, judge)
        if value is not None:
            out.append(Outcome(row.unit_id, row.question_id, row_type(row), value))
    return out


#: How ``memsuite compare`` counts this benchmark's questions (named by its spec).
OUTCOMES = OutcomeSpec(
    longmemeval_outcomes,
    ("llm", "answer_in_context", RETRIEVAL_JUDGE),
    "question",
    cells=TYPE_ORDER,
    headline="overall (all question types)",
    judge_headlines={RETRIEVAL_JUDGE: "session recall_all@5 (questions with a relevant session)"},
)


def render_longmemeval(runs: list[RunFolder], options: ReportOptions) -> Section:
    """Retrieval per level and per question type, answer-level rates, usage."""
    section = Section("LongMemEval")
    prefix = run_column(runs, options)
    systems = ordered_systems(runs)
    for level in ("session", "turn"):
        records = Records()
        for system in systems:
            for run in runs:
                scores = run.scores(system)
                if not scores.part("retrieval", "official", level):
                    continue
                record = {
                    **run_cell(run, prefix),
                    "system": system,
                    "granularity": scores.at("retrieval", "granularity"),
                    **{name: percent(scores.at("retrieval", "official", level, name)) for name in HEADLINE},
                    "recall_all@5 (with relevant)": percent(
                        scores.at("retrieval", "with_relevant", level, "recall_all@5")
                    ),
                    "n": scores.at("retrieval", "n"),
                    "no relevant": scores.at("retrieval", "n_no_relevant"),
                }
                found = _retrieval_intervals(run.rows(system), level)
                records.add(record, found)
        section.tables.append(
            records.table(
                f"longmemeval_retrieval_{level}",
                f"LongMemEval retrieval, {level} level (%)",
                (
                    *prefix,
                    "system",
                    "granularity",
                    *HEADLINE,
                    "recall_all@5 (with relevant)",
                    "n",
                    "no relevant",
                ),
                (LEVEL_NOTES[level], _AVERAGING_NOTE, interval_note("question")),
                {name: ".1f" for name in (*HEADLINE, "recall_all@5 (with relevant)")},
            )
        )
    # Runs without a ranking (rejudged answers, fact memories) have no rows in it: it is not printed.
    section.tables.append(_by_type_table(runs, systems, prefix))
    for judge, title, note in (
        (
            "answer_in_context",
            "gold answer in the context (%)",
            "LLM-free: the gold answer's tokens appear contiguously in the context handed to the answer "
            "model (LoCoMo's has_answer); undefined for preference rubrics and abstention questions.",
        ),
        (
            "llm",
            "LLM judge accuracy (%)",
            "LongMemEval's per-type yes/no judge (src/evaluation/evaluate_qa.py) through the run's judge "
            "LLM; failed calls are left out and counted in n_failed.",
        ),
        (
            "rule",
            "rule judge accuracy (%)",
            "LLM-free: the official per-type rubric as string rules "
            "(eval/benchmarks/longmemeval/judges/rule.py); undecided answers (preference rubrics, "
            "paraphrases) are left out and counted in n_undefined.",
        ),
    ):
        section.tables.append(_answer_table(runs, systems, prefix, judge, title, note))
    _add_published(section, runs, systems)
    section.tables.append(usage_table("longmemeval_usage", "LongMemEval usage and cost", runs, options))
    return section


def _add_published(section: Section, runs: list[RunFolder], systems: list[str]) -> None:
    """Published QA accuracies, and how each differs from the runs reported."""
    records = [
        {
            "system": row.system,
            "setting": row.setting,
            **{t: row.by_type.get(t) for t in TYPE_ORDER},
            "overall": row.overall,
            "n": row.n,
            "answers": row.answer_model,
            "judge": row.judge_model,
        }
        for row in PUBLISHED_QA
    ]
    ours = []
    for run in runs:
        questions = max((len(run.rows(s)) for s in systems if s in run.systems), default=0)
        judged = any(run.scores(s).judge("llm") is not None for s in run.systems)
        data = (run.config.get("benchmark_options") or {}).get("data") or "the dev S file"
        answers, judge = llm_label(run.header.get("answer_llm")), llm_label(run.header.get("judge_llm"))
        ours.append(
            f"{run.name}: {questions} questions of {data}, answers {answers}, judge {judge} "
            f"({'the llm judge' if judged else 'no QA judge: retrieval only'}), "
            f"one retrieve at k={run.config.get('k')}"
        )
    notes = (
        *(f"{row.system}: {row.source}." for row in PUBLISHED_QA),
        "Protocol differs: theirs are the rows' answer and judge models and settings; ours -- "
        + "; ".join(ours)
        + ". Compare a published row only with a run of the same setting (gold_evidence ~ oracle, "
        "full_context ~ long-context) and the same answer and judge models.",
    )
    add_published(
        section,
        "longmemeval_published",
        "LongMemEval QA accuracy, published (%)",
        ("system", "setting", *TYPE_ORDER, "overall", "n", "answers", "judge"),
        records,
        notes,
        (*TYPE_ORDER, "overall"),
        none="Published LongMemEval QA accuracies: none.",
    )


def _by_type_table(runs, systems, prefix) -> Table:
    records = Records()
    for system in systems:
        for run in runs:
            scores = run.scores(system)
            if not scores.part("retrieval"):
                continue
            record = {
                **run_cell(run, prefix),
                "system": system,
                **{
                    t: percent(scores.at("retrieval", "by_type", t, "official", "session", "recall_all@5"))
                    for t in TYPE_ORDER[:-1]
                },
            }
            found = rate_intervals(
                run.rows(system),
                lambda row: _metric(row, "session", "recall_all@5"),
                lambda row: (row_type(row),),
            )
            records.add(record, found)
    return records.table(
        "longmemeval_retrieval_by_type",
        "LongMemEval session recall_all@5 per question type (%)",
        (*prefix, "system", *TYPE_ORDER[:-1]),
        ("Official averaging per type (non-abstention questions).", interval_note("question")),
        {t: ".1f" for t in TYPE_ORDER},
    )


def _answer_table(runs, systems, prefix, judge: str, title: str, note: str) -> Table:
    records = Records()
    for system in systems:
        for run in runs:
            scores = run.scores(system).judge(judge)
            if scores is None:
                continue
            record = {
                **run_cell(run, prefix),
                "system": system,
                **{t: percent(scores.at("by_type", t, "rate")) for t in TYPE_ORDER},
                "overall": percent(scores.at("overall", "rate")),
                "n": scores.at("overall", "n"),
                "n_failed": scores.at("overall", "n_failed"),
                "n_undefined": scores.at("overall", "n_undefined"),
            }
            found = rate_intervals(
                run.rows(system),
                lambda row: _verdict_value(row, judge),
                lambda row: (row_type(row), "overall"),
            )
            records.add(record, found)
    return records.table(
        f"longmemeval_{judge}",
        f"LongMemEval {title}",
        (*prefix, "system", *TYPE_ORDER, "overall", "n", "n_failed", "n_undefined"),
        (note, interval_note("question"), "the overall n, n_failed and n_undefined are columns."),
        {t: ".1f" for t in (*TYPE_ORDER, "overall")},
    )
