"""The judge-agreement section: counts, kappa, exclusions, groups and the disagreement CSV."""

from __future__ import annotations

import csv

from runfolders import table_of, write_run

from memsuite.eval.protocol import Row
from memsuite.eval.report.document import build_report, report_markdown, write_report
from memsuite.eval.report.runs import load_runs


def _row(i: int, rule, llm, published, *, category="temporal", answer="short", failure=False) -> Row:
    llm_verdict = {"correct": llm}
    if failure:
        llm_verdict = {"correct": None, "failure": "timeout", "failed_call": "judge"}
    return Row(
        system="bm25",
        benchmark="locomo",
        unit_id="conv-1",
        question_id=f"q{i:03d}",
        question=f"question {i}?",
        gold=f"gold {i}",
        context="",
        answer=answer,
        verdicts={"rule": {"correct": rule}, "llm": llm_verdict, "evidence": {"correct": True}},
        metadata={"category_name": category, "published_verdict": published},
    )


def test_pairs_counts_kappa_and_exclusions(tmp_path):
    long_answer = " ".join(["word"] * 40)
    rows = [
        _row(0, True, True, True),
        _row(1, True, False, True),
        _row(2, False, False, False, category="single-hop"),
        _row(3, False, True, False, answer=long_answer),
        _row(4, None, True, True),  # undecided rule verdict: excluded from rule's pairs
        _row(5, True, None, True, failure=True),  # failed llm call: excluded from llm's pairs
    ]
    write_run(tmp_path / "run", benchmark="locomo", rows=rows, scores={})
    report = build_report(load_runs([tmp_path / "run"]))
    pairs = table_of(report, "judge_agreement")
    records = [dict(zip(pairs.columns, row, strict=True)) for row in pairs.rows]
    assert [(r["judge_a"], r["judge_b"]) for r in records] == [("rule", "llm"), ("rule", "published"),
                                                               ("llm", "published")]  # fmt: skip
    rule_llm = records[0]
    assert (rule_llm["n"], rule_llm["excluded"]) == (4, 2)
    confusion = ("both_true", "a_only_true", "b_only_true", "both_false")
    assert [rule_llm[c] for c in confusion] == [1, 1, 1, 1]
    assert rule_llm["agreement"] == 0.5 and rule_llm["kappa"] == 0.0
    rule_published = records[1]
    assert rule_published["n"] == 5 and rule_published["agreement"] == 1.0 and rule_published["kappa"] == 1.0
    accuracy = table_of(report, "judge_accuracy")
    by_judge = {row[2]: dict(zip(accuracy.columns, row, strict=True)) for row in accuracy.rows}
    assert set(by_judge) == {"rule", "llm", "published"}  # evidence judges retrieval: not compared
    assert (by_judge["rule"]["n"], by_judge["rule"]["undecided"], by_judge["rule"]["failed"]) == (5, 1, 0)
    assert (by_judge["llm"]["n"], by_judge["llm"]["undecided"], by_judge["llm"]["failed"]) == (5, 0, 1)
    groups = table_of(report, "judge_agreement_by_group")
    cells = {(row[2], row[3], row[4]): dict(zip(groups.columns, row, strict=True)) for row in groups.rows}
    assert cells[("single-hop", "rule", "llm")]["n"] == 1
    assert cells[("long answer", "rule", "llm")]["n"] == 1
    assert cells[("short answer", "rule", "llm")]["n"] == 3
    files = write_report(report, tmp_path / "report", plots=False)
    listing = tmp_path / "report" / "judge_disagreements.csv"
    assert listing in files
    disagreements = list(csv.DictReader(listing.open()))
    found = {(d["judge_a"], d["judge_b"], d["question_id"]) for d in disagreements}
    assert found == {
        ("rule", "llm", "q001"),
        ("rule", "llm", "q003"),
        ("llm", "published", "q001"),
        ("llm", "published", "q003"),
    }
    markdown = report_markdown(report)
    assert "4 rows in `judge_disagreements.csv`." in markdown and "question 1?" not in markdown


def test_no_section_with_a_single_judge(tmp_path):
    rows = [Row("bm25", "locomo", "c", "q1", "?", "g", "", "a", {"rule": {"correct": True}}, {}, {})]
    write_run(tmp_path / "run", benchmark="locomo", rows=rows, scores={})
    report = build_report(load_runs([tmp_path / "run"]))
    assert all(section.title != "Judge agreement" for section in report.sections)
