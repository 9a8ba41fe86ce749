"""Every row of a report's runs as page data: a compact index the question browser filters in full, and
per-row details (context, verdicts with reasons, usage, metadata) it loads a page at a time.

The index holds what a filter or a list line needs: run, system, unit, question id, task / category,
each judge's verdict as one letter (``p`` pass, ``f`` fail, ``u`` undecided -- a verdict without a
True/False, or a failed judge call -- and ``-`` where the judge did not judge the row), the failure
stage the benchmark attributes, whether two answer judges disagree (:mod:`..agreement`'s sources), and
short texts for the free-text filter. The retrieved contexts are kept apart from the details (the
free-text filter reads them a chunk at a time without the rest), each up to a per-row budget that
shrinks as a run grows (:func:`context_limit`); details replace long metadata and verdict values by
their size, so a 50,000-row run stays a folder under 30 MB. The page says how much of a context it
shows and searches, and ``rows.jsonl`` has everything whole. Question, gold and answer are in the
details only when the index holds them cut.

Evidence items are the strings a benchmark names as what a question needs (MEME's needed values,
LoCoMo's evidence turn ids, BEAM's relevant documents, LongMemEval's answer sessions): each is listed
with whether it occurs in the retrieved context, and the page marks where it does.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from memsuite.eval.analysis.show import question_records
from memsuite.eval.definition import BenchmarkDefinition
from memsuite.eval.hooks import OutcomeSpec
from memsuite.eval.protocol import Row
from memsuite.eval.report import agreement
from memsuite.eval.report.usage import answer_ms, retrieve_ms
from memsuite.eval.run.folder import RunFolder

#: Metadata keys whose values name a question's evidence items, by benchmark convention.
EVIDENCE_KEYS = ("values", "evidence", "relevant", "answer_session_ids", "evidence_ids")
#: Characters of context kept per row in a small run; larger runs keep less (:func:`context_limit`).
MAX_CONTEXT_CHARS = 20_000
#: Fewest characters of context kept per row however large the run.
MIN_CONTEXT_CHARS = 400
#: Characters of context the details of a whole report may hold before gzip (about 3x smaller after):
#: 20,000 per row up to 1,000 rows, 400 per row (windows around the evidence) at 50,000.
CONTEXT_BUDGET_CHARS = 20_000_000
#: Characters of question, gold and answer the index keeps for the list and the free-text filter.
INDEX_TEXT_CHARS = 240
#: A metadata or verdict value whose JSON is longer than this is summarised (rows.jsonl has it whole).
VALUE_CHARS = 200


@dataclass
class QuestionData:
    """The rows of a report as the page holds them; built by :func:`question_data`."""

    runs: list[str] = field(default_factory=list)
    """Run labels; an index entry's run is a position here."""
    systems: list[str] = field(default_factory=list)
    """System labels across runs."""
    judges: list[str] = field(default_factory=list)
    """Every judge name on any row; an entry's verdict letters follow this order."""
    cells: list[str] = field(default_factory=list)
    """Task / category / ability values."""
    stages: list[str] = field(default_factory=list)
    """Failure stages that occur."""
    index: list[list[Any]] = field(default_factory=list)
    """One entry per row: see :data:`INDEX_FIELDS`."""
    details: list[dict[str, Any]] = field(default_factory=list)
    """One per row, aligned with ``index``."""
    contexts: list[list[Any]] = field(default_factory=list)
    """One ``[kept context, [[start, end), ...] spans in the whole context]`` per row, aligned with
    ``index`` (see :func:`kept_context`)."""
    cut: int = 0
    """Rows whose context is kept in part."""

    def position(self, values: list[str], value: str | None) -> int | None:
        """``value``'s position in ``values`` (appended the first time); None stays None."""
        if value is None:
            return None
        if value not in values:
            values.append(value)
        return values.index(value)


#: The fields of an index entry, in order (the page reads them by these names).
INDEX_FIELDS = (
    "run",
    "system",
    "unit",
    "question_id",
    "cell",
    "stage",
    "verdicts",
    "disagree",
    "outcome",
    "question",
    "gold",
    "answer",
    "retrieve_ms",
)


def verdict_letter(verdict: Any) -> str:
    """``p`` / ``f`` for a verdict that decided, ``u`` for an undecided or failed one, ``-`` for none."""
    if not isinstance(verdict, Mapping):
        return "-"
    correct = verdict.get("correct")
    if verdict.get("failure") or not isinstance(correct, bool):
        return "u"
    return "p" if correct else "f"


def disagrees(row: Row, sources: Sequence[str]) -> bool:
    """Whether two of the answer judges' ``sources`` decided the row differently."""
    decided = {v for s in sources if (v := agreement.value(row, s)) is not None}
    return len(decided) > 1


def cell_label(row: Row, cell: str | None) -> str | None:
    """The task / category as the page shows it: with its name where the benchmark numbers its
    categories and names them too (LoCoMo's ``category`` 2 is ``temporal``)."""
    name = row.metadata.get("category_name")
    if cell is None or not isinstance(name, str) or name == cell:
        return cell
    return f"{cell} {name}"


def context_limit(n_rows: int) -> int:
    """Characters of context kept per row when a report holds ``n_rows`` rows."""
    return max(MIN_CONTEXT_CHARS, min(MAX_CONTEXT_CHARS, CONTEXT_BUDGET_CHARS // max(1, n_rows)))


def evidence_items(row: Row) -> list[str]:
    """The strings the benchmark names as the row's evidence (see the module docstring)."""
    items: list[str] = []
    for key in EVIDENCE_KEYS:
        found = row.metadata.get(key)
        values = found if isinstance(found, list | tuple) else [found] if isinstance(found, str) else []
        items += [str(v) for v in values if isinstance(v, str | int) and str(v).strip()]
    return list(dict.fromkeys(items))


def kept_context(context: str, items: Sequence[str], limit: int) -> tuple[str, list[list[int]]]:
    """The part of ``context`` the page shows (at most ``limit`` characters: windows around the
    evidence items it holds, else its head) and the [start, end) spans of those parts in the full text."""
    if len(context) <= limit:
        return context, [[0, len(context)]]
    hits = sorted(i for item in items if (i := context.find(item)) >= 0)
    if not hits:
        return context[:limit], [[0, limit]]
    width = max(200, limit // len(hits))
    spans: list[list[int]] = []
    for hit in hits:
        start = max(0, hit - width // 2)
        end = min(len(context), start + width)
        if spans and start <= spans[-1][1]:
            spans[-1][1] = max(spans[-1][1], end)
        else:
            spans.append([start, end])
    kept, total = [], 0
    for start, end in spans:
        end = min(end, start + limit - total)
        if end <= start:
            break
        kept.append([start, end])
        total += end - start
    return "".join(context[s:e] for s, e in kept), kept


def found_in(row: Row, item: str) -> bool:
    """Whether an evidence item was retrieved: it occurs in the context, or among the retrieved ids a
    benchmark records (LoCoMo's turn ids, which the context text need not show)."""
    ids = row.metadata.get("retrieved_dia_ids")
    return item in (row.context or "") or (isinstance(ids, list) and item in map(str, ids))


def _summarised(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """A mapping with each long value (a ranking of 50 ids, a block of metrics) replaced by its size."""
    out = {}
    for key, value in metadata.items():
        text = json.dumps(value, default=str)
        if len(text) > VALUE_CHARS:
            size = f"{len(value)} items" if isinstance(value, list | dict) else f"{len(text)} characters"
            value = f"({size}; whole in rows.jsonl)"
        out[key] = value
    return out


def _short(text: Any) -> str:
    text = text if isinstance(text, str) else json.dumps(text, default=str)
    return text if len(text) <= INDEX_TEXT_CHARS else text[:INDEX_TEXT_CHARS] + "…"


def _unless_short(text: Any) -> Any:
    """The whole text for the details when the index holds it cut, else None (the index has it)."""
    if text is None:
        return None
    whole = text if isinstance(text, str) else json.dumps(text, default=str)
    return text if len(whole) > INDEX_TEXT_CHARS else None


def _run_rows(run: RunFolder, spec: OutcomeSpec | None) -> Iterator[tuple[Row, dict[str, Any]]]:
    """Each row of a run with its ``memsuite show`` record (outcome, stage, cell), in the same order."""
    records = question_records(run, spec=spec)
    rows = [row for system in run.systems for row in run.rows(system)]
    yield from zip(rows, records, strict=True)


def question_data(runs: Sequence[RunFolder], definitions: Mapping[str, BenchmarkDefinition]) -> QuestionData:
    """The index and details of every row of ``runs``; ``definitions``: their benchmarks' (judges and
    outcomes), by name."""
    data = QuestionData()
    n_rows = sum(len(rows) for run in runs for rows in run.rows_by_system.values())
    limit = context_limit(n_rows)
    for run in runs:
        for rows in run.rows_by_system.values():
            for row in rows:
                for name in row.verdicts:
                    data.position(data.judges, name)
    for run in runs:
        run_index = data.position(data.runs, run.label)
        found = definitions.get(run.benchmark)
        judges = found.judges if found is not None else {}
        sources = {s: agreement.sources(judges, run.rows(s)) for s in run.systems}
        for row, record in _run_rows(run, found.outcomes if found is not None else None):
            verdicts = "".join(verdict_letter(row.verdicts.get(j)) for j in data.judges)
            outcome = record["outcome"]
            data.index.append(
                [
                    run_index,
                    data.position(data.systems, row.system),
                    row.unit_id,
                    row.question_id,
                    data.position(data.cells, cell_label(row, record["cell"])),
                    data.position(data.stages, record["stage"]),
                    verdicts,
                    1 if disagrees(row, sources.get(row.system, [])) else 0,
                    None if outcome is None else round(float(outcome), 4),
                    _short(row.question),
                    _short(row.gold),
                    None if row.answer is None else _short(row.answer),
                    retrieve_ms(row),
                ]
            )
            items = evidence_items(row)
            context, spans = kept_context(row.context or "", items, limit)
            data.contexts.append([context, spans])
            data.cut += len(context) < len(row.context or "")
            data.details.append(
                {
                    "question": _unless_short(row.question),
                    "gold": _unless_short(row.gold),
                    "answer": _unless_short(row.answer),
                    "context_chars": len(row.context or ""),
                    "evidence": [{"item": i, "found": found_in(row, i)} for i in items],
                    "verdicts": {
                        name: _summarised(v) if isinstance(v, Mapping) else v
                        for name, v in row.verdicts.items()
                    },
                    "judge": record["judge"],
                    "usage": row.usage,
                    "retrieve_ms": retrieve_ms(row),
                    "answer_ms": answer_ms(row),
                    "metadata": _summarised(row.metadata),
                }
            )
    return data
