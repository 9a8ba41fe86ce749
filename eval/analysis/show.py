"""A run's questions as records, one per row: what was asked, the gold answer, the answer, every
verdict, the outcome the benchmark's rates count, the failure stage where the benchmark attributes
one, and the retrieved context -- for ``memsuite show`` and, in notebooks, :func:`records`.

``outcome`` is the question's value under the chosen judge as the benchmark's rates count it (MEME's
trivial-pass filter applied; 1.0 / 0.0 for a verdict, a score otherwise), None when the rates leave
the question out (a failed call, an undefined verdict, a MEME before-question). A question *failed*
when its outcome is below 1.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from typing import Any

from memsuite.eval.hooks import OutcomeSpec
from memsuite.eval.protocol import Row
from memsuite.eval.report.usage import answer_ms, retrieve_ms
from memsuite.eval.run.folder import RunFolder
from memsuite.memory_systems.errors import ConfigError

#: Metadata keys naming a question's task or category, by benchmark convention.
_CELL_KEYS = ("task", "category", "qtype", "question_type", "ability", "checkpoint")
#: Characters of context a printed question shows.
EXCERPT = 400


def default_judge(run: RunFolder, spec: OutcomeSpec | None) -> str | None:
    """The benchmark's most preferred judge present in the run's rows (None when none is)."""
    present = {name for rows in run.rows_by_system.values() for row in rows for name in row.verdicts}
    present |= set(spec.derived if spec else ())
    order = [*(spec.judges if spec else ()), *sorted(present)]
    return next((j for j in order if j in present), None)


def question_records(
    run: RunFolder,
    judge: str | None = None,
    systems: Sequence[str] | None = None,
    *,
    spec: OutcomeSpec | None,
) -> list[dict[str, Any]]:
    """One record per row of the run (of ``systems``, default all): see the module docstring.
    ``spec``: the benchmark's outcomes (its definition's; None when it declares none: no outcome).

    Raises:
        ConfigError: ``judge`` is given and no row carries it, or a system is not in the run.
    """
    chosen = judge or default_judge(run, spec)
    if judge is not None and not any(judge in r.verdicts for rs in run.rows_by_system.values() for r in rs):
        raise ConfigError(f"{run.label}: no row carries a verdict of judge {judge!r}")
    for system in systems or ():
        if system not in run.systems:
            raise ConfigError(f"{run.label} has no system {system!r} (it has {', '.join(run.systems)})")
    records = []
    for system in systems or run.systems:
        rows = run.rows(system)
        outcomes = {}
        if spec is not None and chosen is not None:
            outcomes = {(o.unit, o.question): o.value for o in spec.outcomes(rows, chosen)}
        stages = {}
        if spec is not None and spec.stages is not None:
            stages = {(a.unit_id, a.question_id): a.first_failure for a in spec.stages(rows, run.path)}
        records += [_record(row, chosen, outcomes, stages) for row in rows]
    return records


def _cell(row: Row) -> str | None:
    return next((str(row.metadata[k]) for k in _CELL_KEYS if row.metadata.get(k) is not None), None)


def _record(row: Row, judge: str | None, outcomes: dict, stages: dict) -> dict[str, Any]:
    key = (row.unit_id, row.question_id)
    verdicts = {
        f"verdict {name}": (v.get("correct") if isinstance(v, dict) else None)
        for name, v in row.verdicts.items()
    }
    return {
        "system": row.system,
        "unit": row.unit_id,
        "question_id": row.question_id,
        "cell": _cell(row),
        "phase": row.metadata.get("phase"),
        "question": row.question,
        "gold": row.gold if isinstance(row.gold, str) else repr(row.gold),
        "answer": row.answer,
        "judge": judge,
        "outcome": outcomes.get(key),
        "stage": stages.get(key),
        **verdicts,
        "retrieve_ms": retrieve_ms(row),
        "answer_ms": answer_ms(row),
        "context": row.context,
    }


def select(
    records: Sequence[dict[str, Any]],
    *,
    cell: str | None = None,
    failed: bool = False,
    stage: str | None = None,
    limit: int | None = None,
) -> list[dict[str, Any]]:
    """Records of one task/category, failed ones (outcome below 1), or those failing first at ``stage``."""
    picked = [
        r
        for r in records
        if (cell is None or r["cell"] == cell)
        and (not failed or (r["outcome"] is not None and r["outcome"] < 1.0))
        and (stage is None or r["stage"] == stage)
    ]
    return picked[:limit] if limit is not None else picked


def _excerpt(text: Any, width: int = EXCERPT) -> str:
    text = " ".join(str(text or "").split())
    return text if len(text) <= width else text[:width] + " ..."


def format_record(record: dict[str, Any]) -> str:
    """A question as a few readable lines."""
    outcome = record["outcome"]
    state = "left out" if outcome is None else "passed" if outcome >= 1.0 else f"FAILED ({outcome:.2f})"
    head = f"[{record['system']}] {record['unit']}/{record['question_id']}"
    head += f"  {record['cell'] or ''}" + (f" ({record['phase']})" if record["phase"] else "")
    head += f"  {state} under {record['judge']}" + (f"  stage: {record['stage']}" if record["stage"] else "")
    verdicts = ", ".join(f"{k.split(' ', 1)[1]}={v}" for k, v in record.items() if k.startswith("verdict "))
    lines = [
        head,
        f"  question: {_excerpt(record['question'], 300)}",
        f"  gold: {_excerpt(record['gold'], 300)}",
    ]
    if record["answer"] is not None:
        lines.append(f"  answer: {_excerpt(record['answer'], 300)}")
    lines += [f"  verdicts: {verdicts or '-'}", f"  context: {_excerpt(record['context'])}"]
    return "\n".join(lines)


def records_csv(records: Sequence[dict[str, Any]]) -> str:
    """Records as CSV (the context cut to an excerpt; columns: the union of the records' keys)."""
    columns = list(dict.fromkeys(k for r in records for k in r)) or ["system"]
    out = io.StringIO()
    writer = csv.DictWriter(out, columns, lineterminator="\n")
    writer.writeheader()
    for record in records:
        writer.writerow({**record, "context": _excerpt(record.get("context"))})
    return out.getvalue()


def records(run: RunFolder, spec: OutcomeSpec | None, judge: str | None = None) -> Any:
    """One record per question of a finished run (under ``judge`` or the benchmark's preferred one),
    its outcomes read with ``spec`` (the benchmark's definition's ``outcomes``): a pandas DataFrame when
    pandas is installed (``pip install memsuite-bench[frames]``), else a list of dicts --
    ``records(run, definition(run.benchmark).outcomes)`` in a notebook.

    Raises:
        ConfigError: The run has not finished, or no row carries ``judge``.
    """
    return question_table(run.require_finished(), judge, spec=spec)


def question_table(run: RunFolder, judge: str | None = None, *, spec: OutcomeSpec | None) -> Any:
    """:func:`question_records` of every system under ``judge`` (default: the benchmark's preferred
    one) as a pandas DataFrame when pandas is installed, else the list of records."""
    records = question_records(run, judge, spec=spec)
    try:
        import pandas
    except ModuleNotFoundError:
        return records
    return pandas.DataFrame.from_records(records)
