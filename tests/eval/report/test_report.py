"""Shared report machinery: the Markdown and CSV writers, the generic table of a benchmark without a
renderer, where a renderer is found, and run-folder errors. Each benchmark's tables are tested in its own
package's tests (tests/eval/benchmarks/<name>/test_<name>_report.py)."""

from __future__ import annotations

import pytest
from runfolders import table_of, write_run

from memsuite.eval.protocol import Row
from memsuite.eval.registry import definition
from memsuite.eval.report.document import build_report, definitions_of, table_csv, table_markdown
from memsuite.eval.report.model import NA, Table
from memsuite.eval.run.folder import RunFolder, load_runs
from memsuite.memory_systems.errors import ConfigError

# -- rendering, registry, errors -----------------------------------------------------------------------


def test_markdown_and_csv_renderers():
    table = Table(
        "t",
        "T",
        ("system", "rate", "cost_usd", "n", "p50 ms"),
        (("a|b", 0.5, 0.0123456, 1234, 12.4), ("c", None, NA, 0, None)),
        ("a note",),
    )
    markdown = table_markdown(table)
    assert markdown.splitlines()[1] == "|---|---:|---:|---:|---:|"
    assert "| a\\|b | 0.50 | 0.0123 | 1,234 | 12 |" in markdown
    assert "| c | – | n/a | 0 | – |" in markdown and markdown.endswith("- a note")
    assert table_csv(table).splitlines() == [
        "system,rate,cost_usd,n,p50 ms",
        "a|b,0.5,0.0123456,1234,12.4",
        "c,,n/a,0,",
    ]


def test_unknown_benchmark_gets_generic_table(tmp_path):
    rows = [Row("bm25", "tiny", "u1", "q1", "q", "g", "c")]
    path = write_run(
        tmp_path / "tiny", benchmark="tiny_bench", rows=rows, scores={"accuracy": 0.5, "by": {"x": 2}}
    )
    report = build_report(load_runs([path]))
    table = table_of(report, "tiny_bench_scores")
    assert table.columns == ("system", "accuracy", "by.x") and table.rows == (("bm25", 0.5, 2),)
    assert "tiny_bench" not in report.definitions and definitions_of(report.runs) == {}


def test_a_benchmarks_renderer_is_the_one_its_definition_names():
    wmb = definition("wmb").report
    assert wmb is not None and wmb.__module__ == "memsuite.eval.benchmarks.wmb.report"


def test_load_runs_errors_name_the_folder(tmp_path):
    with pytest.raises(ConfigError, match="not a memsuite run folder"):
        load_runs([tmp_path / "nothing"])
    RunFolder(tmp_path / "unfinished").write_header({"status": "started", "config": {"benchmark": "meme"}})
    with pytest.raises(ConfigError, match=r"unfinished has no summary\.json"):
        load_runs([tmp_path / "unfinished"])
    with pytest.raises(ConfigError, match="at least one run"):
        build_report([])
