"""Failure-stage attribution for DynamicMem: where a state key fails along encode -> maintain -> retrieve
-> answer, per (user, checkpoint, state key) State Completion row.

The stages, the first-failure rule and the aggregation are shared
(:mod:`memsuite.eval.analysis.diagnostics`); this module only decides the four verdicts from DynamicMem's
artefacts: the per-checkpoint memory probes the protocol writes to
``work/<system>/<user>/snapshots.jsonl.gz`` and the row's metadata (``value_evidence_ids``,
``retrieved_app_log_ids``, the verdicts).

**Gold evidence of the current value** (``value_evidence_ids``, :meth:`UserData.value_evidence_ids`):
the visible events whose ``golden_evidence`` shows the key holding exactly its gold value at the
checkpoint -- not the release's cumulative ``evidence_app_log_ids``, which also list events of values
the state no longer has (retrieving those does not let a system answer an updated key).

**Holding the current value.** A text (a memory snapshot, or the retrieved context) holds it:

- *id mode* -- when the text carries event ids (``"app_log_id": "..."``, i.e. the memory keeps raw
  events, as bm25 and dense do): at least one gold evidence id of the current value is among them;
- *value mode* -- otherwise (an LLM memory of extracted facts): the rule judge
  (:func:`.judges.judge_field_rule`) gives core 1 to every field of the gold value, reading the whole
  text, or one of its entries (lines), as the answer (clock times within 5 minutes, weekday sets, half
  of the key tokens, ...): one entry per fact keeps the other facts' weekdays out of a weekday set.

Stages (True, False, or None when the artefact is missing):

- ``encoded``: some probe at or before the checkpoint holds the current value.
- ``maintained``: the probe at the checkpoint holds it. (An append-only raw-event memory never loses
  an event, so for bm25/dense this equals ``encoded``.)
- ``retrieved``: the retrieved events hold it -- at least one gold evidence id of the current value
  among the row's ``retrieved_app_log_ids``; when no ids were retrieved (hits without event ids),
  value mode on the context.
- ``answered``: the answer judge passed (``correct``: every field has core 1), LLM judge first, else
  the rule judge; None when the run had no answer model.

The probe (:func:`.protocol.probe_record`), one JSON line per checkpoint: ``{"index", "checkpoint",
"chars", "app_log_ids", "snapshot"}``, where ``app_log_ids`` are the event ids found in the snapshot and
``snapshot`` is the text only when it holds no ids. A raw-event memory's text is the events themselves
-- recoverable from the data, and O(events x checkpoints) to store again -- and id mode needs only the
ids; an LLM memory is compact extracted text that value mode must read, so it is kept whole.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from memsuite.eval.analysis.diagnostics import (
    Attribution,
    StageCell,
    answer_verdict,
    attribute_units,
    snapshots_path,
)
from memsuite.eval.analysis.diagnostics import stage_table as _stage_table
from memsuite.eval.benchmarks.dynamicmem import judges, scoring
from memsuite.eval.benchmarks.dynamicmem.schema import CATEGORIES
from memsuite.eval.protocol import Row


@dataclass(frozen=True)
class Probe:
    """What the memory held at one checkpoint (one line of ``snapshots.jsonl.gz``)."""

    index: int
    """Position of the checkpoint (0 = C1)."""
    checkpoint: str
    """Its label, ``C1`` ..."""
    app_log_ids: frozenset[str]
    """Event ids found in the snapshot."""
    text: str | None
    """The snapshot, kept only when it holds no event ids (value mode reads it)."""


def load_probes(run_path: Path, system: str, unit_id: str) -> dict[str, Probe] | None:
    """The unit's probes by checkpoint label, or None when the run did not record them."""
    path = snapshots_path(run_path, system, unit_id)
    if not path.exists():
        return None
    probes = {}
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            r = json.loads(line)
            ids = frozenset(r["app_log_ids"])
            probes[r["checkpoint"]] = Probe(int(r["index"]), r["checkpoint"], ids, r["snapshot"])
    return probes


def holds_value(
    gold: Any, evidence_ids: Sequence[str], ids: Iterable[str], text: str | None
) -> tuple[bool | None, str]:
    """Whether a memory or context holds the current value: id mode when it has ids, else value mode.

    Args:
        gold: The key's gold value.
        evidence_ids: Gold evidence ids of the current value.
        ids: Event ids the text carries (empty: value mode).
        text: The text, for value mode (None: undecidable).

    Returns:
        The verdict (None when undecidable) and why.
    """
    ids = set(ids)
    if ids:
        found = sorted(ids.intersection(evidence_ids))
        return bool(found), f"evidence {found}" if found else f"none of the evidence {list(evidence_ids)}"
    if text is None:
        return None, "no text recorded"
    # A memory holds a field when the whole text or one of its entries (lines) does: read whole, a
    # memory's other entries would count against a field (every habit's weekdays beside the one asked).
    entries = [text, *(line for line in text.splitlines() if line.strip() and line.strip() != text.strip())]
    missed = [
        field.path
        for field in judges.value_fields(gold, None)
        if not any(
            judges.judge_field_rule(judges.Field(field.path, field.gold, entry, message=True)).core
            for entry in entries
        )
    ]
    return not missed, f"fields not held: {missed}" if missed else "every field held"


def attribute(row: Row, probes: Mapping[str, Probe] | None) -> Attribution:
    """The stage verdicts of one State Completion row (its ``phase`` is the key's change label)."""
    meta = row.metadata
    evidence = list(meta.get("value_evidence_ids") or meta.get("gold_evidence_ids") or [])
    reasons: dict[str, str] = {}
    probes = probes or {}
    current = probes.get(str(meta.get("checkpoint")))
    encoded = maintained = None
    if current is None:
        reasons["encoded"] = reasons["maintained"] = "no memory probe at this checkpoint recorded"
    else:
        earlier = sorted((p for p in probes.values() if p.index <= current.index), key=lambda p: p.index)
        verdicts = [holds_value(row.gold, evidence, p.app_log_ids, p.text) for p in earlier]
        maintained, why = verdicts[-1]
        if not maintained:
            reasons["maintained"] = why
        if any(v is True for v, _ in verdicts):
            encoded = True
        elif all(v is False for v, _ in verdicts):
            encoded, reasons["encoded"] = False, f"no probe up to {current.checkpoint} held it: {why}"
        else:
            reasons["encoded"] = "a probe could not be read"
    retrieved, why = holds_value(row.gold, evidence, meta.get("retrieved_app_log_ids") or [], row.context)
    if not retrieved:
        reasons["retrieved"] = why
    answered, judge = answer_verdict(row)
    if answered is None:
        reasons["answered"] = "no answer verdict (retrieval-only run or judge failure)"
    elif not answered:
        reasons["answered"] = "a field has core 0"
    return Attribution(
        system=row.system,
        unit_id=row.unit_id,
        question_id=row.question_id,
        task=str(meta.get("category")),
        phase=str(meta.get("change")),
        encoded=encoded,
        maintained=maintained,
        retrieved=retrieved,
        answered=answered,
        answer_judge=judge,
        reasons=reasons,
    )


def attribute_rows(rows: Iterable[Row], run_path: Path | None) -> list[Attribution]:
    """Attribute a run's State Completion rows (other rows are skipped), loading each unit's probes once."""

    def keep(row: Row) -> bool:
        return row.benchmark == "dynamicmem" and row.metadata.get("task") == scoring.STATE_COMPLETION

    load = partial(load_probes, run_path) if run_path is not None else None
    return attribute_units(rows, keep, load, attribute)


def stage_table(attributions: Iterable[Attribution]) -> list[StageCell]:
    """Shares failing first at each stage per system and state category, over all checkpoints and keys."""
    return _stage_table(attributions, phase=None, tasks=CATEGORIES)
