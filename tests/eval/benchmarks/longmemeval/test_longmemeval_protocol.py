"""The LongMemEval protocol on the real dev S file: the official corpus, flat_bm25 against rank_bm25
called directly, date-ordered ingestion, rows and a retrieval-only run through the runner."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memsuite.baselines.bm25 import BM25Memory
from memsuite.eval.benchmarks.longmemeval.metrics import question_metrics
from memsuite.eval.benchmarks.longmemeval.protocol import LongMemEvalBenchmark, to_sessions
from memsuite.eval.benchmarks.longmemeval.schema import corpus, parse_date
from memsuite.eval.config import config_from_dict
from memsuite.eval.protocol import RunContext
from memsuite.eval.report.document import build_report, report_markdown
from memsuite.eval.report.runs import load_runs
from memsuite.eval.runner import run
from memsuite.memory_systems.records import IngestReport
from memsuite.memory_systems.registry import get_system

S = Path("longmemeval") / "longmemeval_s_cleaned.dev.json.gz"
rank_bm25 = pytest.importorskip("rank_bm25", reason="rank_bm25 is the longmemeval extra")


@pytest.fixture(scope="module")
def s_subset(shared_data):
    return LongMemEvalBenchmark(shared_data / S, per_type=1)


def _official_flat_bm25(question: str, texts: list[str]) -> list[int]:
    """LongMemEval's flat-bm25 as its retrieval script runs it."""
    scores = rank_bm25.BM25Okapi([t.split(" ") for t in texts]).get_scores(question.split(" "))
    return list(np.argsort(scores)[::-1])


def test_the_official_corpus_of_a_real_question(s_subset):
    question = s_subset.file.question("gpt4_2655b836")
    sessions = corpus(question, "session")
    assert len(sessions) == 45
    assert [d.corpus_id for d in sessions if d.relevant] == ["answer_4be1b6b4_2", "answer_4be1b6b4_3"]
    assert all(" " not in d.corpus_id for d in sessions)
    turns = corpus(question, "turn")
    assert [d.corpus_id for d in turns if d.relevant] == ["answer_4be1b6b4_2_1", "answer_4be1b6b4_3_3"]
    # Evidence sessions' other user turns are renamed noans, numbered over all turns of the session.
    assert "noans_4be1b6b4_2_3" in {d.corpus_id for d in turns}


@pytest.mark.parametrize("granularity", ["session", "turn"])
def test_flat_bm25_reproduces_the_official_ranking_and_metrics(shared_data, granularity):
    benchmark = LongMemEvalBenchmark(shared_data / S, per_type=2, granularity=granularity)
    for unit in benchmark.units():
        question = benchmark.file.question(unit)
        documents = corpus(question, granularity)
        ids = [d.corpus_id for d in documents]
        official = [ids[i] for i in _official_flat_bm25(question.question, [d.text for d in documents])]
        (row,) = benchmark.run_unit(get_system("flat_bm25"), unit, RunContext(k=5, judges=()))
        assert row.metadata["ranking"] == official, unit
        relevant = {d.corpus_id for d in documents if d.relevant}
        assert row.verdicts["retrieval"]["metrics"] == question_metrics(official, ids, relevant, granularity)


def test_sessions_are_ingested_in_date_order_with_their_corpus_documents(s_subset):
    question = s_subset.file.question(s_subset.units()[0])
    sessions = to_sessions(question, "session")
    dates = [parse_date(s.timestamp) for s in sessions]
    assert dates == sorted(dates)
    indexes = sorted(d.metadata["corpus_index"] for s in sessions for d in s.documents)
    assert indexes == list(range(len(corpus(question, "session"))))
    assert all(d.metadata["date"] == s.timestamp for s in sessions for d in s.documents)


def test_rows_carry_the_ranking_relevant_ids_and_dated_context(s_subset):
    unit = s_subset.units()[0]
    (row,) = s_subset.run_unit(get_system("bm25"), unit, RunContext(k=3, judges=()))
    assert row.benchmark == "longmemeval" and row.question_id == unit
    assert sorted(row.metadata["ranking"]) == sorted(
        d.corpus_id for d in corpus(s_subset.file.question(unit), "session")
    )
    assert row.metadata["relevant"] == ["answer_4be1b6b4_2", "answer_4be1b6b4_3"]
    assert row.context.startswith("[Session date: 2023/")
    assert row.verdicts["retrieval"]["correct"] is not None
    assert row.verdicts["answer_in_context"]["correct"] in (True, False)


class _OwnLayout(BM25Memory):
    """Stores the dialogue its own way (no corpus documents), as extraction or graph memories do."""

    def ingest_session(self, session, *, namespace="default"):
        self.store(
            [f"{t.role}: {t.content}" for t in session.turns if t.content.strip()], namespace=namespace
        )
        return IngestReport(session.session_id)


def test_the_retrieval_verdict_holds_at_a_depth_outside_the_official_ones(s_subset):
    unit = s_subset.units()[0]
    (row,) = s_subset.run_unit(get_system("bm25"), unit, RunContext(k=7, judges=()))
    verdict = row.verdicts["retrieval"]
    top = set(row.metadata["ranking"][:7])
    assert verdict["k"] == 7 and verdict["correct"] == all(r in top for r in row.metadata["relevant"])


def test_a_system_without_corpus_documents_gets_no_ranking(s_subset):
    unit = s_subset.units()[0]
    (row,) = s_subset.run_unit(_OwnLayout(), unit, RunContext(k=3, judges=()))
    assert row.metadata["ranking"] == [] and row.verdicts["retrieval"]["correct"] is None
    assert row.verdicts["retrieval"]["undefined"] == "the memories are not corpus documents"
    assert row.context != "(no memory)"


def test_a_retrieval_only_run_reports_the_official_averages(shared_data, tmp_path):
    config = config_from_dict(
        {
            "benchmark": "longmemeval",
            "systems": [{"name": "flat_bm25"}, {"name": "bm25"}],
            "k": 5,
            "judges": [],
            "benchmark_options": {"data": str(shared_data / S), "per_type": 1},
        }
    )
    folder = run(config, out_dir=tmp_path / "run", show_progress=False)
    summary = folder.summary()
    for system in ("flat_bm25", "bm25"):
        retrieval = summary[system]["scores"]["retrieval"]
        assert retrieval["n"] == 6 and retrieval["granularity"] == "session"
        assert 0.0 <= retrieval["official"]["session"]["recall_all@5"] <= 1.0
        assert set(retrieval["by_type"]) <= {*summary[system]["scores"]["retrieval"]["by_type"]}
    report = build_report(load_runs([folder.path]))
    names = [table.name for section in report.sections for table in section.tables]
    assert names[:2] == ["longmemeval_retrieval_session", "longmemeval_retrieval_by_type"]
    markdown = report_markdown(report)
    assert "| flat_bm25 | session |" in markdown and "as LongMemEval's scripts do" in markdown
    # Every cell says its n and interval over questions; a one-question cell is too small to read.
    assert "n=1 (too small to read)" in markdown and "bootstrap interval" in markdown
    table = next(t for s in report.sections for t in s.tables if t.name == "longmemeval_retrieval_session")
    for index, row in enumerate(table.rows):
        cell = dict(zip(table.columns, row, strict=True))
        interval = table.intervals[(index, "recall_all@5")]
        assert interval.n == 6 and interval.value == pytest.approx(cell["recall_all@5"])
        assert interval.lo <= interval.value <= interval.hi
