"""A report over runs of several benchmarks opens with a leaderboard of each benchmark's headline."""

from __future__ import annotations

import pytest
from runfolders import table_of, write_run

from memsuite.eval.analysis.leaderboard import leaderboard
from memsuite.eval.benchmarks.locomo.scoring import locomo_scores
from memsuite.eval.benchmarks.meme.scoring import meme_scores
from memsuite.eval.protocol import Row
from memsuite.eval.registry import definition
from memsuite.eval.report.document import build_report, table_markdown
from memsuite.eval.run.folder import load_runs


def _meme_row(episode: int, task: str, correct: bool) -> Row:
    return Row(
        "bm25", "meme", f"e{episode}", f"{task}-{episode}", "q", "gold", "ctx",
        verdicts={"evidence": {"correct": correct}},
        metadata={"task": task, "phase": "after", "entities": [f"{task}{episode}"]},
    )  # fmt: skip


def _locomo_row(conversation: int, qid: int, category: int, recall: float) -> Row:
    return Row(
        "bm25", "locomo", f"conv-{conversation}", f"q{qid}", "q", "gold", "ctx",
        verdicts={"evidence": {"correct": recall == 1.0, "recall": recall, "basis": "turns"}},
        metadata={"category": category, "k": 5},
    )  # fmt: skip


def test_leaderboard_names_each_headline_with_its_interval(tmp_path):
    # MEME: ER right everywhere, Agg in 3 of 6 episodes -> Overall = mean(1.0, 0.5) = 0.75.
    meme = [_meme_row(e, "ER", True) for e in range(6)] + [_meme_row(e, "Agg", e < 3) for e in range(6)]
    # LoCoMo: one single-hop question per conversation, recall 1 in 4 of 6; an adversarial one apart.
    locomo = [_locomo_row(c, 0, 4, 1.0 if c < 4 else 0.0) for c in range(6)]
    locomo += [_locomo_row(c, 1, 5, 0.0) for c in range(6)]
    meme_scored = {"by_judge": {"evidence": meme_scores(meme, "evidence")}}
    paths = [
        write_run(tmp_path / "m", benchmark="meme", rows=meme, scores=meme_scored),
        write_run(tmp_path / "l", benchmark="locomo", rows=locomo, scores=locomo_scores(locomo)),
    ]
    report = build_report(load_runs(paths))
    assert report.sections[0].title == "Leaderboard"
    table = table_of(report, "leaderboard")
    meme_column = "meme: Overall (mean of the task rates) [evidence]"
    locomo_column = "locomo: overall (categories 1-4) [evidence]"
    assert table.columns == ("system", meme_column, locomo_column)
    assert table.rows[0][1:] == pytest.approx((0.75, 4 / 6))
    assert table.intervals[(0, meme_column)].n == 12 and table.intervals[(0, locomo_column)].n == 6
    assert "[" in table_markdown(table) and "not comparable across columns" in table_markdown(table)
    # One benchmark: no leaderboard.
    assert "Leaderboard" not in [s.title for s in build_report(load_runs(paths[:1])).sections]


def _lme_row(qid: int, recall_all: float) -> Row:
    metrics = {"session": {"recall_all@5": recall_all, "recall_any@5": recall_all}}
    return Row(
        "bm25", "longmemeval", f"q{qid}", f"q{qid}", "q", "gold", "ctx",
        verdicts={"retrieval": {"metrics": metrics}},
        metadata={"question_type": "multi-session", "relevant": ["s1"]},
    )  # fmt: skip


def test_a_retrieval_headline_is_named_for_the_rate_it_is(tmp_path):
    # LongMemEval without an answer verdict: the headline is session recall_all@5, and says so.
    rows = [_lme_row(i, 1.0 if i < 9 else 0.0) for i in range(12)]
    meme = [_meme_row(e, "ER", True) for e in range(6)]
    meme_scored = {"by_judge": {"evidence": meme_scores(meme, "evidence")}}
    runs = load_runs([
        write_run(tmp_path / "lme", benchmark="longmemeval", rows=rows, scores={}),
        write_run(tmp_path / "m", benchmark="meme", rows=meme, scores=meme_scored),
    ])  # fmt: skip
    section = leaderboard(runs, {name: definition(name).outcomes for name in ("longmemeval", "meme")})
    table = section.tables[0]
    column = "longmemeval: session recall_all@5 (questions with a relevant session) [retrieval]"
    assert column in table.columns
    assert table.intervals[(0, column)].value == pytest.approx(0.75) and table.intervals[(0, column)].n == 12
    assert not [note for note in table.notes if note.endswith("..")]
