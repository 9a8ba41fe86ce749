"""The BEAM report section: evidence retrieval per ability and scale, answer scores in the paper's
layout (abilities x systems, per scale), published rows, usage.

Every rate carries its 95 % interval resampling conversations (the questions of one conversation share
its memory). The evidence table is recall_all@10 of the evidence messages per ability; the answer tables
are BEAM's per-question score (the ``llm`` judge) and the LLM-free ``rule`` judge's score with its
coverage (the share of rubric items a rule decided). Published numbers (:mod:`.paper`) follow with how
their protocol differs.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from memsuite.eval.analysis.compare import Outcome, OutcomeSpec
from memsuite.eval.benchmarks.beam.paper import PUBLISHED, PUBLISHED_NOTE
from memsuite.eval.benchmarks.beam.schema import ABILITIES, SCALES
from memsuite.eval.benchmarks.beam.scoring import ability_of, answer_value, scale_of
from memsuite.eval.protocol import Row
from memsuite.eval.report.intervals import interval_note
from memsuite.eval.report.kit import Records, ranking_intervals, rate_intervals
from memsuite.eval.report.layout import ordered_systems, run_cell, run_column
from memsuite.eval.report.model import ReportOptions, Section, Table
from memsuite.eval.report.usage import usage_table
from memsuite.eval.retrieval_qa.evidence import METRICS
from memsuite.eval.retrieval_qa.published import add_published
from memsuite.eval.retrieval_qa.scores import row_metrics
from memsuite.eval.run.folder import RunFolder

#: The evidence table's metric.
EVIDENCE = "recall_all@10"
RETRIEVAL_JUDGE = "retrieval"
_SCALE_NAMES = {"100K": "128K"}


def scale_label(scale: str) -> str:
    """The paper's name of a release scale folder (``100K`` is its 128K scale)."""
    return _SCALE_NAMES.get(scale, scale)


def _metric(row: Row, name: str) -> float | None:
    metrics = row_metrics(row)
    value = None if metrics is None else metrics.get(name)
    return None if value is None else float(value)


def _scales(runs: Sequence[RunFolder], systems: Sequence[str]) -> list[str]:
    seen = {scale_of(r) for run in runs for s in systems if s in run.systems for r in run.rows(s)}
    return list(dict.fromkeys(s for s in (*SCALES, *sorted(seen)) if s in seen))


def _at_scale(
    runs: Sequence[RunFolder], systems: Sequence[str], scale: str
) -> Iterator[tuple[RunFolder, str, list[Row]]]:
    """(run, system, its rows of one scale) in table order: systems first, then runs."""
    for system in systems:
        for run in runs:
            if system in run.systems:
                yield run, system, [r for r in run.rows(system) if scale_of(r) == scale]


def _by_ability_table(
    runs: Sequence[RunFolder],
    systems: Sequence[str],
    prefix: tuple[str, ...],
    scale: str,
    value,
    name: str,
    title: str,
    notes: tuple[str, ...],
    extra=None,
) -> Table:
    records = Records()
    for run, system, rows in _at_scale(runs, systems, scale):
        found = rate_intervals(rows, value, lambda r: (ability_of(r), "overall"), unit=lambda r: r.unit_id)
        if not found:
            continue
        record: dict[str, Any] = {**run_cell(run, prefix), "system": system}
        for cell in (*ABILITIES, "overall"):
            interval = found.get(cell)
            record[cell] = None if interval is None else interval.value
        record["n"] = found["overall"].n if "overall" in found else 0
        if extra is not None:
            record.update(extra(rows))
        records.add(record, found)
    columns = (*prefix, "system", *ABILITIES, "overall", "n")
    if extra is not None and records.rows:
        columns += tuple(k for k in records.rows[0] if k not in columns)
    return records.table(
        name,
        title,
        columns,
        (*notes, interval_note("conversation")),
        {c: ".1f" for c in (*ABILITIES, "overall")},
    )


def _coverage(rows: list[Row]) -> dict[str, Any]:
    items = decided = 0
    for row in rows:
        listed = (row.verdicts.get("rule") or {}).get("items") or []
        items += len(listed)
        decided += sum(1 for i in listed if i.get("passed") is not None)
    return {"coverage": 100.0 * decided / items if items else None}


def render(runs: list[RunFolder], options: ReportOptions) -> Section:
    """Evidence per ability and scale, answer scores per ability and scale, published rows, usage."""
    section = Section("BEAM")
    prefix = run_column(runs, options)
    systems = ordered_systems(runs)
    for scale in _scales(runs, systems):
        label = scale_label(scale)
        table = _by_ability_table(
            runs,
            systems,
            prefix,
            scale,
            lambda r: _metric(r, EVIDENCE),
            f"beam_evidence_{label}",
            f"BEAM {label}: evidence recall_all@10 per ability (%)",
            (
                "LLM-free: every evidence message of the question (source_chat_ids, at the run's "
                "granularity) among the top 10 of the system's ranking of the whole conversation. "
                "Questions without evidence ids (abstention, two others) are left out.",
            ),
        )
        section.tables += [table, _retrieval_table(runs, systems, prefix, scale)]
        for judge, title, note, extra in (
            (
                "llm",
                "answer score, BEAM's rubric judge (%)",
                "BEAM's per-question score through the run's judge LLM: the mean of its rubric items' "
                "scores (0, 0.5, 1); event ordering: Kendall tau-b (normalised) times F1 of the aligned "
                "list. Failed calls are left out.",
                None,
            ),
            (
                "rule",
                "answer score, LLM-free rule judge (%)",
                "LLM-free: the mean of the rubric items a documented rule decides "
                "(eval/benchmarks/beam/judges/rule.py); coverage = the share of rubric items decided.",
                _coverage,
            ),
        ):
            section.tables.append(
                _by_ability_table(
                    runs,
                    systems,
                    prefix,
                    scale,
                    lambda r, j=judge: answer_value(r, j),
                    f"beam_{judge}_{label}",
                    f"BEAM {label}: {title}",
                    (note,),
                    extra,
                )
            )
    add_published(
        section,
        "beam_published",
        "BEAM answer scores, published (%)",
        ("system", "scale", *ABILITIES, "overall", "source"),
        (
            {"system": p.system, "scale": p.scale, **p.by_ability, "overall": p.overall, "source": p.source}
            for p in PUBLISHED
        ),
        (PUBLISHED_NOTE,),
        (*ABILITIES, "overall"),
        none=f"Published BEAM answer scores: none. {PUBLISHED_NOTE}",
    )
    section.tables.append(usage_table("beam_usage", "BEAM usage and cost", runs, options))
    return section


def _retrieval_table(runs, systems, prefix, scale) -> Table:
    names = tuple(f"{m}@{k}" for k in (5, 10, 50) for m in METRICS)
    records = Records()
    for run, system, rows in _at_scale(runs, systems, scale):
        found = ranking_intervals(rows, _metric, names, unit=lambda r: r.unit_id)
        if not found:
            continue
        record = {
            **run_cell(run, prefix),
            "system": system,
            **{n: found[n].value if n in found else None for n in names},
            "n": max(i.n for i in found.values()),
            "conversations": len({r.unit_id for r in rows}),
        }
        records.add(record, found)
    return records.table(
        f"beam_retrieval_{scale_label(scale)}",
        f"BEAM {scale_label(scale)}: evidence retrieval, all abilities (%)",
        (*prefix, "system", *names, "n", "conversations"),
        (
            "recall_any: any evidence message in the top k; recall_all: every one; evidence_recall: the "
            "share retrieved. Depths 1, 3, 5, 10, 30, 50 and the run's k are in summary.json.",
            interval_note("conversation"),
        ),
        {n: ".1f" for n in names},
    )


def beam_outcomes(rows: Sequence[Row], judge: str) -> list[Outcome]:
    """Each question's value under ``judge`` (``retrieval``: its recall_all@10), per ability."""
    out = []
    for row in rows:
        value = _metric(row, EVIDENCE) if judge == RETRIEVAL_JUDGE else answer_value(row, judge)
        if value is not None:
            out.append(Outcome(row.unit_id, row.question_id, ability_of(row), value))
    return out


OUTCOMES = OutcomeSpec(
    beam_outcomes,
    ("llm", "rule", RETRIEVAL_JUDGE),
    "conversation",
    cells=ABILITIES,
    headline="overall (all abilities)",
    judge_headlines={RETRIEVAL_JUDGE: "evidence recall_all@10 (questions with evidence ids)"},
)
