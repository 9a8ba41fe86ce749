"""The LongMemEval protocol on the real dev S file: the official corpus, flat_bm25 against rank_bm25
called directly, date-ordered ingestion, rows and a retrieval-only run through the runner."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memsuite.baselines.bm25 import BM25Memory
from memsuite.eval.benchmarks.longmemeval.judges.retrieval import question_metrics
from memsuite.eval.benchmarks.longmemeval.protocol import LongMemEvalBenchmark, to_sessions
from memsuite.eval.benchmarks.longmemeval.schema import corpus, parse_date, session_documents
from memsuite.eval.registry import definition
from memsuite.eval.report.document import build_report, report_markdown
from memsuite.eval.run.config import config_from_dict
from memsuite.eval.run.folder import load_runs
from memsuite.eval.run.runner import run
from memsuite.memory_systems.records import IngestReport
from memsuite.memory_systems.registry import get_system
from memsuite.memory_systems.tokens import count_tokens, split_by_tokens

S = Path("longmemeval") / "longmemeval_s_cleaned.dev.json.gz"
rank_bm25 = pytest.importorskip("rank_bm25", reason="rank_bm25 is the longmemeval extra")


@pytest.fixture(scope="module")
def s_subset(shared_data):
    return LongMemEvalBenchmark(shared_data / S, per_type=1)


def _official_flat_bm25(question: str, texts: list[str]) -> list[int]:
    """LongMemEval's flat-bm25 as its retrieval script runs it."""
    scores = rank_bm25.BM25Okapi([t.split(" ") for t in texts]).get_scores(question.split(" "))
    return list(np.argsort(scores)[::-1])


@pytest.mark.shared_data("longmemeval")
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
@pytest.mark.shared_data("longmemeval")
def test_flat_bm25_reproduces_the_official_ranking_and_metrics(shared_data, granularity):
    benchmark = LongMemEvalBenchmark(shared_data / S, per_type=2, granularity=granularity)
    for unit in benchmark.units():
        question = benchmark.file.question(unit)
        documents = corpus(question, granularity)
        ids = [d.corpus_id for d in documents]
        official = [ids[i] for i in _official_flat_bm25(question.question, [d.text for d in documents])]
        (row,) = benchmark.run_unit(
            get_system("flat_bm25"), unit, definition("longmemeval").context(k=5, judges=())
        )
        assert row.metadata["ranking"] == official, unit
        relevant = {d.corpus_id for d in documents if d.relevant}
        assert row.verdicts["retrieval"]["metrics"] == question_metrics(official, ids, relevant, granularity)


@pytest.mark.shared_data("longmemeval")
def test_sessions_are_ingested_in_date_order_with_their_corpus_documents(s_subset):
    question = s_subset.file.question(s_subset.units()[0])
    sessions = to_sessions(question, "session")
    dates = [parse_date(s.timestamp) for s in sessions]
    assert dates == sorted(dates)
    indexes = sorted(d.metadata["corpus_index"] for s in sessions for d in s.documents)
    assert indexes == list(range(len(corpus(question, "session"))))
    assert all(d.metadata["date"] == s.timestamp for s in sessions for d in s.documents)


@pytest.mark.shared_data("longmemeval")
def test_rows_carry_the_ranking_relevant_ids_and_dated_context(s_subset):
    unit = s_subset.units()[0]
    (row,) = s_subset.run_unit(get_system("bm25"), unit, definition("longmemeval").context(k=3, judges=()))
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


@pytest.mark.shared_data("longmemeval")
def test_the_retrieval_verdict_holds_at_a_depth_outside_the_official_ones(s_subset):
    unit = s_subset.units()[0]
    (row,) = s_subset.run_unit(get_system("bm25"), unit, definition("longmemeval").context(k=7, judges=()))
    verdict = row.verdicts["retrieval"]
    top = set(row.metadata["ranking"][:7])
    assert verdict["k"] == 7 and verdict["correct"] == all(r in top for r in row.metadata["relevant"])


@pytest.mark.shared_data("longmemeval")
def test_a_system_without_corpus_documents_gets_no_ranking(s_subset):
    unit = s_subset.units()[0]
    (row,) = s_subset.run_unit(_OwnLayout(), unit, definition("longmemeval").context(k=3, judges=()))
    assert row.metadata["ranking"] == [] and row.verdicts["retrieval"]["correct"] is None
    assert row.verdicts["retrieval"]["undefined"] == "the memories are not corpus documents"
    assert row.context != "(no memory)"


@pytest.mark.shared_data("longmemeval")
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
    summary = folder.summary
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
    # Published accuracies sit beside ours with their sources and how this run differs.
    assert "longmemeval_published" in names and "getzep.com/research" in markdown
    assert "no QA judge: retrieval only" in markdown and "6 questions of" in markdown


@pytest.mark.shared_data("longmemeval")
def test_a_session_recurring_across_haystacks_is_encoded_once(shared_data, tmp_path, monkeypatch):
    """Two real S questions share haystack sessions: through one embedding cache, the second question's
    dense ingest sends none of the shared sessions' texts to the model again."""
    from memsuite.memory_systems import embedder as module
    from memsuite.memory_systems.embedder import Embedder

    first, second = "gpt4_70e84552", "gpt4_b4a80587"
    benchmark = LongMemEvalBenchmark(shared_data / S, question_ids=[first, second])
    shared = {s.session_id for s in benchmark.file.question(first).sessions} & {
        s.session_id for s in benchmark.file.question(second).sessions
    }
    assert shared, "the two questions must share a session for this test to mean anything"
    encoded: list[str] = []
    real_load = module._load_model

    class RecordingModel:
        def __init__(self, model):
            self.model = model

        def encode(self, texts, **kwargs):
            encoded.extend(texts)
            return self.model.encode(texts, **kwargs)

    monkeypatch.setattr(module, "_load_model", lambda *args: RecordingModel(real_load(*args)))
    embedder = Embedder(cache_dir=tmp_path / "cache", device="cpu")
    per_question = []
    for unit in (first, second):
        before = len(encoded)
        system = get_system("dense", resources={"embedder": embedder})
        list(benchmark.run_unit(system, unit, definition("longmemeval").context(k=5, judges=())))
        per_question.append(encoded[before:])
    assert len(encoded) == len(set(encoded)), "a text reached the model twice"
    windows = set()  # the shared sessions' texts as dense encodes them: one per token window
    for session in benchmark.file.question(first).sessions:
        if session.session_id in shared:
            for document in session_documents(session, "session"):
                if document.text.strip():
                    windows.update(split_by_tokens(document.text, max_tokens=200, overlap=40))
    assert windows <= set(per_question[0]) and not windows & set(per_question[1])
    assert per_question[1], "the second question's own sessions were encoded"


ORACLE = Path("longmemeval") / "longmemeval_oracle.dev.json"


@pytest.mark.shared_data("longmemeval")
def test_reference_rows_get_whole_sessions_not_a_ranking(shared_data):
    """gold_evidence is given the evidence sessions in full (assistant turns too), full_context every
    session; on the oracle file, whose haystack is the evidence, the two contexts are the same."""
    question_id = "gpt4_2655b836"
    s_file = LongMemEvalBenchmark(shared_data / S, question_ids=[question_id])
    question = s_file.file.question(question_id)
    evidence = [s for s in question.sessions if s.session_id in set(question.answer_session_ids)]
    others = [s for s in question.sessions if s.session_id not in set(question.answer_session_ids)]
    (gold,) = s_file.run_unit(
        get_system("gold_evidence"), question_id, definition("longmemeval").context(k=5, judges=())
    )
    assistant = next(t.content for s in evidence for t in s.turns if t.role == "assistant")
    assert assistant[:200] in gold.context and f"[Session date: {evidence[0].date}]" in gold.context
    assert not any(t.content[:200] in gold.context for s in others for t in s.turns if len(t.content) > 80)
    assert gold.metadata["ranking"] == [] and gold.verdicts["retrieval"]["correct"] is None
    assert gold.verdicts["retrieval"]["undefined"].startswith("a reference row")
    (full,) = s_file.run_unit(
        get_system("full_context"), question_id, definition("longmemeval").context(k=5, judges=())
    )
    assert all(f"[Session date: {s.date}]" in full.context for s in question.sessions)
    oracle = LongMemEvalBenchmark(shared_data / ORACLE, question_ids=[question_id])
    contexts = [
        oracle.run_unit(get_system(name), question_id, definition("longmemeval").context(k=5, judges=()))
        .__next__()
        .context
        for name in ("full_context", "gold_evidence")
    ]
    assert contexts[0] == contexts[1] and assistant[:200] in contexts[0]


def test_full_context_drops_the_oldest_sessions_to_fit():
    from memsuite.eval.benchmarks.longmemeval.protocol import reference_context, render_session
    from memsuite.eval.benchmarks.longmemeval.schema import HaystackSession, LmeQuestion
    from memsuite.eval.benchmarks.longmemeval.schema import Turn as LmeTurn

    def session(sid, date, words):
        return HaystackSession(sid, date, (LmeTurn("user", " ".join(words)), LmeTurn("assistant", "ok")))

    sessions = (
        session("s_new", "2023/05/30 (Tue) 10:00", ["newest"] * 30),
        session("answer_1", "2023/05/01 (Mon) 10:00", ["oldest"] * 30),
        session("s_mid", "2023/05/10 (Wed) 10:00", ["middle"] * 30),
    )
    asked = "2023/06/01 (Thu) 10:00"
    question = LmeQuestion("q1", "multi-session", "what?", "x", asked, sessions, ("answer_1",))
    whole, cut = reference_context(question, "all", None)
    assert not cut and whole.index("oldest") < whole.index("middle") < whole.index("newest")
    two_newest = sum(count_tokens(render_session(s)) + 1 for s in (sessions[0], sessions[2]))
    kept, cut = reference_context(question, "all", two_newest)
    assert cut and "newest" in kept and "middle" in kept and "oldest" not in kept
    tiny, cut = reference_context(question, "all", 20)
    assert cut and tiny.startswith("[Session date: 2023/05/30")
    assert reference_context(question, "evidence", None)[0].count("[Session date") == 1
