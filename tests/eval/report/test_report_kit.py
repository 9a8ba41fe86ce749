"""The report kit: summary.json as typed data read with each benchmark's layout, the shared helpers
(percentages, judge order, rates with intervals, ranking metrics), and the rule that a table with no
rows is not printed."""

from __future__ import annotations

import json

from runfolders import write_run

from memsuite.eval.analysis.stats import Interval
from memsuite.eval.benchmarks.beam.paper import PUBLISHED, PUBLISHED_NOTE
from memsuite.eval.benchmarks.dynamicmem.report import dynamicmem_by_judge
from memsuite.eval.benchmarks.longmemeval.report import JUDGES as LONGMEMEVAL_JUDGES
from memsuite.eval.benchmarks.wmb.report import JUDGES as WMB_JUDGES
from memsuite.eval.protocol import Row
from memsuite.eval.report.document import build_report, write_report
from memsuite.eval.report.intervals import cell_intervals
from memsuite.eval.report.kit import (
    BY_JUDGE,
    Records,
    Summary,
    SystemSummary,
    judge_order,
    judges_in,
    percent,
    percent_intervals,
    ranking_intervals,
    rate_intervals,
)
from memsuite.eval.report.runs import load_runs

ENTRY = {
    "scores": {
        "source": {"kind": "generated"},
        "by_judge": {"rule": {"Overall": 0.5}, "llm": {"Overall": 0.25}},
    },
    "usage": {"llm_calls": 3, "prompt_tokens": 10, "completion_tokens": 2, "wall_s": {"ingest": 1.5}},
    "units": {"done": 2, "error": 1},
    "wall_s": 4.0,
    "failed_calls": {"answer": 1, "judge": 0},
}


def test_a_summary_reads_and_writes_the_same_json():
    summary = Summary.from_json({"bm25": ENTRY})
    entry = summary.system("bm25")
    assert entry.usage.llm_calls == 3 and entry.usage.wall_s == {"ingest": 1.5}
    assert entry.units == {"done": 2, "error": 1} and entry.failed_calls == {"answer": 1, "judge": 0}
    assert summary.to_json()["bm25"]["scores"] == ENTRY["scores"]
    assert {k: v for k, v in summary.to_json()["bm25"]["usage"].items() if v} == ENTRY["usage"]
    # A folder written before failed calls were recorded still reads; an unscored system is empty.
    old = Summary.from_json({"bm25": {"scores": {"by_judge": {}}, "usage": {}, "units": {}, "wall_s": 1}})
    assert old.system("bm25").failed_calls == {} and old.system("dense") == SystemSummary("dense")


def test_each_benchmark_layout_finds_its_judges():
    assert set(SystemSummary.from_json("s", ENTRY).judges(BY_JUDGE)) == {"rule", "llm"}
    assert SystemSummary.from_json("s", ENTRY).judge("rule") == {"Overall": 0.5}
    wmb = SystemSummary("s", {"judges": {"rule": {"total": 1.0}}, "result_json": {"total": 1.0}})
    assert wmb.judges(WMB_JUDGES) == {"rule": {"total": 1.0}} and wmb.judges(BY_JUDGE) == {}
    # LongMemEval keeps its judges at the top level; a judge no row carried is None there.
    longmemeval = SystemSummary("s", {"retrieval": {"n": 3}, "llm": None, "rule": {"overall": {"rate": 1.0}}})
    assert longmemeval.judges(LONGMEMEVAL_JUDGES) == {"rule": {"overall": {"rate": 1.0}}}
    assert longmemeval.part("retrieval") == {"n": 3} and longmemeval.part("source") == {}
    # DynamicMem: the rule judge's curves at the top level, the LLM judge's under llm_judge.
    dynamicmem = {"judge": "rule", "curves": {}, "llm_judge": {"judge": "llm", "curves": {}}}
    assert set(SystemSummary("s", dynamicmem).judges(dynamicmem_by_judge)) == {"rule", "llm"}


def test_judges_are_ordered_most_paper_like_first_then_by_name(tmp_path):
    assert judge_order({"f1", "evidence", "zeta", "llm", "alpha"}, ("llm", "f1", "evidence")) == [
        "llm", "f1", "evidence", "alpha", "zeta",
    ]  # fmt: skip
    rows = [Row("bm25", "meme", "e1", "q1", "q", "g", "c")]
    path = write_run(
        tmp_path / "r", benchmark="meme", rows=rows, scores={"by_judge": {"rule": {}, "evidence": {}}}
    )
    assert judges_in(load_runs([path]), BY_JUDGE, ("llm", "rule", "evidence")) == ["rule", "evidence"]


def test_rates_and_ranking_metrics_are_percent_with_their_intervals():
    assert percent(None) is None and percent(0.25) == 25.0
    rows = [{"unit": f"u{i % 4}", "hit": float(i % 3 == 0), "ndcg": i / 20} for i in range(20)]
    found = cell_intervals(rows, lambda r: r["hit"], lambda r: ("all",), unit=lambda r: r["unit"])
    scaled = percent_intervals(found)["all"]
    assert scaled.value == 100 * found["all"].value and scaled.n == found["all"].n == 20
    by_unit = {"unit": lambda r: r["unit"]}
    assert rate_intervals(rows, lambda r: r["hit"], lambda r: ("all",), **by_unit) == {"all": scaled}
    ranked = ranking_intervals(rows, lambda r, name: r[name], ("hit", "ndcg"), **by_unit)
    assert ranked["hit"] == scaled and abs(ranked["ndcg"].value - 100 * 9.5 / 20) < 1e-9
    assert ranking_intervals(rows, lambda r, name: None, ("hit",)) == {}


def test_a_table_with_no_rows_is_not_printed(tmp_path):
    # A BEAM run whose one question has no ranking and no answer: every score table is empty.
    rows = [Row("bm25", "beam", "c1", "q1", "q", "g", "ctx", metadata={"ability": "IE", "scale": "100K"})]
    path = write_run(tmp_path / "beam", benchmark="beam", rows=rows, scores={"questions": 1})
    report = build_report(load_runs([path]))
    section = next(s for s in report.sections if s.title == "BEAM")
    assert [t.name for t in section.tables] == ["beam_usage"]
    assert not PUBLISHED and any(PUBLISHED_NOTE in note for note in section.notes)
    written = write_report(report, tmp_path / "out", plots=False)
    markdown = (tmp_path / "out" / "report.md").read_text()
    assert "published" not in markdown.split(PUBLISHED_NOTE)[1]
    assert not (tmp_path / "out" / "beam_published.csv").exists()
    assert len([p for p in written if p.suffix != ".html"]) == 3
    assert json.loads((path / "summary.json").read_text())["bm25"]["scores"] == {"questions": 1}


def test_records_keep_intervals_only_on_cells_with_a_number():
    interval = Interval(0.5, 0.25, 0.75, 40, 8)
    records = Records()
    records.add(
        {"system": "a", "rate": 0.5, "other": None}, {"rate": interval, "other": interval}, {"rate": " †"}
    )
    records.add({"system": "paper", "rate": "n/a"}, {"rate": interval})
    table = records.table("t", "T", ("system", "rate"), ("a note",), {"rate": ".1f"})
    assert table.rows == (("a", 0.5), ("paper", "n/a"))
    assert table.intervals == {(0, "rate"): interval} and table.marks == {(0, "rate"): " †"}
    assert table.notes == ("a note",) and table.formats == {"rate": ".1f"}
