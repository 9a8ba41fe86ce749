"""A run's questions one command away: records with the outcome the rates count, the failed filter,
the stage filter, CSV, and records(load_run(path), outcomes) with and without pandas."""

from __future__ import annotations

import builtins
import csv
import io

import pytest
from runfolders import write_run

import memsuite
from memsuite.eval.analysis.show import question_records, records, select
from memsuite.eval.benchmarks.meme.scoring import meme_scores
from memsuite.eval.cli.main import main
from memsuite.eval.protocol import Row
from memsuite.eval.registry import definition
from memsuite.eval.run.folder import load_runs


def _row(qid: str, task: str, phase: str, correct: bool, entity: str) -> Row:
    return Row(
        "bm25", "meme", "e1", qid, f"question {qid}", "gold", f"context of {qid}",
        verdicts={"evidence": {"correct": correct}},
        metadata={"task": task, "phase": phase, "entities": [entity]},
    )  # fmt: skip


#: ER passes; Agg fails; the Cas after-question passes on its own but its before-question failed,
#: so MEME's trivial-pass filter counts it as failed.
ROWS = [
    _row("a-er", "ER", "after", True, "x"),
    _row("a-agg", "Agg", "after", False, "y"),
    _row("b-cas", "Cas", "before", False, "z"),
    _row("a-cas", "Cas", "after", True, "z"),
]


@pytest.fixture
def run_path(tmp_path):
    scores = {"by_judge": {"evidence": meme_scores(ROWS, "evidence")}}
    return write_run(tmp_path / "run", benchmark="meme", rows=ROWS, scores=scores)


def test_failed_questions_are_those_the_rates_count_as_failed(run_path):
    records = question_records(load_runs([run_path])[0], spec=definition("meme").outcomes)
    by_id = {r["question_id"]: r for r in records}
    assert by_id["a-cas"]["verdict evidence"] is True and by_id["a-cas"]["outcome"] == 0.0
    assert by_id["b-cas"]["outcome"] is None  # a before-question is in no rate
    failed = select(records, failed=True)
    assert [r["question_id"] for r in failed] == ["a-agg", "a-cas"]
    assert [r["question_id"] for r in select(records, cell="Cas", failed=True)] == ["a-cas"]
    assert select(records, failed=True, limit=1) == failed[:1]
    # Stages: retrieval-only, no snapshots -- the evidence verdict decides 'retrieved'.
    assert {r["stage"] for r in select(records, stage="retrieved")} == {"retrieved"}


def test_cli_show_prints_and_exports(run_path, capsys):
    assert main(["show", str(run_path), "--failed"]) == 0
    out = capsys.readouterr().out
    assert "[bm25] e1/a-agg  Agg (after)  FAILED (0.00) under evidence" in out
    assert "question: question a-agg" in out and "context: context of a-agg" in out
    assert "2 of 2 matching questions shown (4 in the run)" in out
    assert main(["show", str(run_path), "--task", "ER", "--csv"]) == 0
    (record,) = csv.DictReader(io.StringIO(capsys.readouterr().out))
    assert (record["question_id"], record["outcome"], record["verdict evidence"]) == ("a-er", "1.0", "True")
    assert main(["show", str(run_path), "--system", "nope"]) == 2


def test_load_run_rows_plain_records_without_pandas(run_path, monkeypatch):
    real_import = builtins.__import__

    def no_pandas(name, *args, **kwargs):
        if name == "pandas":
            raise ModuleNotFoundError("No module named 'pandas'", name="pandas")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pandas)
    rows = records(memsuite.load_run(run_path), definition("meme").outcomes)
    assert isinstance(rows, list) and [r["question_id"] for r in rows] == ["a-er", "a-agg", "b-cas", "a-cas"]


def test_load_run_rows_as_a_dataframe_with_pandas(run_path):
    pandas = pytest.importorskip("pandas")
    rows = records(memsuite.load_run(run_path), definition("meme").outcomes)
    assert isinstance(rows, pandas.DataFrame) and list(rows["outcome"].isna()) == [False, False, True, False]
