"""Context tokens in every report: per question per system in the usage table (Markdown and CSV), a
warning above a section whose systems were handed unequal context, dashes for rows that do not record it."""

from __future__ import annotations

import pytest
from runfolders import csv_rows, table_of, write_run

from memsuite.eval.benchmarks.meme.scoring import meme_scores
from memsuite.eval.protocol import Row
from memsuite.eval.report.context import context_record, like_for_like_warnings
from memsuite.eval.report.document import build_report, report_markdown, write_report
from memsuite.eval.run.folder import load_runs
from memsuite.memory_systems.tokens import count_tokens

LONG = "The staging crash printed FATAL qv-7 quorum lost at shard brindle-3 after the deploy. " * 12
SHORT = "crash: quorum lost"


def _row(system: str, i: int, context: str | None, *, cut: bool = False) -> Row:
    metadata = {"task": "ER", "phase": "after", "entities": [f"x{i}"]}
    if context is not None:  # rows of runs made before rows recorded their context carry neither key
        metadata |= {"context_tokens": count_tokens(context), "context_cut": cut}
    return Row(
        system, "meme", f"e{i % 2}", f"q{i}", "What did the crash print?", "quorum lost",
        context or "ctx", answer="a", verdicts={"rule": {"correct": i % 3 != 0}}, metadata=metadata,
    )  # fmt: skip


def _report(tmp_path, rows):
    path = write_run(
        tmp_path / "run", benchmark="meme", rows=rows, scores={"by_judge": {"rule": meme_scores(rows)}}
    )
    return build_report(load_runs([path]))


def _by_system(table) -> dict[str, dict]:
    records = [dict(zip(table.columns, row, strict=True)) for row in table.rows]
    return {record["system"]: record for record in records}


def test_mean_p50_p95_and_cut_share_are_read_from_the_rows():
    contexts = [SHORT, LONG, LONG + LONG, "one two three"]
    rows = [_row("bm25", i, text, cut=i == 2) for i, text in enumerate(contexts)]
    tokens = sorted(count_tokens(text) for text in contexts)
    record = context_record(rows)
    assert record["context tokens mean"] == pytest.approx(sum(tokens) / 4)
    assert record["context tokens p50"] == pytest.approx((tokens[1] + tokens[2]) / 2)
    assert tokens[2] < record["context tokens p95"] <= tokens[3]
    assert record["context cut share"] == pytest.approx(0.25)


def test_usage_table_markdown_and_csv_show_context_tokens_per_system(tmp_path):
    rows = [_row("bm25", i, LONG) for i in range(6)] + [_row("graphiti", i, SHORT) for i in range(6)]
    report = _report(tmp_path, rows)
    usage = table_of(report, "meme_usage")
    by_system = _by_system(usage)
    assert by_system["bm25"]["context tokens mean"] == pytest.approx(count_tokens(LONG))
    assert by_system["graphiti"]["context tokens p95"] == pytest.approx(count_tokens(SHORT))
    written = write_report(report, tmp_path / "out", plots=False, page=False)
    csv = {row["system"]: row for row in csv_rows(tmp_path / "out" / "meme_usage.csv")}
    assert float(csv["bm25"]["context tokens mean"]) == pytest.approx(count_tokens(LONG))
    assert "context tokens mean" in written[0].read_text()


def test_systems_handed_unequal_context_get_a_warning_above_the_main_table(tmp_path):
    rows = [_row("bm25", i, LONG) for i in range(6)] + [_row("graphiti", i, SHORT) for i in range(6)]
    report = _report(tmp_path, rows)
    (section,) = [s for s in report.sections if s.title.startswith("MEME")]
    long, short = count_tokens(LONG), count_tokens(SHORT)
    (warning,) = section.warnings
    assert warning.startswith(
        f"Not like for like: bm25 handed over {long} tokens per question on average, graphiti {short} "
        f"({long / short:.0f}×)."
    )
    markdown = report_markdown(report)
    section_text = markdown[markdown.index(f"## {section.title}") :]
    # Right under the section's heading, before its first table, marked as a warning.
    assert section_text.index("> **Warning:** Not like for like") < section_text.index("### ")


def test_equal_context_within_two_times_says_nothing(tmp_path):
    rows = [_row("bm25", i, LONG) for i in range(4)] + [_row("dense", i, LONG[:600]) for i in range(4)]
    assert count_tokens(LONG) <= 2 * count_tokens(LONG[:600])
    assert (
        like_for_like_warnings(load_runs([write_run(tmp_path / "r", benchmark="meme", rows=rows, scores={})]))
        == []
    )


def test_rows_without_context_tokens_are_absent_never_zero(tmp_path):
    rows = [_row("bm25", i, None) for i in range(4)] + [_row("graphiti", i, SHORT) for i in range(4)]
    report = _report(tmp_path, rows)
    usage = table_of(report, "meme_usage")
    by_system = _by_system(usage)
    assert by_system["bm25"]["context tokens mean"] is None and by_system["bm25"]["context cut share"] is None
    assert all(not s.warnings for s in report.sections)  # one system with tokens compares with nothing
    write_report(report, tmp_path / "out", plots=False, page=False)
    csv = {row["system"]: row for row in csv_rows(tmp_path / "out" / "meme_usage.csv")}
    assert csv["bm25"]["context tokens mean"] == "" and csv["graphiti"]["context tokens mean"] != ""
    markdown = (tmp_path / "out" / "report.md").read_text()
    (line,) = [line for line in markdown.splitlines() if line.startswith("| bm25 |") and "none" in line]
    assert line.split(" | ")[1:5] == ["–", "–", "–", "–"]


def test_a_ratio_under_ten_keeps_one_decimal_and_several_runs_are_named(tmp_path):
    text = "word " * 70
    folders = []
    for name, short in (("a", text[:100]), ("b", text)):
        rows = [_row("bm25", i, text) for i in range(3)] + [_row("dense", i, short) for i in range(3)]
        folders.append(write_run(tmp_path / name, benchmark="meme", rows=rows, scores={}))
    (warning,) = like_for_like_warnings(load_runs(folders))
    long, short = count_tokens(text), count_tokens(text[:100])
    assert f"Not like for like (a): bm25 handed over {long} tokens" in warning
    assert f"dense {short} ({long / short:.1f}×)" in warning


def test_under_one_budget_the_warning_says_the_budget_was_the_same_and_left_unused(tmp_path):
    rows = [_row("bm25", i, LONG, cut=True) for i in range(4)]
    rows += [_row("graphiti", i, SHORT) for i in range(4)]
    header = {"retrieval": {"k": None, "depth": 25, "context_tokens": 200}}
    path = write_run(tmp_path / "r", benchmark="meme", rows=rows, scores={}, header=header)
    (warning,) = like_for_like_warnings(load_runs([path]))
    assert warning.startswith("Not like for like: bm25 handed over")
    assert warning.endswith(
        "every system had the same budget (200 tokens), and graphiti handed over less because its "
        "retrieval returned less."
    )
    assert "set context_tokens" not in warning
