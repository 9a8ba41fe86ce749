"""The REALTALK report section: evidence recall by category, retrieval at several depths, answers in
the paper's layout (categories x systems), the evidence diagnostics per chat, published rows, usage;
and, in a report that also holds LoCoMo runs, LoCoMo beside REALTALK (:func:`beside_locomo`).

Every rate carries its 95 % interval resampling chats whole (the questions of one chat share its
memory). Questions citing no id the chat holds are left out of retrieval and counted.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from memsuite.eval.analysis.compare import Outcome, OutcomeSpec
from memsuite.eval.analysis.stats import Interval
from memsuite.eval.benchmarks.realtalk.diagnostics import evidence_diagnostics
from memsuite.eval.benchmarks.realtalk.paper import PUBLISHED, PUBLISHED_NOTE
from memsuite.eval.benchmarks.realtalk.schema import CATEGORY_NAMES, CATEGORY_ORDER
from memsuite.eval.benchmarks.realtalk.scoring import answer_value, category_of
from memsuite.eval.protocol import Row
from memsuite.eval.report.intervals import interval_note
from memsuite.eval.report.kit import Records, ranking_intervals, rate_intervals
from memsuite.eval.report.layout import ordered_systems, run_cell, run_column
from memsuite.eval.report.model import ReportOptions, Section, Table
from memsuite.eval.retrieval_qa.categories import CATEGORY_NAMES as LOCOMO_CATEGORY_NAMES
from memsuite.eval.retrieval_qa.evidence import METRICS, metrics_at
from memsuite.eval.retrieval_qa.published import add_published
from memsuite.eval.retrieval_qa.scores import row_metrics
from memsuite.eval.run.folder import RunFolder

#: The evidence table's metric.
EVIDENCE = "evidence_recall@10"
RETRIEVAL_JUDGE = "retrieval"
CATEGORIES = tuple(CATEGORY_NAMES[c] for c in CATEGORY_ORDER)
_JUDGES = (
    (
        "f1",
        "lexical score, the release's per-category F1 (%)",
        "LLM-free, as the release scores answers (qa_tool.py): category 1 F1 over comma-separated parts "
        "(best answer part per gold part), 2 token F1, 3 token F1 against the gold cut at its first ';'.",
    ),
    (
        "llm",
        "LLM score, the release's 0-1 grade (%)",
        "The release's grading prompt restated (eval/benchmarks/realtalk/judges/llm.py) through the run's "
        "judge LLM; failed calls are left out and counted.",
    ),
    (
        "rule",
        "LLM-free rule judge (%)",
        "LoCoMo's strict rule judge (eval/retrieval_qa/category_rule.py; same category numbering); "
        "coverage = the share of answers it decides.",
    ),
)


def _metric(row: Row, name: str) -> float | None:
    metrics = row_metrics(row)
    value = None if metrics is None else metrics.get(name)
    return None if value is None else float(value)


def _by_category(rows: list[Row], value: Callable[[Row], float | None]) -> dict[Any, Interval]:
    return rate_intervals(rows, value, lambda r: (category_of(r), "overall"), unit=lambda r: r.unit_id)


def _category_table(
    runs: Sequence[RunFolder],
    value: Callable[[Row], float | None],
    name: str,
    title: str,
    notes: tuple[str, ...],
    extra: Callable[[list[Row]], dict[str, Any]] | None = None,
    options: ReportOptions | None = None,
) -> Table:
    prefix = run_column(runs, options) if options is not None else ()
    records = Records()
    for system in ordered_systems(runs):
        for run in runs:
            if system not in run.systems:
                continue
            rows = run.rows(system)
            found = _by_category(rows, value)
            if not found:
                continue
            record: dict[str, Any] = {**run_cell(run, prefix), "system": system}
            record.update({c: found[c].value if c in found else None for c in (*CATEGORIES, "overall")})
            record["n"] = found["overall"].n if "overall" in found else 0
            record["chats"] = len({r.unit_id for r in rows})
            if extra is not None:
                record.update(extra(rows))
            records.add(record, found)
    columns = (*prefix, "system", *CATEGORIES, "overall", "n", "chats")
    if extra is not None and records.rows:
        columns += tuple(k for k in records.rows[0] if k not in columns)
    return records.table(
        name,
        title,
        columns,
        (*notes, interval_note("chat")),
        {c: ".1f" for c in (*CATEGORIES, "overall", "coverage")},
    )


def _coverage(rows: list[Row]) -> dict[str, Any]:
    given = [r.verdicts["rule"] for r in rows if isinstance(r.verdicts.get("rule"), dict)]
    given = [v for v in given if not v.get("failure")]
    decided = sum(1 for v in given if v.get("correct") is not None)
    return {"coverage": 100.0 * decided / len(given) if given else None}


def _unscored_note(runs: Sequence[RunFolder]) -> str:
    counts = {}
    for run in runs:
        for system in run.systems:
            found = evidence_diagnostics(run.rows(system))
            counts[run.label] = (found["unscored"], found["questions"])
            break
    listed = "; ".join(f"{label}: {u} of {q}" for label, (u, q) in counts.items())
    return (
        "LLM-free: the question's relevant messages (cited ids the chat holds, by the evidence rule of "
        "eval/benchmarks/realtalk/evidence.py) among the top 10 of the system's ranking of the whole chat. "
        f"Questions citing no id the chat holds are not scored ({listed})."
    )


def _retrieval_table(runs: Sequence[RunFolder], options: ReportOptions) -> Table:
    prefix = run_column(runs, options)
    names = tuple(f"{m}@{k}" for k in (1, 5, 10, 50) for m in METRICS)
    records = Records()
    for system in ordered_systems(runs):
        for run in runs:
            if system not in run.systems:
                continue
            rows = run.rows(system)
            found = ranking_intervals(rows, _metric, names, unit=lambda r: r.unit_id)
            if not found:
                continue
            record = {
                **run_cell(run, prefix),
                "system": system,
                **{n: found[n].value if n in found else None for n in names},
                "n": max(i.n for i in found.values()),
                "chats": len({r.unit_id for r in rows}),
            }
            records.add(record, found)
    return records.table(
        "realtalk_retrieval",
        "REALTALK: evidence retrieval, all categories (%)",
        (*prefix, "system", *names, "n", "chats"),
        (
            "recall_any: any relevant message in the top k; recall_all: every one; evidence_recall: the "
            "share retrieved. Depths 1, 3, 5, 10, 30, 50 and the run's k are in summary.json.",
            interval_note("chat"),
        ),
        {n: ".1f" for n in names},
    )


def diagnostics_table(runs: Sequence[RunFolder]) -> Table:
    """Per chat: questions, dangling ids and unscored questions (the data's, the same for every system:
    read from the first system of each run)."""
    records = []
    for run in runs:
        if not run.systems:
            continue
        found = evidence_diagnostics(run.rows(run.systems[0]))
        for chat, figures in found["chats"].items():
            records.append(
                {
                    "run": run.label,
                    "chat": chat,
                    "questions": figures["questions"],
                    "unscored": len(figures["unscored"]),
                    "unscored questions": ", ".join(figures["unscored"]) or None,
                    "dangling": figures["dangling"],
                    "dangling ids": ", ".join(f"{d['id']} ({d['question']})" for d in figures["dangling_ids"])
                    or None,
                }
            )
    return Table.from_records(
        "realtalk_evidence_diagnostics",
        "REALTALK: evidence citations per chat",
        ("run", "chat", "questions", "unscored", "unscored questions", "dangling", "dangling ids"),
        records,
        (
            "dangling: cited ids that name no message of the chat (messages removed in cleaning, typos): "
            "listed with the question citing them, never scored. unscored: questions citing no id the chat "
            "holds (left out of retrieval). Evidence rule: eval/benchmarks/realtalk/evidence.py.",
        ),
    )


def render(runs: list[RunFolder], options: ReportOptions) -> Section:
    """Evidence by category, retrieval by depth, answers by category, diagnostics, published, usage."""
    from memsuite.eval.report.usage import usage_table

    section = Section("REALTALK")
    evidence = _category_table(
        runs,
        lambda r: _metric(r, EVIDENCE),
        "realtalk_evidence",
        "REALTALK: evidence recall@10 by category (%)",
        (_unscored_note(runs),),
        options=options,
    )
    if evidence.rows:
        section.tables.append(evidence)
    retrieval = _retrieval_table(runs, options)
    if retrieval.rows:
        section.tables.append(retrieval)
    for judge, title, note in _JUDGES:
        table = _category_table(
            runs,
            lambda r, j=judge: answer_value(r, j),
            f"realtalk_{judge}",
            f"REALTALK: {title}",
            (note,),
            _coverage if judge == "rule" else None,
            options=options,
        )
        if table.rows:
            section.tables.append(table)
    section.tables.append(diagnostics_table(runs))
    add_published(
        section,
        "realtalk_published",
        "REALTALK answer scores, published (%)",
        ("system", "judge", *CATEGORIES, "source"),
        ({"system": p.system, "judge": p.judge, **p.by_category, "source": p.source} for p in PUBLISHED),
        (PUBLISHED_NOTE,),
        CATEGORIES,
        none=f"Published REALTALK answer scores: none. {PUBLISHED_NOTE}",
    )
    section.tables.append(usage_table("realtalk_usage", "REALTALK usage and cost", runs, options))
    return section


# -- LoCoMo beside REALTALK -------------------------------------------------------------------------------

#: The categories both benchmarks number alike (REALTALK has no single-hop or adversarial questions).
SHARED_CATEGORIES = (1, 2, 3)


def _realtalk_recall(depth: int) -> Callable[[Row], float | None]:
    def value(row: Row) -> float | None:
        ranking, relevant = row.metadata.get("ranking") or [], row.metadata.get("relevant") or []
        if not ranking or not relevant:
            return None
        return metrics_at(ranking, relevant, depth)["evidence_recall"]

    return value


def _locomo_recall(row: Row) -> float | None:
    verdict = row.verdicts.get("evidence") or {}
    if verdict.get("basis") != "turns" or verdict.get("recall") is None:
        return None
    return float(verdict["recall"])


def _shared_category(row: Row) -> tuple[str, ...]:
    category = row.metadata.get("category")
    return (CATEGORY_NAMES[category], "overall") if category in SHARED_CATEGORIES else ()


def beside_locomo(runs: Sequence[RunFolder]) -> Section | None:
    """LoCoMo beside REALTALK: the same systems, by category (1-3), on synthetic and on real chat.

    Evidence recall at the LoCoMo run's k (LoCoMo's rows hold the dia_ids of its k retrieved turns;
    REALTALK's, the whole ranking, read at the same depth); the lexical F1 too when both runs have it.
    None when the report holds no LoCoMo run or no system ran on both.
    """
    real = [r for r in runs if r.benchmark == "realtalk"]
    synthetic = [r for r in runs if r.benchmark == "locomo"]
    if not real or not synthetic:
        return None
    records = Records()
    for system in ordered_systems([*synthetic, *real]):
        pairs = [(s, r) for s in synthetic for r in real if system in s.systems and system in r.systems]
        for locomo_run, realtalk_run in pairs:
            depth = int(locomo_run.config.get("k") or 10)
            measures = (
                ("LoCoMo", locomo_run, f"evidence_recall@{depth}", _locomo_recall),
                ("REALTALK", realtalk_run, f"evidence_recall@{depth}", _realtalk_recall(depth)),
                ("LoCoMo", locomo_run, "f1 (lexical)", lambda r: answer_value(r, "f1")),
                ("REALTALK", realtalk_run, "f1 (lexical)", lambda r: answer_value(r, "f1")),
            )
            for benchmark, run, metric, value in measures:
                found = rate_intervals(run.rows(system), value, _shared_category, unit=lambda r: r.unit_id)
                if not found:
                    continue
                record = {
                    "system": system,
                    "benchmark": benchmark,
                    "run": run.label,
                    "metric": metric,
                    **{c: found[c].value if c in found else None for c in (*CATEGORIES, "overall")},
                    "n": found["overall"].n if "overall" in found else 0,
                }
                records.add(record, found)
    if not records.rows:
        return None
    names = ", ".join(f"{n} {LOCOMO_CATEGORY_NAMES[n]}" for n in SHARED_CATEGORIES)
    section = Section("LoCoMo beside REALTALK")
    section.tables.append(
        records.table(
            "realtalk_beside_locomo",
            "LoCoMo (synthetic chat) beside REALTALK (real chat): the same systems, by category (%)",
            ("system", "benchmark", "run", "metric", *CATEGORIES, "overall", "n"),
            (
                f"Categories both number alike ({names}); overall = those three. LoCoMo leaves out "
                "single-hop and adversarial here.",
                "evidence_recall@k: the share of a question's evidence messages among the system's top k "
                "(k = the LoCoMo run's), LLM-free. LoCoMo documents are its RAG format (date, speaker, "
                "text); REALTALK's are the message text alone; each benchmark's own evidence ids. f1: "
                "each benchmark's lexical score, when both runs have it.",
                interval_note("conversation"),
            ),
            {c: ".1f" for c in (*CATEGORIES, "overall")},
        )
    )
    return section


def realtalk_outcomes(rows: Sequence[Row], judge: str) -> list[Outcome]:
    """Each question's value under ``judge`` (``retrieval``: its evidence recall@10), per category."""
    out = []
    for row in rows:
        value = _metric(row, EVIDENCE) if judge == RETRIEVAL_JUDGE else answer_value(row, judge)
        if value is not None:
            out.append(Outcome(row.unit_id, row.question_id, category_of(row), value))
    return out


OUTCOMES = OutcomeSpec(
    realtalk_outcomes,
    ("llm", "f1", "rule", RETRIEVAL_JUDGE),
    "chat",
    cells=CATEGORIES,
    headline="overall (all categories)",
    judge_headlines={RETRIEVAL_JUDGE: "evidence recall@10 (questions citing an id the chat holds)"},
)
