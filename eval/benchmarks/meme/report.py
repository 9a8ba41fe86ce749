"""MEME's report: the paper's main table per judge beside the published rows, the before-question
and trivial-pass filter table, rule-vs-LLM judge agreement, failure stages, usage, and plots.

Named as the report renderer by the benchmark's spec; reads only run folders.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import partial
from typing import Any

from memsuite.eval.analysis import plots as plotting
from memsuite.eval.analysis.compare import Outcome, OutcomeSpec
from memsuite.eval.analysis.diagnostics import StageCell
from memsuite.eval.analysis.stats import Interval
from memsuite.eval.benchmarks.meme.diagnostics import attribute_rows, stage_table
from memsuite.eval.benchmarks.meme.paper import (
    PAPER_COST_PER_EPISODE,
    PAPER_MAIN_TABLE,
    PAPER_ROW_OF_SYSTEM,
    PAPER_SETUP,
    protocol_differences,
)
from memsuite.eval.benchmarks.meme.schema import BEFORE_TASK_TYPES
from memsuite.eval.benchmarks.meme.scoring import TASKS as MEME_TASKS
from memsuite.eval.benchmarks.meme.scoring import after_passes, before_passes
from memsuite.eval.protocol import Row
from memsuite.eval.report.caveats import (
    ORACLE_CEILING,
    ORACLE_NOTE,
    left_out_mark,
    left_out_note,
    oracle_from,
    oracle_roles,
    oracle_system,
    whole_memory_counts,
    whole_memory_mark,
    whole_memory_note,
    whole_memory_text,
)
from memsuite.eval.report.intervals import cell_intervals, interval_note
from memsuite.eval.report.kit import JudgeScores, Records, judges_in
from memsuite.eval.report.layout import has_number, ordered_systems, run_cell, run_column, slug, stage_figures
from memsuite.eval.report.layout import stage_table as stage_records_table
from memsuite.eval.report.model import NA, Cell, Figure, ReportOptions, Section, Table
from memsuite.eval.report.runs import llm_label
from memsuite.eval.report.usage import USAGE_COLUMNS, usage_record, usage_summary, usage_table
from memsuite.eval.run.folder import RunFolder

#: MEME judges from the most to the least paper-like; tables come in this order.
MEME_JUDGE_ORDER = ("llm", "rule", "evidence")
MEME_JUDGE_NOTES = {
    "evidence": "judge: evidence -- the retrieved context holds what the question needs (the value(s); "
    "for Cas the new value and the upstream change, for Abs the stated dependency and the change, for "
    "Del the deletion request or no trace of the value; eval/benchmarks/meme/evidence.py); no answer "
    "LLM is involved: it measures retrieval, not answers (not an upper bound on answer accuracy for Del "
    "and Abs, where a refusal can pass without the evidence), and is not comparable to the paper's "
    "numbers. n/a: rows of a run made before a task had an evidence rule.",
    "rule": "judge: rule -- memsuite's deterministic judge of the answer LLM's answers "
    "(eval/benchmarks/meme/judges/rule.py).",
    "llm": "judge: llm -- the rubric judge asked through the run's judge LLM (judge_llm; the answer LLM "
    "when unset, which the run header records; the paper used GPT-4o).",
}
MEME_TABLE_NOTES = (
    PAPER_SETUP,
    "rates are over after-questions; Cas, Abs and Del pass only when the before-question on the same "
    "entity passed (trivial-pass filter); Overall = mean of the six task rates; questions = "
    "after-questions scored.",
    "paper cost_usd_per_unit = the paper's cost per episode, ingest + inference: "
    + ", ".join(f"{k} ${a:.2f}/${b:.2f}" for k, (a, b) in PAPER_COST_PER_EPISODE.items())
    + ".",
)
MEME_FILTER_LABELS = ("real", "trivial", "knew_but_failed", "never_knew", "unfiltered")


#: The oracle note under MEME's tables: gold answers also keep a run out of the answer judges' tables.
MEME_ORACLE_NOTE = (
    f"{ORACLE_NOTE} No published row is printed beside them, and a run whose answers were gold is left "
    "out of the answer judges' tables (its answers pass by construction): read its evidence table and "
    "failure stages."
)


def _meme_judges(runs: Sequence[RunFolder]) -> list[str]:
    return judges_in(runs, MEME_JUDGE_ORDER)


def _meme_scores(run: RunFolder, system: str, judge: str) -> JudgeScores | None:
    return run.scores(system).judge(judge)


def meme_undefined_tasks(rows: Sequence[Row], judge: str) -> set[str]:
    """Tasks whose after-questions all lack a verdict of ``judge`` (no rule applies to them).

    Their rate in :func:`~memsuite.eval.benchmarks.meme.scoring.meme_scores` is an artifact (a missing verdict
    counts as a fail), so tables print them as n/a.
    """
    verdicts: dict[str, list[Any]] = defaultdict(list)
    for row in rows:
        if row.metadata.get("phase") == "after":
            verdict = row.verdicts.get(judge)
            correct = verdict.get("correct") if isinstance(verdict, dict) else None
            verdicts[row.metadata.get("task")].append(correct)
    return {task for task, values in verdicts.items() if values and all(v is None for v in values)}


def meme_task_cells(run: RunFolder, system: str, judge: str) -> dict[str, Cell]:
    """ER..Abs and Overall of one system under one judge, with n/a for undefined tasks."""
    scores = _meme_scores(run, system, judge) or JudgeScores()
    undefined = meme_undefined_tasks(run.rows(system), judge)
    cells: dict[str, Cell] = {
        task: NA if task in undefined else scores.at("tasks", task) for task in MEME_TASKS
    }
    cells["Overall"] = NA if undefined else scores.at("Overall")
    return cells


def meme_intervals(run: RunFolder, system: str, judge: str) -> dict[str, Interval]:
    """Task and Overall intervals of one system under one judge, resampling episodes.

    Overall is the mean of the six task rates, so its resamples recompute that mean (not the rate
    over all questions).
    """
    passes = after_passes(run.rows(system), judge)

    def episode(p: tuple[Row, str, float]) -> str:
        return p[0].unit_id

    tasks = cell_intervals(passes, lambda p: p[2], lambda p: (p[1],), unit=episode)
    overall = cell_intervals(
        passes, lambda p: p[2], lambda p: ("Overall",), unit=episode, group=lambda p: p[1]
    )
    return {**tasks, **overall}


def meme_before_intervals(run: RunFolder, system: str, judge: str) -> dict[str, Interval]:
    """``before_<task>`` -> interval of the before-questions' pass rate, resampling episodes."""
    return cell_intervals(
        before_passes(run.rows(system), judge),
        lambda p: p[2],
        lambda p: (f"before_{p[1]}",),
        unit=lambda p: p[0].unit_id,
    )


def meme_outcomes(rows: Sequence[Row], judge: str) -> list[Outcome]:
    """Each after-question's pass (trivial-pass filter applied), for paired comparisons."""
    passes = after_passes(list(rows), judge)
    return [Outcome(row.unit_id, row.question_id, task, value) for row, task, value in passes]


#: How ``memsuite compare`` counts this benchmark's questions (named by its spec).
OUTCOMES = OutcomeSpec(
    meme_outcomes,
    MEME_JUDGE_ORDER,
    "episode",
    overall_is_mean_of_cells=True,
    cells=MEME_TASKS,
    stages=lambda rows, path: attribute_rows(rows, path),
    headline="Overall (mean of the task rates)",
)


def _paper_row_name(run: RunFolder, system: str) -> str | None:
    return PAPER_ROW_OF_SYSTEM.get(run.registry_name(system)) or PAPER_ROW_OF_SYSTEM.get(system)


def render_meme(runs: list[RunFolder], options: ReportOptions) -> Section:
    """MEME: the paper's main table per judge beside the published rows, filter diagnostics, plots."""
    section = Section("MEME")
    prefix = run_column(runs, options)
    judges = _meme_judges(runs)
    systems = ordered_systems(runs)
    main_columns = (
        *prefix, "system", "from", *MEME_TASKS, "Overall", "questions", "left out", "whole memory",
        *USAGE_COLUMNS,
    )  # fmt: skip
    cut_notes = _meme_cut_notes(runs, systems)
    for judge in judges:
        records = Records()
        differences: list[str] = []
        flagged = recorded = ceilings = 0
        for system in systems:
            paper_name, ours = None, []
            for run in runs:
                scores = _meme_scores(run, system, judge)
                if scores is None:
                    continue
                oracle = oracle_roles(run, system)
                if oracle and judge != "evidence" and "answer" in oracle:
                    ceilings += 1  # gold answers: not where a model's answers are read
                    continue
                if not oracle:  # a published row stands beside model rows only
                    paper_name = paper_name or _paper_row_name(run, system)
                    ours.append(run)
                n_failed = scores.part("n_failed")
                whole = meme_whole_memory(run, system)
                flagged += sum(f for f, _ in whole.values())
                recorded += sum(n for _, n in whole.values())
                marks = {
                    task: left_out_mark(scores.at("n_failed", task)) + whole_memory_mark(whole, task)
                    for task in MEME_TASKS
                }
                marks["Overall"] = left_out_mark(sum(n_failed.values())) + whole_memory_mark(whole)
                cells = meme_task_cells(run, system, judge)
                # A dash or n/a carries no caveat (nor an interval: Records places those on numbers only).
                marks = {c: mark for c, mark in marks.items() if isinstance(cells.get(c), int | float)}
                records.add(
                    {
                        **run_cell(run, prefix),
                        "system": system,
                        "from": oracle_from(run, system) if oracle else "memsuite",
                        **cells,
                        "questions": sum(scores.part("n").values()) or None,
                        "left out": sum(n_failed.values()),
                        "whole memory": whole_memory_text(whole, MEME_TASKS) or None,
                        **usage_record(usage_summary(run, system, options.prices)),
                    },
                    meme_intervals(run, system, judge),
                    marks,
                )
            if paper_name in PAPER_MAIN_TABLE:
                cost = PAPER_COST_PER_EPISODE.get(paper_name)
                records.add(
                    {
                        **({prefix[0]: "paper"} if prefix else {}),
                        "system": paper_name,
                        "from": "paper",
                        **PAPER_MAIN_TABLE[paper_name],
                        "cost_usd_per_unit": sum(cost) if cost else None,
                    }
                )
                differences += [_paper_differences(run, system, paper_name, judge, runs) for run in ours]
        notes = (
            MEME_JUDGE_NOTES.get(judge, f"judge: {judge}"),
            *MEME_TABLE_NOTES,
            interval_note("episode"),
            *differences,
            *left_out_note(any(r.get("left out") for r in records.rows)),
            *((whole_memory_note(flagged, recorded),) if flagged else ()),
            *cut_notes,
            *(
                (MEME_ORACLE_NOTE,)
                if ceilings or any(str(r.get("from")).startswith(ORACLE_CEILING) for r in records.rows)
                else ()
            ),
        )
        # A judge every run of which had gold answers has no rows: its table is not printed.
        title = f"MEME main table -- judge: {judge}"
        section.tables.append(records.table(f"meme_main_{judge}", title, main_columns, notes))
    cut = _meme_cut_table(runs, systems, prefix)
    if cut is not None:
        section.tables.append(cut)
    section.tables += [
        _meme_filter_table(runs, systems, judge, prefix)
        for judge in judges
        if judge == "evidence" or any("answer" not in oracle_roles(run) for run in runs)
    ]
    agreement = _meme_agreement_table(runs, systems, prefix)
    if agreement is not None:
        section.tables.append(agreement)
    stages = _meme_stage_table(runs, systems, prefix)
    if stages is not None:
        section.tables.append(stages)
    section.tables.append(usage_table("meme_usage", "MEME usage and cost", runs, options))
    if judges:
        section.figures += _meme_figures(runs, systems, judges, options)
    if stages is not None and options.sweep is None:  # an ablation's variants would give one figure each
        section.figures += stage_figures(runs, stages, prefix, "MEME", MEME_TASKS, "task")
    return section


def meme_whole_memory(run: RunFolder, system: str) -> dict[str, tuple[int, int]]:
    """Task -> (after-questions whose context was the whole memory, after-questions with the flag)."""
    after = [row for row in run.rows(system) if row.metadata.get("phase") == "after"]
    return whole_memory_counts(after, lambda row: row.metadata.get("task"))


def _paper_differences(run: RunFolder, system: str, paper_name: str, judge: str, runs) -> str:
    spec = next(
        (s for s in run.config.get("systems") or [] if (s.get("label") or s.get("name")) == system),
        {"name": run.registry_name(system)},
    )
    rows = run.rows(system)
    source = run.scores(system).at("source")
    found = protocol_differences(
        run.header, spec, paper_name, judge, len({row.unit_id for row in rows}), source
    )
    ours = f"{system}" + (f" ({run.label})" if len(runs) > 1 else "")
    if not found:
        return f"{paper_name} (paper) vs {ours}: same protocol on every point checked from the run header."
    return f"{paper_name} (paper) vs {ours} -- protocol differs: " + "; ".join(found) + "."


def meme_cut_counts(rows: Sequence[Row]) -> tuple[int, int, int]:
    """(questions, questions whose context was cut to the answer model's window, cuts that dropped
    evidence: the evidence verdict passed on the full context and fails on the cut one)."""
    cut = [row for row in rows if row.metadata.get("context_truncated")]
    dropped = sum(
        1
        for row in cut
        if (row.verdicts.get("evidence") or {}).get("correct") is True
        and row.metadata.get("evidence_after_cut") is False
    )
    return len(rows), len(cut), dropped


def _meme_cut_notes(runs: Sequence[RunFolder], systems: Sequence[str]) -> list[str]:
    notes = []
    for run in runs:
        for system in systems:
            questions, _, dropped = meme_cut_counts(run.rows(system))
            if dropped:
                where = f" ({run.label})" if len(runs) > 1 else ""
                notes.append(
                    f"{system}{where}: cutting the context to the answer model's window dropped evidence "
                    f"the memory had returned for {dropped} of {questions} questions (table 'MEME context "
                    "cut'): those answers could not use it."
                )
    return notes


def _meme_cut_table(runs, systems, prefix) -> Table | None:
    records = []
    for system in systems:
        for run in runs:
            questions, cut, dropped = meme_cut_counts(run.rows(system))
            if cut:
                records.append(
                    {
                        **run_cell(run, prefix),
                        "system": system,
                        "questions": questions,
                        "context cut": cut,
                        "evidence dropped by the cut": dropped,
                    }
                )
    if not records:
        return None
    return Table.from_records(
        "meme_context_cut",
        "MEME context cut to the answer model's window",
        (*prefix, "system", "questions", "context cut", "evidence dropped by the cut"),
        records,
        (
            "context cut: questions (before and after) whose context was cut to the answer model's "
            "window before the answer call (metadata.context_truncated); evidence dropped: the evidence "
            "judge passes the context the memory handed over and fails the cut one "
            "(metadata.evidence_after_cut), so the answer model never saw what the memory found. The "
            "evidence table judges the context handed over (after the run's context_tokens budget).",
        ),
    )


MEME_STAGE_NOTES = (
    "Failure-stage attribution (eval/benchmarks/meme/diagnostics.py), after-questions: share of each "
    "system's questions per task whose first failing stage is encoded (the value never reached memory "
    "after its session), maintained (the snapshot at question time lacks the current state: new value, "
    "deletion, history, stated dependency or uncertainty), retrieved (the context handed to the answer "
    "LLM lacks it), or answered (the judge failed the answer); none = no stage failed.",
    "answer_judge: the verdict behind 'answered' (llm, else rule); 'none' = the run had no answer LLM, so "
    "'answered' is undecided and 'none' means the question passed up to retrieval.",
)


def _meme_stage_cells(run: RunFolder, systems: Sequence[str]) -> list[StageCell]:
    rows = [row for system in systems for row in run.rows(system)]
    cells = stage_table(attribute_rows(rows, run.path))
    return [replace(cell, system=oracle_system(run, cell.system)) for cell in cells]


def _meme_stage_table(runs, systems, prefix) -> Table | None:
    return stage_records_table(
        "meme_failure_stages",
        "MEME failure stages (after-questions)",
        runs,
        prefix,
        lambda run: _meme_stage_cells(run, systems),
        "task",
        MEME_STAGE_NOTES,
        "episode",
        "questions",
    )


def _meme_filter_table(runs, systems, judge, prefix) -> Table:
    records = Records()
    for system in systems:
        for run in runs:
            scores = _meme_scores(run, system, judge)
            oracle = oracle_roles(run, system)
            if scores is None or (oracle and judge != "evidence" and "answer" in oracle):
                continue
            record = {
                **run_cell(run, prefix),
                "system": oracle_system(run, system),
                **{f"before_{t}": scores.at("before", t) for t in BEFORE_TASK_TYPES},
                **{label: scores.at("filter", label) or 0 for label in MEME_FILTER_LABELS},
                "judge_failures": scores.at("judge_failures"),
            }
            records.add(record, meme_before_intervals(run, system, judge))
    columns = (*prefix, "system", *(f"before_{t}" for t in BEFORE_TASK_TYPES), *MEME_FILTER_LABELS)
    note = (
        "before_*: pass rate of the before-questions (asked for ER, Del, Cas, Abs only). Filter labels "
        "count Cas/Abs/Del after-answers: real = before and after pass; trivial = after passes without "
        "the before-question; knew_but_failed; never_knew; unfiltered = no before-question on that entity."
    )
    return records.table(
        f"meme_filter_{judge}",
        f"MEME before-questions and trivial-pass filter -- judge: {judge}",
        (*columns, "judge_failures"),
        (
            note,
            "Intervals are on the before_* rates; the filter labels and judge_failures are counts.",
            interval_note("episode"),
        ),
    )


def _meme_agreement_table(runs, systems, prefix) -> Table | None:
    records = []
    for system in systems:
        for run in runs:
            scores = run.scores(system)
            agreement = scores.part("agreement_rule_llm")
            if agreement:
                records.append(
                    {
                        **run_cell(run, prefix),
                        "system": system,
                        **agreement,
                        "rule_only_true": scores.at("agreement_rule_llm", "a_only_true"),
                        "llm_only_true": scores.at("agreement_rule_llm", "b_only_true"),
                    }
                )
    if not records:
        return None
    return Table.from_records(
        "meme_judge_agreement",
        "MEME rule judge vs LLM judge",
        (*prefix, "system", "n", "agreement", "kappa", "rule_only_true", "llm_only_true", "excluded"),
        records,
        ("kappa: Cohen's kappa (a dash when undefined: one judge constant on the sample).",),
    )


def _meme_figures(runs, systems, judges, options: ReportOptions) -> list[Figure]:
    axis = (*MEME_TASKS, "Overall")
    if options.sweep is None:
        figures = []
        for run in runs:
            # Each run's bars use its own most paper-like judge (runs of one report may differ); gold
            # answers pass by construction, so an oracle-answered run shows its evidence.
            ceiling = "answer" in oracle_roles(run)
            present = _meme_judges([run]) or judges
            judge = "evidence" if ceiling and "evidence" in present else present[0]
            scores = {s: meme_task_cells(run, s, judge) for s in run.systems}
            # Published bars only beside answer judges: evidence is not what the paper measured.
            reference = {}
            if judge != "evidence" and not oracle_roles(run):
                for system in run.systems:
                    name = _paper_row_name(run, system)
                    if name in PAPER_MAIN_TABLE:
                        reference[f"{name} (paper)"] = PAPER_MAIN_TABLE[name]
            stem = "meme_tasks" if len(runs) == 1 else f"meme_tasks_{slug(run.label)}"
            answers = llm_label(run.header.get("answer_llm"))
            title = f"MEME per task -- {run.label}, judge {judge}, answers {answers}"
            if oracle_roles(run):
                title += f" -- {oracle_from(run)}"
            intervals = {s: meme_intervals(run, s, judge) for s in run.systems}
            draw = partial(
                plotting.plot_task_bars, scores, axis, title=title, reference=reference, intervals=intervals
            )
            figures.append(Figure(stem, title, draw))
        return figures
    judge, sweep = judges[0], options.sweep
    cells = {(run.label, s): meme_task_cells(run, s, judge) for run in runs for s in run.systems}
    intervals = {(run.label, s): meme_intervals(run, s, judge) for run in runs for s in run.systems}

    def series(task: str) -> dict[str, list[Cell]]:
        return {s: [cells.get((run.label, s), {}).get(task) for run in runs] for s in systems}

    def band(task: str, system: str) -> list[tuple[float, float] | None]:
        found = [intervals.get((run.label, system), {}).get(task) for run in runs]
        return [(i.lo, i.hi) if i is not None else None for i in found]

    panels = {task: series(task) for task in axis if has_number(series(task))}
    bands = {task: {s: band(task, s) for s in systems} for task in panels}
    counts = sorted({i.n for found in intervals.values() for task, i in found.items() if task == "Overall"})
    if "Overall" not in panels and panels:
        # Overall is n/a under the evidence judge: show the mean of the tasks that are defined.
        defined = list(panels)
        panels[f"mean of {' '.join(defined)}"] = {
            s: [_mean_of(cells.get((run.label, s), {}), defined) for run in runs] for s in systems
        }
    n = f"{counts[0]}-{counts[-1]}" if len(counts) > 1 else str(counts[0]) if counts else "?"
    title = f"MEME vs {sweep.key} -- judge {judge}; n = {n} questions per point, 95% bands (episodes)"
    draw = partial(plotting.plot_sweep_curves, sweep.axis, panels, title=title, xlabel=sweep.key, bands=bands)
    return [Figure(f"meme_sweep_{slug(sweep.key.split('.')[-1])}", title, draw)]


def _mean_of(cells: Mapping[str, Cell], keys: Sequence[str]) -> float | None:
    values = [cells[k] for k in keys if isinstance(cells.get(k), int | float)]
    return sum(values) / len(values) if values else None
