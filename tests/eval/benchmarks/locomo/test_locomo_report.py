"""LoCoMo's report tables on hand-made rows: intervals resampling conversations, and the recall table
of a k ablation naming k once."""

from __future__ import annotations

import pytest
from runfolders import table_of, write_run

from memsuite.eval.benchmarks.locomo.scoring import locomo_scores
from memsuite.eval.protocol import Row
from memsuite.eval.report.document import build_report, table_markdown
from memsuite.eval.report.model import Sweep
from memsuite.eval.run.folder import load_runs


def _row(conversation: str, qid: str, category: int, recall: float) -> Row:
    return Row(
        "bm25", "locomo", conversation, qid, "q", "gold", "ctx",
        verdicts={"evidence": {"correct": recall == 1.0, "recall": recall, "basis": "turns"}},
        metadata={"category": category, "k": 5, "answer_in_context": recall > 0},
    )  # fmt: skip


def _rows() -> list[Row]:
    # Six conversations: single-hop recall 1.0 in every one (a zero-width interval); multi-hop 1.0 in
    # three and 0.0 in three; one adversarial question per conversation, recall 0, left out of overall.
    rows = []
    for c in range(6):
        rows += [_row(f"conv-{c}", f"s{i}", 4, 1.0) for i in range(2)]
        rows.append(_row(f"conv-{c}", "m", 1, 1.0 if c < 3 else 0.0))
        rows.append(_row(f"conv-{c}", "a", 5, 0.0))
    return rows


def _run(path, rows):
    return write_run(path, benchmark="locomo", rows=rows, scores=locomo_scores(rows))


def test_score_and_recall_tables_carry_conversation_intervals(tmp_path):
    report = build_report(load_runs([_run(tmp_path / "run", _rows())]))
    for name in ("locomo_evidence", "locomo_recall"):
        table = table_of(report, name)
        single, multi, overall = (table.intervals[(0, c)] for c in ("single-hop", "multi-hop", "overall"))
        assert (single.value, single.lo, single.hi, single.n, single.units) == (100.0, 100.0, 100.0, 12, 6)
        assert multi.value == 50.0 and multi.lo < 50.0 < multi.hi and multi.units == 6
        # Overall: the 18 questions of categories 1-4 (adversarial apart), 15 of them right.
        assert overall.n == 18 and overall.value == pytest.approx(100 * 15 / 18)
        assert "resampling conversations whole" in table_markdown(table)
    markdown = table_markdown(table_of(report, "locomo_recall"))
    assert "100.0 [100.0, 100.0] n=12 |" in markdown


def test_recall_table_of_a_k_ablation_names_k_once(tmp_path):
    paths = [_run(tmp_path / f"k{k}", _rows()) for k in (1, 5)]
    sweep = Sweep("k", (1, 5), ("k1", "k5"))
    table = table_of(build_report(load_runs(paths), sweep=sweep), "locomo_recall")
    assert table.columns.count("k") == 1
    assert table.column("k") == ["1", "5"]
    single = build_report(load_runs(paths[:1]))
    assert table_of(single, "locomo_recall").columns[:2] == ("system", "k")


def test_recall_plots_per_category_and_against_k(tmp_path):
    from memsuite.eval.report.document import write_report

    single = build_report(load_runs([_run(tmp_path / "one", _rows())]))
    (figure,) = [f for s in single.sections for f in s.figures if f.name == "locomo_recall"]
    assert "recall@5 per category" in figure.title
    paths = [_run(tmp_path / f"k{k}", _rows()) for k in (1, 5)]
    swept = build_report(load_runs(paths), sweep=Sweep("k", (1, 5), ("k1", "k5")))
    (curve,) = [f for s in swept.sections for f in s.figures]
    assert curve.name == "locomo_recall_vs_k" and "n = 18 questions" in curve.title
    files = {p.name for p in write_report(swept, tmp_path / "out")}
    assert "locomo_recall_vs_k.png" in files
