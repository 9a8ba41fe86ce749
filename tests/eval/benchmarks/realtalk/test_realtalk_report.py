"""The REALTALK report: evidence recall by category, retrieval, diagnostics per chat, published rows;
and LoCoMo beside REALTALK when a report holds runs of both."""

from __future__ import annotations

from pathlib import Path

from realtalk_data import message, qa, write_chat

from memsuite.eval.benchmarks.realtalk.paper import PUBLISHED, PUBLISHED_NOTE
from memsuite.eval.benchmarks.realtalk.protocol import RealtalkBenchmark
from memsuite.eval.benchmarks.realtalk.report import beside_locomo, render
from memsuite.eval.protocol import Row
from memsuite.eval.registry import definition
from memsuite.eval.report.document import build_report, table_markdown
from memsuite.eval.report.model import ReportOptions
from memsuite.eval.run.folder import RunFolder, UnitRecord
from memsuite.memory_systems.registry import get_system


def _run(folder: Path, benchmark: str, rows: list[Row], k: int = 2) -> RunFolder:
    """A finished run folder of these rows (one done unit per (system, unit)), empty scores."""
    systems = sorted({r.system for r in rows})
    run = RunFolder(folder)
    run.write_header({"config": {"benchmark": benchmark, "k": k, "systems": [{"name": s} for s in systems]}})
    for system, unit in sorted({(r.system, r.unit_id) for r in rows}):
        unit_rows = [r for r in rows if (r.system, r.unit_id) == (system, unit)]
        run.append_unit(UnitRecord(system, unit, "done"), unit_rows)
    run.write_summary({s: {"scores": {}, "usage": {}} for s in systems})
    return run


def _realtalk_rows(tmp_path) -> list[Row]:
    rows = []
    for n in (1, 2):
        sessions = {
            1: [message("D1:1", f"my cat Miso{n} is grey"), message("D1:2", "the weather is nice")],
            2: [message("D2:1", "we went hiking on the ridge")],
        }
        questions = [
            qa("What colour is the cat?", ["D1:1"], category=1),
            qa("Where did they go hiking?", ["D2:1; D1:9"], category=2),
            qa("How was the weather?", ["D1:2"], category=3),
            qa("What else?", ["D:56"], category=1),
        ]
        path = write_chat(tmp_path / str(n), sessions, questions, name=f"Chat_{n}_Ann_Bob")
        benchmark = RealtalkBenchmark(path)
        rows += list(
            benchmark.run_unit(
                get_system("bm25"), f"Chat_{n}_Ann_Bob", definition("realtalk").context(k=2, judges=())
            )
        )
    return rows


def _locomo_rows() -> list[Row]:
    rows = []
    for i, (category, recall) in enumerate([(1, 0.5), (2, 1.0), (3, 0.0), (4, 1.0), (5, None)]):
        evidence = {"judge": "evidence", "basis": "turns", "recall": recall, "correct": recall == 1.0}
        verdicts, metadata = {"evidence": evidence}, {"category": category}
        rows.append(
            Row("bm25", "locomo", f"conv-{i % 2}", f"q{i:03d}", "?", "gold", "", None, verdicts, {}, metadata)
        )
    return rows


def test_the_section_holds_evidence_by_category_and_the_diagnostics(tmp_path):
    run = _run(tmp_path / "rt", "realtalk", _realtalk_rows(tmp_path))
    section = render([run], ReportOptions())
    tables = {t.name: t for t in section.tables}
    assert {
        "realtalk_evidence",
        "realtalk_retrieval",
        "realtalk_evidence_diagnostics",
        "realtalk_published",
    } <= set(tables)
    # No published row: the report drops the empty table, so the section's notes say why it is empty.
    assert not PUBLISHED and any(PUBLISHED_NOTE in note for note in section.notes)
    evidence = tables["realtalk_evidence"]
    assert evidence.columns[:5] == ("system", "multi-hop", "temporal", "open-domain", "overall")
    assert evidence.rows[0][evidence.columns.index("n")] == 6  # 8 questions, 2 unscored
    assert "2 of 8" in " ".join(evidence.notes)
    diagnostics = tables["realtalk_evidence_diagnostics"]
    assert [row[1:6] for row in diagnostics.rows] == [
        ("Chat_1_Ann_Bob", 4, 1, "q003", 1),
        ("Chat_2_Ann_Bob", 4, 1, "q003", 1),
    ]
    assert "D1:9 (q001)" in table_markdown(diagnostics)


def test_locomo_beside_realtalk_by_category(tmp_path):
    realtalk = _run(tmp_path / "rt", "realtalk", _realtalk_rows(tmp_path))
    locomo = _run(tmp_path / "lc", "locomo", _locomo_rows())
    assert beside_locomo([realtalk]) is None
    section = beside_locomo([realtalk, locomo])
    table = section.tables[0]
    by_benchmark = {row[1]: dict(zip(table.columns, row, strict=True)) for row in table.rows}
    assert set(by_benchmark) == {"LoCoMo", "REALTALK"}
    synthetic = by_benchmark["LoCoMo"]
    assert (synthetic["multi-hop"], synthetic["temporal"], synthetic["open-domain"]) == (50.0, 100.0, 0.0)
    assert synthetic["overall"] == 50.0 and synthetic["n"] == 3  # single-hop and adversarial left out
    assert by_benchmark["REALTALK"]["metric"] == "evidence_recall@2" and by_benchmark["REALTALK"]["n"] == 6
    report = build_report([realtalk, locomo])
    assert "LoCoMo beside REALTALK" in [s.title for s in report.sections]
