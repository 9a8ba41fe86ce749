"""The report page of real runs, in a real browser: it opens from file:// with no request outside the
folder and no console error, names every system, lists every row with its ``data-question`` key,
opens a question's details, counts each filter as rows.jsonl does, pairs two systems and shows the
judges' disagreements."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
from collections import Counter
from pathlib import Path

import pytest
from runfolders import write_run

from memsuite.eval.analysis.show import question_records
from memsuite.eval.analysis.stats import mcnemar_exact
from memsuite.eval.cli.main import main
from memsuite.eval.protocol import Row
from memsuite.eval.registry import definition
from memsuite.eval.run.config import load_config
from memsuite.eval.run.folder import RunFolder, load_runs
from memsuite.eval.run.runner import run

#: A MEME quick run in small: two episodes without filler, bm25 and the oracle temporal KG (no LLM).
MEME_CONFIG = """\
benchmark: meme
name: meme_page
systems:
  - bm25
  - {name: temporal_kg, label: temporal_kg_oracle, args: {oracle: true}}
k: 2
benchmark_options: {episodes: 2, filler: none, seed: 0}
"""


def _rows(run_dir: Path) -> list[dict]:
    """The run's rows.jsonl (a folder written without the runner keeps its rows in its unit files)."""
    path = run_dir / "rows.jsonl"
    if not path.exists():
        return [row.to_dict() for row in RunFolder(run_dir).rows()]
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _letter(verdict) -> str | None:
    """pass / fail / undecided as the page's filter counts them; None when the judge did not judge."""
    if not isinstance(verdict, dict):
        return None
    if verdict.get("failure") or not isinstance(verdict.get("correct"), bool):
        return "undecided"
    return "pass" if verdict["correct"] else "fail"


def _report(run_dirs: list[Path], out: Path) -> tuple[Path, str]:
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert main(["report", *map(str, run_dirs), "--out", str(out)]) == 0
    return out / "index.html", printed.getvalue()


@pytest.fixture(scope="module")
def meme_report(tmp_path_factory):
    """A real MEME run and its report folder (written by ``memsuite report``)."""
    root = tmp_path_factory.mktemp("meme_page")
    path = root / "meme_page.yaml"
    path.write_text(MEME_CONFIG, encoding="utf-8")
    run_dir = run(load_config(path), out_dir=root / "run", show_progress=False).path
    page, printed = _report([run_dir], root / "report")
    return run_dir, page, printed


def _judged_row(i: int, rule, llm, category: str) -> Row:
    llm_verdict = {"correct": llm, "reason": f"llm reason {i}"}
    if llm is None:
        llm_verdict = {"correct": None, "failure": "timeout", "failed_call": "judge"}
    return Row(
        system="bm25",
        benchmark="locomo",
        unit_id=f"conv-{i % 2}",
        question_id=f"q{i:03d}",
        question=f"When did speaker {i} move house?",
        gold=f"gold {i}",
        context=f"turn D1:{i} the move was in May {i}; other talk",
        answer=f"answer {i}",
        verdicts={"rule": {"correct": rule, "reason": f"rule reason {i}"}, "llm": llm_verdict},
        usage={"retrieve_ms": 1.0 + i},
        metadata={"category_name": category, "evidence": [f"D1:{i}"], "retrieved_dia_ids": [f"D1:{i}"]},
    )


@pytest.fixture(scope="module")
def judged_report(tmp_path_factory):
    """A LoCoMo-layout run folder with two answer judges that disagree on some rows, and its report."""
    root = tmp_path_factory.mktemp("judged_page")
    verdicts = [(True, True), (True, False), (False, False), (False, True), (None, True), (True, None)]
    rows = [
        _judged_row(i, rule, llm, "temporal" if i % 2 else "single-hop")
        for i, (rule, llm) in enumerate(verdicts * 2)
    ]
    run_dir = write_run(root / "judged", benchmark="locomo", rows=rows, scores={})
    page, _ = _report([run_dir], root / "report")
    return run_dir, page


def test_memsuite_report_prints_the_page_and_it_opens_clean(meme_report, open_report, tmp_path):
    run_dir, page, printed = meme_report
    assert f"page: {page}" in printed
    opened = open_report(page)
    text = opened.page.inner_text("body")
    for system in {row["system"] for row in _rows(run_dir)}:
        assert system in text
    # The overview: the runs with their provenance, the tables with drawn intervals, the plots.
    runs = opened.page.locator('table[data-table="runs"]').inner_text()
    for column in ("data", "answer_llm", "judges", "k", "embedder", "git_revision"):
        assert column in runs
    assert opened.page.locator("td .ci").count() > 0
    assert opened.page.locator("figure.chart canvas").count() > 0
    shot = tmp_path / "overview.png"
    opened.page.screenshot(path=str(shot), full_page=True)
    _assert_not_blank(shot)


def _assert_not_blank(path: Path) -> None:
    from PIL import Image

    image = Image.open(path).convert("L")
    low, high = image.getextrema()
    colours = len(image.getcolors(maxcolors=1 << 16) or ())
    assert high - low > 100 and colours > 20, f"{path} looks blank"


def test_every_row_is_listed_and_clicking_shows_its_question(meme_report, open_report):
    run_dir, page, _ = meme_report
    rows = _rows(run_dir)
    opened = open_report(page)
    opened.route("questions")
    opened.page.wait_for_selector("li[data-question]")
    assert opened.page.inner_text("#result-count") == str(len(rows))
    listed = []
    while True:
        listed += opened.page.eval_on_selector_all(
            "li[data-question]", "els => els.map(e => e.dataset.question)"
        )
        if opened.page.is_disabled("#next-page"):
            break
        opened.page.click("#next-page")
    assert Counter(listed) == Counter(f"{r['unit_id']}/{r['question_id']}" for r in rows)
    # Open a question of each system: its text, gold and verdict reasons show.
    for system in {r["system"] for r in rows}:
        labels = opened.page.eval_on_selector_all("#filter-system option", "els => els.map(e => e.text)")
        opened.page.select_option(
            "#filter-system", label=next(o for o in labels if o.startswith(system + " ("))
        )
        item = opened.page.locator("li[data-question]").nth(1)
        key = item.get_attribute("data-question")
        item.click()
        opened.page.wait_for_selector(f'#question-detail[data-question="{key}"] .detail-question')
        row = next(r for r in rows if f"{r['unit_id']}/{r['question_id']}" == key and r["system"] == system)
        detail = opened.page.inner_text("#question-detail")
        assert "null" not in detail.splitlines()
        assert row["question"] in detail
        assert str(row["gold"]) in detail
        for judge, verdict in row["verdicts"].items():
            assert judge in detail and str(verdict.get("reason", "")) in detail


def _select_counts(opened, name: str) -> dict[str, int]:
    """Option label (without its count) -> the result count the page shows with only that option set."""
    found = {}
    labels = opened.page.eval_on_selector_all(f"#filter-{name} option", "els => els.map(e => e.text)")
    for label in labels[1:]:
        opened.page.click('#filters button[type="reset"]')
        opened.page.select_option(f"#filter-{name}", label=label)
        shown = int(opened.page.inner_text("#result-count"))
        assert label.endswith(f"({shown})"), f"{name} {label}: the option says one count, the list another"
        found[label.rsplit(" (", 1)[0]] = shown
    return found


def test_each_filter_counts_what_rows_jsonl_holds(meme_report, open_report):
    run_dir, page, _ = meme_report
    rows = _rows(run_dir)
    opened = open_report(page)
    opened.route("questions")
    opened.page.wait_for_selector("li[data-question]")
    assert _select_counts(opened, "system") == Counter(r["system"] for r in rows)
    assert _select_counts(opened, "cell") == Counter(r["metadata"]["task"] for r in rows)
    judges = sorted({j for r in rows for j in r["verdicts"]})
    for index, judge in enumerate(judges):
        expected = Counter(_letter(r["verdicts"].get(judge)) for r in rows)
        expected.pop(None, None)
        assert _select_counts(opened, f"judge-{index}") == expected
    records = question_records(load_runs([run_dir])[0], spec=definition("meme").outcomes)
    stages = Counter(r["stage"] for r in records if r["stage"] is not None)
    assert stages and _select_counts(opened, "stage") == stages
    # Free text, any case: a word of one question, and a word found only in retrieved contexts.
    fields = ("question", "gold", "answer", "unit_id", "question_id")
    outside_context = " ".join(str(r[k]).lower() for r in rows for k in fields)
    only_in_context = sorted(
        {w for r in rows for w in re.findall(r"[a-z]{6,}", (r["context"] or "").lower())}
        - set(re.findall(r"[a-z]{6,}", outside_context))
    )
    assert only_in_context, "the run's contexts hold no word the questions, golds and answers lack"
    for word in ("schedule", only_in_context[len(only_in_context) // 2]):
        opened.page.click('#filters button[type="reset"]')
        opened.page.fill("#filter-text", word.upper())
        opened.page.wait_for_selector('#result-count[data-state="done"]')
        expected = sum(any(word in str(r[k] or "").lower() for k in (*fields, "context")) for r in rows)
        assert expected > 0 and int(opened.page.inner_text("#result-count")) == expected, word
    in_context = sum(word in (r["context"] or "").lower() for r in rows)
    assert f"{in_context} more in the retrieved context" in opened.page.inner_text("#search-status")
    # A question found by its context shows the word marked there.
    opened.page.locator("li[data-question]").first.click()
    opened.page.wait_for_selector("#question-detail .detail-question")
    marks = opened.page.eval_on_selector_all(
        "#question-detail mark.search", "els => els.map(e => e.textContent)"
    )
    assert marks and {m.lower() for m in marks} == {word}
    # Filters combine: system and verdict together.
    opened.page.click('#filters button[type="reset"]')
    opened.page.select_option("#filter-system", index=1)
    opened.page.select_option("#filter-judge-0", value="f")
    system = opened.page.eval_on_selector("#filter-system", "e => e.selectedOptions[0].text").rsplit(" (", 1)[
        0
    ]
    both = sum(r["system"] == system and _letter(r["verdicts"].get(judges[0])) == "fail" for r in rows)
    assert int(opened.page.inner_text("#result-count")) == both


def test_paired_view_lists_the_discordant_pairs(meme_report, open_report):
    run_dir, page, _ = meme_report
    rows = _rows(run_dir)
    opened = open_report(page)
    opened.route("paired")
    opened.page.wait_for_selector(".paired-counts")
    systems = opened.page.eval_on_selector_all("#paired-a option", "els => els.map(e => e.text)")
    judge = opened.page.eval_on_selector("#paired-judge", "e => e.selectedOptions[0].text")
    a, b = (label.split(" / ", 1)[1] for label in systems[:2])
    by_key = {}
    for r in rows:
        by_key.setdefault(f"{r['unit_id']}/{r['question_id']}", {})[r["system"]] = _letter(
            r["verdicts"].get(judge)
        )
    decided = ("pass", "fail")
    discordant = {
        k for k, v in by_key.items() if v.get(a) in decided and v.get(b) in decided and v[a] != v[b]
    }
    listed = []
    while True:
        listed += opened.page.eval_on_selector_all("li.pair", "els => els.map(e => e.dataset.question)")
        if not opened.page.locator("#paired-next").count() or opened.page.is_disabled("#paired-next"):
            break
        opened.page.click("#paired-next")
    assert set(listed) == discordant and len(listed) == len(discordant)
    a_only = sum(1 for k in discordant if by_key[k][a] == "pass")
    assert opened.page.inner_text('[data-count="a-only"]') == str(a_only)
    assert opened.page.inner_text('[data-count="b-only"]') == str(len(discordant) - a_only)
    # McNemar's test of those counts, beside them: the stats module's exact p of the decided pairs.
    decided_keys = [k for k, v in by_key.items() if v.get(a) in decided and v.get(b) in decided]
    test = mcnemar_exact(
        [by_key[k][a] == "pass" for k in decided_keys], [by_key[k][b] == "pass" for k in decided_keys]
    )
    shown = opened.page.locator("p.mcnemar")
    assert (test.a_only, test.b_only) == (a_only, len(discordant) - a_only)
    assert float(shown.get_attribute("data-p")) == pytest.approx(test.p_value)
    assert "McNemar" in shown.inner_text()
    if listed:
        pair = opened.page.locator("li.pair").first
        key = pair.get_attribute("data-question")
        pair.locator("a").first.click()
        opened.page.wait_for_selector(f'#question-detail[data-question="{key}"] .detail-question')


def test_judge_view_and_disagreement_filter(judged_report, open_report):
    run_dir, page = judged_report
    rows = _rows(run_dir)
    opened = open_report(page)
    opened.route("judges")
    agreement = opened.page.locator('#view-judges table[data-table="judge_agreement"]').inner_text()
    assert "kappa" in agreement and "both_true" in agreement
    disagreeing = [
        r for r in rows if {_letter(r["verdicts"]["rule"]), _letter(r["verdicts"]["llm"])} == {"pass", "fail"}
    ]
    links = opened.page.locator('#view-judges table[data-table="judge_disagreements"] a.open-question')
    assert links.count() == len(disagreeing) > 0
    links.first.click()
    opened.page.wait_for_selector("#question-detail .detail-question")
    key = opened.page.get_attribute("#question-detail", "data-question")
    assert key in {f"{r['unit_id']}/{r['question_id']}" for r in disagreeing}
    # Both judges' verdicts and reasons, and the evidence turn marked as retrieved.
    detail = opened.page.inner_text("#question-detail")
    assert "rule reason" in detail and ("llm reason" in detail or "timeout" in detail)
    assert opened.page.locator("#question-detail mark.evidence").count() >= 1
    opened.route("questions/disagree")
    opened.page.wait_for_function(
        f"document.getElementById('result-count').textContent === '{len(disagreeing)}'"
    )
    assert opened.page.is_checked("#filter-disagree")


def test_overview_tables_sort_by_their_numbers(meme_report, open_report):
    _, page, _ = meme_report
    opened = open_report(page)
    table = opened.page.locator("table.sortable").nth(1)
    header = table.locator("th").nth(2)
    column = 3
    header.click()
    keys = table.locator(f"tbody tr td:nth-child({column})").evaluate_all(
        "tds => tds.map(td => td.dataset.sort)"
    )
    assert header.get_attribute("aria-sort") in ("ascending", "descending")
    numbers = [float(k) for k in keys if k.replace(".", "", 1).isdigit()]
    assert numbers == sorted(numbers) or numbers == sorted(numbers, reverse=True)


def test_paired_view_of_rows_without_verdicts_says_there_is_nothing_to_pair(tmp_path, open_report):
    # DynamicMem scores its rows by retrieval measures and leaves their verdicts empty.
    rows = [
        Row("bm25", "locomo", "conv-1", f"q{i}", f"question {i}", "gold", f"context {i}", metadata={})
        for i in range(3)
    ]
    page, _ = _report(
        [write_run(tmp_path / "run", benchmark="locomo", rows=rows, scores={})], tmp_path / "out"
    )
    opened = open_report(page)
    opened.route("paired")
    opened.page.wait_for_selector("#paired-result p")
    assert "nothing to pair" in opened.page.inner_text("#paired-result")
    assert opened.page.locator("p.mcnemar").count() == 0


def _budget_row(system: str, i: int, context: str, correct: bool) -> Row:
    from memsuite.memory_systems.tokens import count_tokens

    return Row(
        system, "meme", f"e{i % 4}", f"q{i}", "What did the crash print?", "quorum lost", context,
        answer="a", verdicts={"rule": {"correct": correct}},
        metadata={"task": "ER", "phase": "after", "entities": [f"x{i}"],
                  "context_tokens": count_tokens(context), "context_cut": True},
    )  # fmt: skip


def test_unequal_context_warning_and_rate_against_context_chart(tmp_path, open_report):
    from memsuite.eval.benchmarks.meme.scoring import meme_scores
    from memsuite.eval.report.document import build_report, write_report
    from memsuite.eval.report.model import Sweep

    folders = []
    for budget, words in ((128, 20), (1024, 160)):
        # bm25 hands over its whole budget, graphiti a tenth of it: not like for like.
        rows = [_budget_row("bm25", i, "quorum lost at shard " * words, i % 5 != 0) for i in range(20)]
        rows += [_budget_row("graphiti", i, "quorum " * (words // 10), i % 2 == 0) for i in range(20)]
        scores = {"by_judge": {"rule": meme_scores(rows)}}
        folders.append(write_run(tmp_path / f"b{budget}", benchmark="meme", rows=rows, scores=scores))
    sweep = Sweep("context_tokens", (128, 1024), ("b128", "b1024"))
    report = build_report(load_runs(folders, ["b128", "b1024"]), sweep=sweep)
    write_report(report, tmp_path / "report", plots=False)
    opened = open_report(tmp_path / "report" / "index.html")
    page = opened.page
    warnings = page.locator("p.section-warning")
    assert warnings.count() == 2 and warnings.first.is_visible()
    assert warnings.first.inner_text().startswith("Warning: Not like for like (b128): bm25 handed over")
    # The warning comes before the section's first table.
    before = page.evaluate(
        """() => {
            const warning = document.querySelector("p.section-warning");
            const table = document.querySelector("#view-overview .table-block:not(#table-runs)");
            return !!(warning.compareDocumentPosition(table) & Node.DOCUMENT_POSITION_FOLLOWING);
        }"""
    )
    assert before
    chart = page.locator("figure.chart", has_text="against context tokens")
    assert chart.locator("canvas").count() == 1
    points = page.evaluate(
        """() => {
            const figure = [...document.querySelectorAll("figure.chart")]
                .find((f) => f.textContent.includes("against context tokens"));
            const chart = Chart.getChart(figure.querySelector("canvas"));
            return chart.data.datasets.map((d) => [d.label, d.data.map((p) => [p.x, p.y, p.yMin, p.yMax])]);
        }"""
    )
    assert [name for name, _ in points] == ["bm25", "graphiti"]
    assert all(lo <= y <= hi for _, series in points for _, y, lo, hi in series)
    assert points[0][1][0][0] < points[0][1][1][0]  # more context at the larger budget
    warnings.first.scroll_into_view_if_needed()
    shot = tmp_path / "warning.png"
    page.screenshot(path=str(shot), full_page=True)
    _assert_not_blank(shot)
    chart.scroll_into_view_if_needed()
    chart.screenshot(path=str(tmp_path / "chart.png"))
    _assert_not_blank(tmp_path / "chart.png")
    shots = os.environ.get("MEMSUITE_TEST_SHOTS")  # a folder to keep the screenshots in, to look at
    if shots:
        for name in ("warning.png", "chart.png"):
            (Path(shots) / name).write_bytes((tmp_path / name).read_bytes())
