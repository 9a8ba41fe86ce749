"""DynamicMem's report of a run served by the oracle LLM endpoint: every row of its checkpoint, retention
and failure-stage tables says it is a ceiling; a run with model LLMs keeps its plain names."""

from __future__ import annotations

import gzip
import json

import pytest
from runfolders import table_of, write_run

from memsuite.eval.benchmarks.dynamicmem.protocol import SNAPSHOT_FILE, probe_record
from memsuite.eval.benchmarks.dynamicmem.scoring import summarize as dynamicmem_summarize
from memsuite.eval.protocol import Row
from memsuite.eval.report.caveats import ORACLE_CEILING, ORACLE_NOTE
from memsuite.eval.report.document import build_report
from memsuite.eval.run.folder import load_runs

TABLES = ("dynamicmem_checkpoints", "dynamicmem_retention", "dynamicmem_failure_stages")


def _row(key: str, change: str) -> Row:
    return Row(
        "mem0ai_llm_oracle",
        "dynamicmem",
        "u1",
        f"C1/{key}",
        "q",
        {"location": "Weir meadow"},
        "ctx",
        answer="a",
        verdicts={"rule": {"correct": True, "score": 1.0, "fields": [{"score": 1.0}]}},
        metadata={
            "checkpoint": "C1",
            "task": "state_completion",
            "category": "habits",
            "change": change,
            "prediction": "x",
            "value_evidence_ids": ["log_1"],
            "retrieved_app_log_ids": ["log_1"],
        },
    )


def _report(tmp_path, header: dict, llm_calls: int = 12):
    rows = [_row("habits_state:a", "new"), _row("habits_state:b", "new")]
    usage = {"llm_calls": llm_calls, "prompt_tokens": 900, "completion_tokens": 90, "wall_s": {}}
    scores = dynamicmem_summarize(rows)
    path = write_run(
        tmp_path / "dm", benchmark="dynamicmem", rows=rows, scores=scores, header=header, usage=usage
    )
    work = path / "work" / "mem0ai_llm_oracle" / "u1"
    work.mkdir(parents=True)
    with gzip.open(work / SNAPSHOT_FILE, "wt", encoding="utf-8") as fh:
        fh.write(json.dumps(probe_record(0, "C1", '{"app_log_id": "log_1"}')) + "\n")
    return build_report(load_runs([path]))


ORACLE_HEADER = {"oracle_llm": {"roles": ["internal"], "note": "gold-backed oracle"}}


@pytest.mark.parametrize(
    ("header", "llm_calls", "ceiling"),
    [(ORACLE_HEADER, 12, True), ({}, 12, False), (ORACLE_HEADER, 0, False)],
    ids=["internal_llm_oracle", "model_llm", "no_llm_call_beside_the_oracle"],
)
def test_oracle_served_rows_say_they_are_ceilings(tmp_path, header, llm_calls, ceiling):
    # A system that made no LLM call (bm25 beside the libraries) has nothing from gold in its rows.
    report = _report(tmp_path, header, llm_calls)
    for name in TABLES:
        table = table_of(report, name)
        systems = [row[table.columns.index("system")] for row in table.rows]
        assert systems, name
        if ceiling:
            assert set(systems) == {f"mem0ai_llm_oracle ({ORACLE_CEILING} (internal))"}, name
            assert ORACLE_NOTE in table.notes, name
        else:
            assert set(systems) == {"mem0ai_llm_oracle"}, name
            assert ORACLE_NOTE not in table.notes, name
