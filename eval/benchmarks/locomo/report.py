"""The LoCoMo report section: the published comparisons' layout for each verdict, recall@k, usage.

Score tables follow mem0 arXiv 2504.19413 Table 1's columns (single-hop, multi-hop, open-domain,
temporal, overall) with adversarial shown apart and left out of overall unless the run asked for it
(``benchmark_options.adversarial_in_overall``). Published rows (:mod:`.paper`) sit under ours in the
LLM-judge table, each with its source, models and the ways our protocol differs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

from memsuite.eval.analysis import plots as plotting
from memsuite.eval.analysis.compare import Outcome, OutcomeSpec
from memsuite.eval.analysis.stats import Interval
from memsuite.eval.benchmarks.locomo.paper import PUBLISHED_LLM_JUDGE, PUBLISHED_ROW_OF_SYSTEM, PublishedRow
from memsuite.eval.benchmarks.locomo.report_audit import AUDITED, audit_tables
from memsuite.eval.benchmarks.locomo.schema import CATEGORY_NAMES, CATEGORY_ORDER
from memsuite.eval.benchmarks.locomo.scoring import category_cells, row_value
from memsuite.eval.protocol import Row
from memsuite.eval.report.intervals import cell_intervals, interval_note
from memsuite.eval.report.kit import BY_JUDGE, Records, judges_in, percent, rate_intervals
from memsuite.eval.report.layout import has_number, ordered_systems, run_cell, run_column, slug
from memsuite.eval.report.model import Figure, ReportOptions, Section, Table
from memsuite.eval.report.runs import RunInfo, llm_label
from memsuite.eval.report.usage import USAGE_COLUMNS, usage_record, usage_summary, usage_table

MAIN = tuple(CATEGORY_NAMES[c] for c in CATEGORY_ORDER if c != 5)
ADVERSARIAL = CATEGORY_NAMES[5]
JUDGE_ORDER = ("llm", "f1", "evidence")
JUDGE_NOTES = {
    "llm": "judge: llm -- mem0's CORRECT/WRONG judge (evaluation/metrics/llm_judge.py) through the run's "
    "judge LLM; % of judged questions; category 5 (which mem0 does not judge) through a restated prompt: "
    "correct only when the answer says the conversation does not tell and asserts no answer.",
    "rule": "judge: rule -- LLM-free: the J prompt's rubric as string rules; category 5 passes when the "
    "answer abstains and asserts neither the trap (adversarial_answer) nor another answer.",
    "f1": "judge: f1 -- LoCoMo's token F1 with its per-category rules (task_eval/evaluation.py), x100.",
    "evidence": "judge: evidence -- LLM-free: recall of the evidence dia_ids among the retrieved turns "
    "(x100); for systems whose memories are not turns, % of questions whose gold answer is in the context.",
}


def _scores(run: RunInfo, system: str, judge: str) -> Mapping[str, Any] | None:
    """``judge``'s scores; a run under the audited key alone (``answer_key: audited``) gives those."""
    summary = run.system_summary(system)
    audited = summary.judges(AUDITED) if summary.scores.get("answer_key") == "audited" else {}
    return (audited or summary.judges(BY_JUDGE)).get(judge)


def _n_failed(cell: Mapping[str, Any]) -> int:
    """Questions of a score cell left out because a call failed (``failed`` in runs made before n_failed)."""
    return int(cell.get("n_failed", cell.get("failed")) or 0)


def _pct(cell: Mapping[str, Any] | None) -> float | None:
    return percent((cell or {}).get("mean"))


def _source(run: RunInfo) -> Mapping[str, Any]:
    return next((found for s in run.systems if (found := run.system_summary(s).part("source"))), {})


def _differences(run: RunInfo, paper: PublishedRow) -> str:
    """Every way this run's protocol differs from how ``paper``'s row was produced."""
    parts = []
    options = run.config.get("benchmark_options") or {}
    chosen = options.get("conversations")
    conversations = len(chosen) if isinstance(chosen, list) else _source(run).get("conversations", 10)
    if conversations != 10:
        parts.append(f"{conversations} of 10 conversations")
    if options.get("max_questions"):
        parts.append(f"at most {options['max_questions']} questions per conversation")
    answers = llm_label(run.header.get("answer_llm"))
    if answers != paper.answer_model:
        parts.append(f"answers {answers} (theirs {paper.answer_model})")
    if run.header.get("judge_llm_is_answer_llm"):
        judge = f"{answers} (= answer LLM)"
    else:
        judge = llm_label(run.header.get("judge_llm"))
    if judge != paper.judge_model:
        parts.append(f"judge {judge} (theirs {paper.judge_model})")
    parts.append(f"retrieval: one retrieve at k={run.config.get('k')} (theirs: {paper.retrieval})")
    parts.append(f"answer prompt: LoCoMo's QA prompt (theirs: {paper.answer_prompt})")
    embedder = (run.header.get("embedder") or {}).get("model", "?")
    if paper.embedder != "none":
        parts.append(f"embedder {embedder}, where a system embeds (theirs: {paper.embedder})")
    return "ours: " + ", ".join(parts)


def locomo_intervals(run: RunInfo, system: str, judge: str, scale: float = 100.0) -> dict[str, Interval]:
    """Per category and overall: the interval of ``judge``'s mean value, resampling conversations,
    in the tables' units (x100). Rows are left out exactly as :func:`.scores.judge_scores` leaves them."""
    with_adversarial = bool(run.scores(system).get("adversarial_in_overall"))
    found = cell_intervals(
        run.rows(system),
        lambda row: row_value(row, judge)[0],
        lambda row: category_cells(row, with_adversarial),
        unit=lambda row: row.unit_id,
    )
    return {cell: interval.scaled(scale) for cell, interval in found.items()}


def _in_context_value(row: Row) -> float | None:
    flag = row.metadata.get("answer_in_context")
    return None if flag is None else float(bool(flag))


def locomo_outcomes(rows: Sequence[Row], judge: str) -> list[Outcome]:
    """Each scored question's value under ``judge`` in its category, for paired comparisons; the
    overall row leaves adversarial questions out, as the published comparisons do."""
    out = []
    for row in rows:
        value = row_value(row, judge)[0]
        if value is None:
            continue
        cells = category_cells(row, False)
        out.append(Outcome(row.unit_id, row.question_id, cells[0], value, in_overall="overall" in cells))
    return out


#: How ``memsuite compare`` counts this benchmark's questions (named by its spec).
OUTCOMES = OutcomeSpec(
    locomo_outcomes,
    JUDGE_ORDER,
    "conversation",
    cells=tuple(CATEGORY_NAMES[c] for c in CATEGORY_ORDER),
    headline="overall (categories 1-4)",
)


def render_locomo(runs: list[RunInfo], options: ReportOptions) -> Section:
    """One score table per verdict, evidence recall@k per category, answer-in-context, usage."""
    section = Section("LoCoMo")
    prefix = run_column(runs, options)
    systems = ordered_systems(runs)
    for judge in judges_in(runs, BY_JUDGE, JUDGE_ORDER):
        records, failed_total, left_out = Records(), 0, []
        for system in systems:
            for run in runs:
                s = _scores(run, system, judge)
                if s is None:
                    continue
                categories = s.get("categories") or {}
                overall = s.get("overall") or {}
                failed = sum(_n_failed(c) for c in categories.values())
                failed_total += failed
                left_out += [
                    f"{system}/{name}: {_n_failed(c)}" for name, c in categories.items() if _n_failed(c)
                ]
                record = {
                    **run_cell(run, prefix),
                    "system": system,
                    **{name: _pct(categories.get(name)) for name in MAIN},
                    "overall": _pct(overall),
                    ADVERSARIAL: _pct(categories.get(ADVERSARIAL)),
                    "n": overall.get("n"),
                    "n_failed": failed,
                    **usage_record(usage_summary(run, system, options.prices)),
                }
                records.add(record, locomo_intervals(run, system, judge))
        notes = [JUDGE_NOTES.get(judge, f"judge: {judge}"), interval_note("conversation")]
        adversarial_in = any(run.scores(s).get("adversarial_in_overall") for run in runs for s in run.systems)
        if any(run.scores(s).get("answer_key") == "audited" for run in runs for s in run.systems):
            notes.append("answer key: audited (answer_key: audited); the original key is in the table below")
        asked = {
            run.system_summary(s).part("source").get("adversarial_format")
            for run in runs
            for s in run.systems
        }
        notes.append(
            f"{ADVERSARIAL}: category 5, always its own column (format: "
            f"{', '.join(sorted(f for f in asked if f)) or 'choice'}; open: asked as any question; choice: "
            "the trap, distractors, 'Not mentioned in the conversation', scored by the option chosen)"
        )
        notes.append(
            "overall: questions of categories 1-4"
            + (
                " and 5 (adversarial_in_overall)"
                if adversarial_in
                else "; adversarial shown apart, as the published tables do"
            )
        )
        notes.append(
            "n_failed: questions whose answer or judge call failed, left out of every rate "
            f"({failed_total} in all" + (f"; {', '.join(left_out)})." if left_out else ").")
        )
        if judge == "llm":
            for paper in PUBLISHED_LLM_JUDGE:
                ours = [
                    s for s, row in PUBLISHED_ROW_OF_SYSTEM.items() if row == paper.system and s in systems
                ]
                records.add(
                    {
                        **({prefix[0]: "published"} if prefix else {}),
                        "system": f"{paper.system} (published)",
                        "overall": paper.overall_j,
                    }
                )
                flag = f"; compare with our {', '.join(ours)}" if ours else ""
                notes.append(
                    f"{paper.system} (published): {paper.source}; answers {paper.answer_model}, judge "
                    f"{paper.judge_model}; {paper.setup}{flag}. Protocol differs -- "
                    + "; ".join(_differences(run, paper) for run in runs)
                )
        columns = (*prefix, "system", *MAIN, "overall", ADVERSARIAL, "n", "n_failed", *USAGE_COLUMNS)
        formats = {c: ".1f" for c in (*MAIN, "overall", ADVERSARIAL)}
        title = f"LoCoMo -- judge: {judge}"
        section.tables.append(records.table(f"locomo_{judge}", title, columns, notes, formats))
    section.tables += audit_tables(runs, systems, prefix)
    section.tables.append(_recall_table(runs, systems, prefix))
    section.figures += _recall_figures(runs, systems, options)
    section.tables.append(_in_context_table(runs, systems, prefix))
    section.tables.append(usage_table("locomo_usage", "LoCoMo usage and cost", runs, options))
    return section


def _recall_table(runs, systems, prefix) -> Table:
    names = [CATEGORY_NAMES[c] for c in CATEGORY_ORDER]
    records = Records()
    # k is the run column of a k ablation; a separate k column would repeat it.
    k_column = () if "k" in prefix else ("k",)
    for system in systems:
        for run in runs:
            s = _scores(run, system, "evidence")
            if s is None or "turns" not in (s.get("basis") or []):
                continue
            categories = s.get("categories") or {}
            record = {
                **run_cell(run, prefix),
                "system": system,
                **({"k": run.scores(system).get("k")} if k_column else {}),
                **{name: _pct(categories.get(name)) for name in names},
                "overall": _pct(s.get("overall")),
                "questions": (s.get("overall") or {}).get("n"),
                "no evidence id": sum(int(c.get("undefined") or 0) for c in categories.values()),
            }
            records.add(record, locomo_intervals(run, system, "evidence"))
    return records.table(
        "locomo_recall",
        "LoCoMo evidence recall@k per category (%)",
        (*prefix, "system", *k_column, *names, "overall", "questions", "no evidence id"),
        (
            "Share of a question's evidence dia_ids among the retrieved turns, averaged over questions with "
            "at least one well-formed id (LoCoMo task_eval/evaluation.py). Systems whose memories are "
            "not turns are not listed.",
            interval_note("conversation"),
        ),
        {name: ".1f" for name in (*names, "overall")},
    )


def _in_context_table(runs, systems, prefix) -> Table:
    names = [CATEGORY_NAMES[c] for c in CATEGORY_ORDER if c != 5]
    records = Records()
    for system in systems:
        for run in runs:
            rates = run.scores(system).get("answer_in_context") or {}
            if not rates:
                continue
            record = {
                **run_cell(run, prefix),
                "system": system,
                **{n: percent((rates.get(n) or {}).get("rate")) for n in names},
                "overall": percent((rates.get("overall") or {}).get("rate")),
            }
            found = rate_intervals(
                run.rows(system),
                _in_context_value,
                lambda row: category_cells(row, False),
                unit=lambda row: row.unit_id,
            )
            records.add(record, found)
    return records.table(
        "locomo_answer_in_context",
        "LoCoMo gold answer in the context (%)",
        (*prefix, "system", *names, "overall"),
        (
            "LoCoMo's has_answer: the gold answer's tokens appear contiguously in the context's tokens.",
            interval_note("conversation"),
        ),
        {name: ".1f" for name in (*names, "overall")},
    )


def _recall_figures(runs: Sequence[RunInfo], systems: Sequence[str], options: ReportOptions) -> list[Figure]:
    """Evidence recall@k per category: bars per run, or curves against k (with 95% bands) for a sweep."""
    names = [*(CATEGORY_NAMES[c] for c in CATEGORY_ORDER), "overall"]
    recalls = {
        (run.label, s): locomo_intervals(run, s, "evidence", scale=1.0)
        for run in runs
        for s in run.systems
        if "turns" in ((_scores(run, s, "evidence") or {}).get("basis") or [])
    }
    if not recalls:
        return []
    sweep = options.sweep
    if sweep is None:
        figures = []
        for run in runs:
            scores = {s: {c: i.value for c, i in recalls[(run.label, s)].items()} for s in run.systems
                      if (run.label, s) in recalls}  # fmt: skip
            if not scores:
                continue
            k = run.config.get("k")
            stem = "locomo_recall" if len(runs) == 1 else f"locomo_recall_{slug(run.label)}"
            title = f"LoCoMo evidence recall@{k} per category -- {run.label}"
            intervals = {s: recalls[(run.label, s)] for s in scores}
            draw = partial(
                plotting.plot_task_bars, scores, names, title=title, ylabel=f"recall@{k}", intervals=intervals
            )
            figures.append(Figure(stem, title, draw))
        return figures

    def found(run: RunInfo, system: str, category: str):
        return recalls.get((run.label, system), {}).get(category)

    panels, bands = {}, {}
    for category in names:
        series = {s: [getattr(found(run, s, category), "value", None) for run in runs] for s in systems}
        if not has_number(series):
            continue
        panels[category] = series
        bands[category] = {
            s: [(i.lo, i.hi) if (i := found(run, s, category)) else None for run in runs] for s in systems
        }
    counts = sorted({i.n for found_ in recalls.values() for c, i in found_.items() if c == "overall"})
    n = f"{counts[0]}-{counts[-1]}" if len(counts) > 1 else str(counts[0]) if counts else "?"
    title = f"LoCoMo evidence recall vs {sweep.key}; n = {n} questions (overall), 95% bands (conversations)"
    draw = partial(
        plotting.plot_sweep_curves, sweep.axis, panels, title=title, xlabel=sweep.key, ylabel="recall",
        bands=bands,
    )  # fmt: skip
    return [Figure(f"locomo_recall_vs_{slug(sweep.key.split('.')[-1])}", title, draw)]
