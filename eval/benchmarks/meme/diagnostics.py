"""Failure-stage attribution for MEME: where along encode -> maintain -> retrieve -> answer a question fails.

Every MEME question is traced through four stages, from the run's recorded artefacts only: the
per-session memory snapshots (``work/<system>/<episode>/snapshots.jsonl.gz``), and the row (its
retrieved context, answer, verdicts, and the metadata the protocol records for this purpose:
``snapshot_index``, ``value_sessions``, ``names``, ``values``, ``old_value``).

Stages (each True, False, or None when the artefact it needs is missing):

- ``encoded``: every needed value appeared in some snapshot taken after the session that first
  conveyed it (and no later than question time).
- ``maintained``: the snapshot at question time holds the current state.
- ``retrieved``: the context handed to the answer LLM holds what the question needs.
- ``answered``: the answer judge passed -- the LLM judge when the row has one, else the rule judge;
  None when the run had no answer LLM (retrieval-only runs stop at ``retrieved``).

The first stage that is False is the question's ``first_failure``; ``none`` when no stage failed.

Rules per task (after the change; before-questions are judged like ER on their expected value):

======  ==================  =============================  ==============================================
task    needed values       maintained (snapshot at q.)    retrieved (context)
======  ==================  =============================  ==============================================
ER      the verbatim value  value present                  value present
Agg     the three values    all present                    all present
Tr      the three values    all present (history kept)     all present
Cas     the new value       new value present (applied     new value present, and the upstream change
                            fact or the stated rule)
Abs     the old value       old value present and a line   the same, and the upstream change
                            naming the entity (or holding
                            the old value) states the
                            dependency ("depend") or an
                            uncertainty marker
Del     the deleted value   deleted value absent           the deletion request, or the value absent
======  ==================  =============================  ==============================================

The rules live in :mod:`memsuite.eval.benchmarks.meme.evidence` (shared with the protocol): ``retrieved`` is
the row's ``evidence`` verdict, ``maintained`` applies
:func:`~memsuite.eval.benchmarks.meme.evidence.holds_state` to the snapshot. Values are found by
:func:`memsuite.eval.benchmarks.meme.matching.value_present` (verbatim, phrase, or the token rule for
descriptive values) and stated dependencies or doubts by
:mod:`memsuite.eval.benchmarks.meme.phrases`. The row's ``old_value`` is the protocol's
:func:`memsuite.eval.benchmarks.meme.release.old_value_of` (right on released Cascade questions, whose values
hold only the new value); rows without it fall back to the first value. Rows of runs made before
Abs and Del had an evidence rule fall back to the snapshot test on the context.

The stages, the first-failure rule and the aggregation are shared with the other benchmarks
(:mod:`memsuite.eval.analysis.diagnostics`); this module decides MEME's four verdicts.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable, Mapping, Sequence
from functools import partial
from pathlib import Path

from memsuite.eval.analysis.diagnostics import (
    Attribution,
    StageCell,
    answer_verdict,
    attribute_units,
    snapshots_path,
)
from memsuite.eval.analysis.diagnostics import stage_table as _stage_table
from memsuite.eval.benchmarks.meme.evidence import holds_state, needed_values
from memsuite.eval.benchmarks.meme.matching import value_present
from memsuite.eval.protocol import Row

#: Tasks in the paper's table order.
TASKS = ("ER", "Agg", "Tr", "Del", "Cas", "Abs")


def _needed(row: Row) -> list[str]:
    meta = row.metadata
    return needed_values(
        str(meta.get("task")),
        str(meta.get("phase")),
        str(row.gold),
        [str(v) for v in meta.get("values") or []],
        meta.get("old_value"),
    )


def _holds_state(text: str, row: Row, values: Sequence[str]) -> tuple[bool, str]:
    meta = row.metadata
    return holds_state(
        text,
        task=str(meta.get("task")),
        phase=str(meta.get("phase")),
        values=values,
        names=meta.get("names") or [],
        upstream=meta.get("upstream") or [],
    )


def attribute(row: Row, snapshots: Sequence[str] | None) -> Attribution:
    """The stage verdicts of one MEME row.

    Args:
        row: A MEME row (its metadata as :mod:`memsuite.eval.benchmarks.meme.protocol` writes it).
        snapshots: The unit's snapshot after every session, by session index; None when not recorded
            (``encoded`` and ``maintained`` are then None).

    Returns:
        The attribution.
    """
    meta = row.metadata
    values = _needed(row)
    reasons: dict[str, str] = {}
    position = meta.get("snapshot_index")
    encoded = maintained = None
    if snapshots is None or not isinstance(position, int) or not 0 <= position < len(snapshots):
        reasons["encoded"] = reasons["maintained"] = "no snapshot at question time recorded"
    elif not values:
        reasons["encoded"] = reasons["maintained"] = "no needed value known"
    else:
        seen = snapshots[: position + 1]
        starts = meta.get("value_sessions") or {}
        never = [v for v in values if not any(value_present(s, v) for s in seen[int(starts.get(v, 0)) :])]
        encoded = not never
        if never:
            reasons["encoded"] = f"never in memory after its session: {never}"
        maintained, why = _holds_state(snapshots[position], row, values)
        if not maintained:
            reasons["maintained"] = why
    evidence = row.verdicts.get("evidence")
    if isinstance(evidence, Mapping) and evidence.get("correct") is not None:
        retrieved = bool(evidence["correct"])
        if not retrieved:
            reasons["retrieved"] = str(evidence.get("reason"))
    elif values:
        retrieved, why = _holds_state(row.context, row, values)
        if not retrieved:
            reasons["retrieved"] = why
    else:
        retrieved = None
        reasons["retrieved"] = "no needed value known"
    answered, judge = answer_verdict(row)
    if answered is None:
        reasons["answered"] = "no answer verdict (retrieval-only run or judge failure)"
    elif not answered:
        reasons["answered"] = str(row.verdicts[judge].get("reason"))
    return Attribution(
        system=row.system,
        unit_id=row.unit_id,
        question_id=row.question_id,
        task=str(meta.get("task")),
        phase=str(meta.get("phase")),
        encoded=encoded,
        maintained=maintained,
        retrieved=retrieved,
        answered=answered,
        answer_judge=judge,
        reasons=reasons,
    )


# -- run folders ---------------------------------------------------------------------------------------


def load_snapshots(run_path: Path, system: str, unit_id: str) -> list[str] | None:
    """The unit's snapshots by session index, or None when the run did not record them."""
    path = snapshots_path(run_path, system, unit_id)
    if not path.exists():
        return None
    by_index: dict[int, str] = {}
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            record = json.loads(line)
            by_index[int(record["index"])] = record["snapshot"]
    # A resumed unit rewrites its file; a gap would shift indexes, so refuse it instead.
    if sorted(by_index) != list(range(len(by_index))):
        return None
    return [by_index[i] for i in range(len(by_index))]


def attribute_rows(rows: Iterable[Row], run_path: Path | None) -> list[Attribution]:
    """Attribute MEME rows, loading each (system, episode)'s snapshots once from ``run_path``.

    Args:
        rows: Rows of a MEME run (other benchmarks' rows are skipped).
        run_path: The run folder holding the snapshots; None attributes without snapshots.

    Returns:
        One attribution per MEME row, in row order.
    """
    load = partial(load_snapshots, run_path) if run_path is not None else None
    return attribute_units(rows, lambda row: row.benchmark == "meme", load, attribute)


# -- aggregation ---------------------------------------------------------------------------------------


def stage_table(attributions: Iterable[Attribution], *, phase: str | None = "after") -> list[StageCell]:
    """Shares failing first at each stage per system and task (the paper's order), over one phase.

    Args:
        attributions: Output of :func:`attribute_rows`.
        phase: ``after`` (the paper's failure analysis) or ``before``; None counts every phase.
    """
    return _stage_table(attributions, phase=phase, tasks=TASKS)
