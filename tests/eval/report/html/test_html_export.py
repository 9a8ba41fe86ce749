"""The page's data without a browser: verdict letters, kept context, evidence items, chart specs from
figures, the folder written (deterministic, every library with its licence, nothing remote)."""

from __future__ import annotations

import base64
import gzip
import itertools
import json
import re
from functools import partial
from importlib import resources

from runfolders import write_run

from memsuite.eval.analysis import plots
from memsuite.eval.analysis.stats import Interval
from memsuite.eval.protocol import Row
from memsuite.eval.report.document import build_report, write_report
from memsuite.eval.report.html import page, questions
from memsuite.eval.report.html.charts import chart_spec
from memsuite.eval.report.html.page import FILES, LIBRARIES
from memsuite.eval.report.model import Figure
from memsuite.eval.run.folder import load_runs


def test_verdict_letters():
    assert questions.verdict_letter({"correct": True}) == "p"
    assert questions.verdict_letter({"correct": False}) == "f"
    assert questions.verdict_letter({"correct": None}) == "u"
    assert questions.verdict_letter({"correct": True, "failure": "timeout"}) == "u"
    assert questions.verdict_letter(None) == "-"


def test_context_limit_shrinks_with_rows_within_bounds():
    assert questions.context_limit(10) == questions.MAX_CONTEXT_CHARS
    assert questions.context_limit(50_000) == questions.MIN_CONTEXT_CHARS
    assert questions.context_limit(5_000) == questions.CONTEXT_BUDGET_CHARS // 5_000


def test_kept_context_keeps_windows_around_the_evidence():
    context = "a" * 5000 + "NEEDLE" + "b" * 5000 + "PIN" + "c" * 5000
    kept, spans = questions.kept_context(context, ["NEEDLE", "PIN", "absent"], 1000)
    assert len(kept) <= 1000 and "NEEDLE" in kept and "PIN" in kept
    assert "".join(context[s:e] for s, e in spans) == kept
    assert all(a[1] < b[0] for a, b in itertools.pairwise(spans))  # disjoint, in order
    short, whole = questions.kept_context("short", ["x"], 1000)
    assert (short, whole) == ("short", [[0, 5]])
    head, _ = questions.kept_context("x" * 2000, [], 100)
    assert head == "x" * 100


def test_cell_label_names_a_numbered_category():
    def row(benchmark: str, **metadata) -> Row:
        return Row("s", benchmark, "c", "q", "?", "g", context="", metadata=metadata)

    locomo = row("locomo", category=2, category_name="temporal")
    assert questions.cell_label(locomo, "2") == "2 temporal"
    assert questions.cell_label(locomo, None) is None
    assert questions.cell_label(row("meme", task="ER"), "ER") == "ER"


def test_evidence_items_and_where_they_were_found():
    row = Row(
        system="bm25",
        benchmark="locomo",
        unit_id="c",
        question_id="q",
        question="?",
        gold="g",
        context="value Paris here",
        metadata={"evidence": ["D1:2", "D3:4"], "values": ["Paris"], "retrieved_dia_ids": ["D3:4"]},
    )
    items = questions.evidence_items(row)
    assert items == ["Paris", "D1:2", "D3:4"]
    assert [questions.found_in(row, i) for i in items] == [True, False, True]


def test_chart_specs_carry_the_plot_data_and_intervals():
    interval = Interval(0.5, 0.3, 0.7, 12, 12)
    bars = Figure(
        "bars",
        "t",
        partial(plots.plot_task_bars, {"bm25": {"ER": 0.5, "Abs": "n/a"}}, ["ER", "Abs"], title="t",
                intervals={"bm25": {"ER": interval}}),
    )  # fmt: skip
    spec = chart_spec(bars)
    assert spec["kind"] == "bars" and spec["x"] == ["ER", "Abs"]
    assert spec["series"][0]["points"] == [
        {"y": 0.5, "lo": 0.3, "hi": 0.7, "n": 12, "too_small": False},
        {"y": None},
    ]
    latency = chart_spec(
        Figure(
            "lat", "t", partial(plots.plot_latency_distribution, {"a": [1.0, 2.0, 3.0, 4.0, 5.0]}, title="t")
        )
    )
    assert latency["boxes"] == [
        {"name": "a", "n": 5, "p5": 1.2, "p25": 2.0, "p50": 3.0, "p75": 4.0, "p95": 4.8}
    ]
    curves = chart_spec(
        Figure(
            "c",
            "t",
            partial(plots.plot_sweep_curves, [1, 3], {"ER": {"bm25": [0.2, None]}}, title="t", xlabel="k",
                    bands={"ER": {"bm25": [(0.1, 0.3), None]}}),
        )
    )  # fmt: skip
    assert curves["panels"][0]["series"][0]["points"] == [{"y": 0.2, "lo": 0.1, "hi": 0.3}, {"y": None}]
    context = chart_spec(
        Figure(
            "ctx",
            "t",
            partial(plots.plot_rate_against_context,
                    {"bm25": [{"x": 979.0, "y": 0.9, "lo": 0.8, "hi": 1.0, "n": 14, "too_small": False,
                               "label": "1024"}, {"x": None, "y": 0.1, "label": "128"}]},
                    title="t", ylabel="overall [rule]"),
        )
    )  # fmt: skip
    assert context["kind"] == "scatter" and context["ylabel"] == "overall [rule]"
    assert context["series"] == [
        {
            "name": "bm25",
            "points": [
                {"x": 979.0, "y": 0.9, "label": "1024", "lo": 0.8, "hi": 1.0, "n": 14, "too_small": False}
            ],
        }
    ]
    assert chart_spec(Figure("x", "t", lambda path: path)) is None  # not a plot call: the PNG is shown


def _row(i: int, context: str) -> Row:
    return Row(
        system="bm25",
        benchmark="locomo",
        unit_id="conv-1",
        question_id=f"q{i}",
        question=f"question {i}",
        gold="g",
        context=context,
        answer="a",
        verdicts={"rule": {"correct": i % 2 == 0}},
        usage={"retrieve_ms": 2.0},
    )


def _payloads(folder) -> dict[str, object]:
    found = {}
    for script in (folder / FILES / "data").glob("*.js"):
        name, payload = re.fullmatch(
            r'MEMSUITE\.chunk\("([^"]+)","([^"]+)"\);\n', script.read_text()
        ).groups()
        found[name] = json.loads(gzip.decompress(base64.b64decode(payload)))
    return found


def test_page_folder_is_deterministic_complete_and_local(tmp_path):
    rows = [_row(i, f"context {i} " * 30) for i in range(7)]
    run_dir = write_run(tmp_path / "run", benchmark="locomo", rows=rows, scores={})
    report = build_report(load_runs([run_dir]))
    files = write_report(report, tmp_path / "a", plots=False)
    assert files[1] == tmp_path / "a" / "index.html"
    write_report(report, tmp_path / "b", plots=False)
    first = {
        p.relative_to(tmp_path / "a"): p.read_bytes() for p in (tmp_path / "a").rglob("*") if p.is_file()
    }
    second = {
        p.relative_to(tmp_path / "b"): p.read_bytes() for p in (tmp_path / "b").rglob("*") if p.is_file()
    }
    assert first == second
    # Every row is in the index, the details and the contexts, in order, with its whole context (a
    # small run).
    data = _payloads(tmp_path / "a")
    index = [entry for name in sorted(data) if name.startswith("index") for entry in data[name]]
    details = [entry for name in sorted(data) if name.startswith("details") for entry in data[name]]
    contexts = [entry for name in sorted(data) if name.startswith("context") for entry in data[name]]
    assert [e[3] for e in index] == [r.question_id for r in rows]
    assert [d["context_chars"] for d in details] == [len(r.context) for r in rows]
    assert contexts == [[r.context, [[0, len(r.context)]]] for r in rows]
    # Libraries travel with their licences; the page names only files beside it.
    for library in LIBRARIES:
        assert (tmp_path / "a" / FILES / "vendor" / library).is_file()
        stem = library.removesuffix(".umd.min.js").removesuffix(".min.js")
        assert any(
            p.name.startswith(stem) and "LICENSE" in p.name
            for p in (tmp_path / "a" / FILES / "vendor").iterdir()
        )
    page = (tmp_path / "a" / "index.html").read_text()
    assert not re.search(r"""(src|href)=["'](https?:)?//""", page)


def test_package_data_holds_the_template_and_static_files():
    package = resources.files("memsuite.eval.report.html")
    assert (package / "templates" / "index.html.j2").is_file()
    names = {p.name for p in (package / "static").iterdir()} | {
        p.name for p in (package / "static" / "vendor").iterdir()
    }
    assert {"app.js", "data.js", "charts.js", "questions.js", "app.css", *LIBRARIES} <= names


def test_context_chunks_split_by_characters_and_name_their_first_row(tmp_path, monkeypatch):
    monkeypatch.setattr(page, "CONTEXT_CHUNK_CHARS", 100)
    contexts = [["x" * n, [[0, n]]] for n in (60, 30, 20, 150, 10, 10)]
    chunks = page._write_context_chunks(tmp_path, contexts)
    # A chunk closes before the row that would pass 100 characters; a longer row stands alone.
    assert chunks == [["context-0000", 0], ["context-0001", 2], ["context-0002", 3], ["context-0003", 4]]
    read = []
    for name, _ in chunks:
        payload = re.fullmatch(
            r'MEMSUITE\.chunk\("[^"]+","([^"]+)"\);\n', (tmp_path / f"{name}.js").read_text()
        )
        read += json.loads(gzip.decompress(base64.b64decode(payload.group(1))))
    assert read == contexts
