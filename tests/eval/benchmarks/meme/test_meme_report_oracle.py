"""MEME's report of a run served by the oracle LLM endpoint: its rows are marked as ceilings, never
printed where a model's rows are read (answer-judge tables, beside published rows)."""

from __future__ import annotations

from runfolders import table_of

from memsuite.eval.benchmarks.meme.report import MEME_ORACLE_NOTE
from memsuite.eval.report.caveats import ORACLE_CEILING
from memsuite.eval.report.document import build_report, report_markdown
from memsuite.eval.report.runs import load_runs
from memsuite.eval.run.config import config_from_dict
from memsuite.eval.run.runner import run


def test_oracle_rows_are_ceilings_and_leave_the_answer_tables(tmp_path):
    config = config_from_dict(
        {
            "benchmark": "meme",
            "name": "oracle_report",
            "systems": ["bm25", {"name": "md_flat", "label": "md_flat_oracle", "args": {"oracle": "memory"}}],
            "k": 5,
            "answer_llm": "oracle",
            "judges": ["rule"],
            "benchmark_options": {"episodes": 1, "filler": "none", "seed": 0},
        },
        source="test",
    )
    path = run(config, out_dir=tmp_path / "run", show_progress=False).path
    report = build_report(load_runs([path]))
    names = {t.name for s in report.sections for t in s.tables}
    # Gold answers pass by construction: no answer-judge table reads them.
    assert "meme_main_evidence" in names and "meme_main_rule" not in names and "meme_filter_rule" not in names
    evidence = table_of(report, "meme_main_evidence")
    rows = [dict(zip(evidence.columns, row, strict=True)) for row in evidence.rows]
    assert [row["system"] for row in rows] == ["bm25", "md_flat_oracle"]  # no published row beside them
    assert all(row["from"] == f"{ORACLE_CEILING} (answer, internal)" for row in rows)
    assert MEME_ORACLE_NOTE in evidence.notes
    stages = table_of(report, "meme_failure_stages")
    assert stages.rows and all(
        ORACLE_CEILING in str(row[stages.columns.index("system")]) for row in stages.rows
    )
    assert "memsuite-gold-oracle (oracle: replies from gold; rows are ceilings)" in report_markdown(report)
