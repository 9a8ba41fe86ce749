"""MEME's report: tables in the paper's layout hold hand-checked numbers; files are written.

Fixture runs are either made by the real runner on a tiny hand-made MEME episode (bm25 only, no
model load) or written directly with :class:`RunFolder` from rows scored by the benchmarks' own
scoring functions, so every expected number below can be checked by hand.
"""

from __future__ import annotations

import json

import pytest
from runfolders import csv_rows, table_of, without_intervals, write_run

from memsuite.eval.benchmarks.meme.paper import PAPER_MAIN_TABLE, protocol_differences
from memsuite.eval.benchmarks.meme.scoring import meme_scores
from memsuite.eval.cli.main import main
from memsuite.eval.protocol import Row
from memsuite.eval.report.document import build_report, table_markdown, write_report
from memsuite.eval.report.runs import load_runs
from memsuite.eval.run.config import config_from_dict
from memsuite.eval.run.folder import RunFolder
from memsuite.eval.run.runner import run
from memsuite.memory_systems.llm import PriceTable

LOG = "FATAL qv-7 quorum lost at shard brindle-3"


def _session(i: int, *turns: str) -> dict:
    return {
        "session_id": f"s{i}",
        "type": "evidence",
        "timestamp": f"2023/03/0{i + 1} (Wed) 09:00",
        "conversation": [{"role": ("user", "assistant")[j % 2], "content": t} for j, t in enumerate(turns)],
    }


def _question(task: str, entity: str, question: str, answer: str, values: list[str]) -> dict:
    return {
        "task_type": task,
        "entity": [entity],
        "entity_values": values,
        "question": question,
        "gold_answer": answer,
    }


#: Four sessions (one chunk each): with k = 10 every chunk is retrieved, so the evidence verdicts are
#: known by reading the episode.
EPISODE = {
    "episode_id": "sw_001",
    "domain": "software_project",
    "sessions": [
        _session(0, f"The staging crash printed: {LOG}", "Noted."),
        _session(1, "The CI runner depends on the deploy tool; if it changes, the CI runner will be Corvex."),
        _session(2, "My locker code is 8812.", "Got it."),
        _session(3, "We switched the deploy tool to Plinthwork. Please forget my locker code.", "Done."),
    ],
    "before_questions": {
        "timestamp": "2023/03/03 (Fri) 10:00",
        "position_after_session": 2,
        "questions": [
            _question("ER", "crash_log", "What did the staging crash print?", LOG, [LOG]),
            _question("Del", "locker", "What is my locker code?", "8812", ["8812"]),
            _question(
                "Cas", "ci_runner", "What does the CI runner depend on?", "deploy tool", ["deploy tool"]
            ),
        ],
    },
    "after_questions": {
        "timestamp": "2023/03/05 (Sun) 10:00",
        "position_after_session": 3,
        "questions": [
            _question("ER", "crash_log", "What did the staging crash print?", LOG, [LOG]),
            _question("Del", "locker", "What is my locker code?", "No — explicitly removed", ["8812"]),
            _question("Cas", "ci_runner", "What is the CI runner now?", "Corvex", ["deploy tool", "Corvex"]),
        ],
    },
}


@pytest.fixture
def meme_run(tmp_path):
    """A retrieval-only MEME run of bm25 on the hand-made episode, by the real runner."""
    data = tmp_path / "episodes.json"
    data.write_text(json.dumps([EPISODE]))
    config = config_from_dict(
        {
            "benchmark": "meme",
            "systems": ["bm25"],
            "name": "meme_tiny",
            "k": 10,
            "benchmark_options": {"data": str(data)},
        }
    )
    return run(config, out_dir=tmp_path / "meme_tiny", show_progress=False).path


# -- MEME ----------------------------------------------------------------------------------------------


def test_meme_retrieval_only_run_table_and_files(meme_run, tmp_path):
    report = build_report(load_runs([meme_run]))
    main_table = table_of(report, "meme_main_evidence")
    rows = {(r[0], r[1]): dict(zip(main_table.columns, r, strict=True)) for r in main_table.rows}
    ours, paper = rows[("bm25", "memsuite")], rows[("BM25", "paper")]
    # Everything is retrieved: the log and Corvex are in the context (Cas before passed -> real).
    assert ours["ER"] == 1.0 and ours["Cas"] == 1.0
    # Del: the deletion request is retrieved; no Agg/Tr/Abs questions in this episode, so no Overall.
    assert ours["Del"] == 1.0 and ours["Overall"] is None
    assert ours["Agg"] is None and ours["Abs"] is None
    # Questions scored under this judge: ER, Del and Cas.
    assert ours["questions"] == 3 and ours["llm_calls"] == 0 and ours["cost_usd_per_unit"] == 0.0
    assert [paper[t] for t in ("ER", "Agg", "Tr", "Del", "Cas", "Abs", "Overall")] == [
        1.00, 0.05, 0.16, 0.27, 0.02, 0.00, 0.25,
    ]  # fmt: skip

    files = write_report(report, tmp_path / "out")
    names = {f.name for f in files}
    assert {"report.md", "runs.csv", "meme_main_evidence.csv", "meme_usage.csv", "meme_tasks.png"} <= names
    main_csv = csv_rows(tmp_path / "out" / "meme_main_evidence.csv")
    assert main_csv[0]["system"] == "bm25" and main_csv[0]["ER"] == "1" and main_csv[0]["Del"] == "1"
    assert main_csv[1]["system"] == "BM25" and main_csv[1]["Agg"] == "0.05"
    markdown = without_intervals((tmp_path / "out" / "report.md").read_text())
    # Four chunks, k = 10: every context was the whole memory, so each scored cell carries the mark.
    row = "| bm25 | memsuite | 1.00 † | – | – | 1.00 † | 1.00 † | – | – | 3 | 0 | ER 1/1, Del 1/1, Cas 1/1 |"
    assert row in markdown
    assert "context = whole memory for 3 of 3 questions" in markdown
    assert main_csv[0]["whole memory"] == "ER 1/1, Del 1/1, Cas 1/1" and main_csv[0]["ER"] == "1"
    assert "judge: evidence" in markdown and "![" in markdown
    runs_csv = csv_rows(tmp_path / "out" / "runs.csv")[0]
    assert runs_csv["answer_llm"] == "none" and runs_csv["judges"] == "evidence"
    assert runs_csv["data"].startswith("official: data=") and runs_csv["status"] == "complete"


def _meme_row(unit: str, task: str, phase: str, correct: bool, entity: str, **usage) -> Row:
    return Row(
        "md_flat",
        "meme",
        unit,
        f"{phase}-{task}-{entity}",
        "q",
        "gold",
        "ctx",
        answer="a",
        verdicts={"rule": {"correct": correct}},
        usage=usage,
        metadata={"task": task, "phase": phase, "entities": [entity]},
    )


#: Rule verdicts chosen so every task rate is known: ER 1, Agg 1/2, Tr 1, Del real 1, Cas trivial 0,
#: Abs knew_but_failed 0; Overall = 3.5 / 6.
MEME_ROWS = [
    _meme_row("e1", "ER", "before", True, "x", answer_prompt_tokens=1000, answer_completion_tokens=100),
    _meme_row("e1", "ER", "after", True, "x", answer_prompt_tokens=1000, answer_completion_tokens=100),
    _meme_row("e1", "Agg", "after", True, "y"),
    _meme_row("e2", "Agg", "after", False, "y"),
    _meme_row("e1", "Tr", "after", True, "z"),
    _meme_row("e1", "Del", "before", True, "d"),
    _meme_row("e1", "Del", "after", True, "d"),
    _meme_row("e1", "Cas", "before", False, "c"),
    _meme_row("e1", "Cas", "after", True, "c"),
    _meme_row("e1", "Abs", "before", True, "a"),
    _meme_row("e1", "Abs", "after", False, "a"),
]


def _gpt_header(answer="gpt-4.1-mini", internal="gpt-4.1-mini", internal_config=None) -> dict:
    return {
        "config": {
            "benchmark": "meme",
            "systems": [{"name": "md_flat", "label": "", "args": {}}],
            "k": 5,
            "judges": ["rule"],
            "answer_llm": {"model": answer},
            "internal_llm": internal_config,
            "benchmark_options": {"episodes": 2, "filler": "none", "seed": 0},
        },
        "answer_llm": {"model": answer, "wiring_only": False},
        "internal_llm": {"model": internal, "wiring_only": False},
    }


USAGE = {
    "llm_calls": 40,
    "prompt_tokens": 100_000,
    "completion_tokens": 10_000,
    "cache_hits": 5,
    "wall_s": {"ingest": 4.0, "retrieve": 1.0, "answer": 2.0, "judge": 0.5},
}


def _meme_answer_run(path, **header_kwargs):
    scores = {
        "source": {"kind": "generated", "episodes": 2, "filler": "none", "seed": 0},
        "by_judge": {"rule": meme_scores(MEME_ROWS, "rule")},
    }
    return write_run(
        path,
        benchmark="meme",
        rows=MEME_ROWS,
        scores=scores,
        header=_gpt_header(**header_kwargs),
        usage=USAGE,
    )


def test_meme_answer_run_rates_cost_and_paper_row(tmp_path):
    report = build_report(load_runs([_meme_answer_run(tmp_path / "answers")]))
    table = table_of(report, "meme_main_rule")
    ours = dict(zip(table.columns, table.rows[0], strict=True))
    assert [ours[t] for t in ("ER", "Agg", "Tr", "Del", "Cas", "Abs")] == [1.0, 0.5, 1.0, 1.0, 0.0, 0.0]
    assert ours["Overall"] == pytest.approx(3.5 / 6)
    assert ours["questions"] == 7 and ours["llm_calls"] == 40 and ours["tokens"] == 110_000
    # gpt-4.1-mini: $0.40 / $1.60 per 1M tokens -> 0.04 + 0.016 = $0.056 over 2 episodes.
    assert ours["cost_usd_per_unit"] == pytest.approx(0.028)
    assert ours["ingest_s"] == 4.0 and ours["query_s"] == 3.0
    paper = dict(zip(table.columns, table.rows[1], strict=True))
    assert paper["system"] == "MD-flat" and paper["Overall"] == PAPER_MAIN_TABLE["MD-flat"]["Overall"]
    assert paper["cost_usd_per_unit"] == pytest.approx(0.05)  # $0.04 ingest + $0.01 inference
    usage_table = table_of(report, "meme_usage")
    usage = dict(zip(usage_table.columns, usage_table.rows[0], strict=True))
    assert usage["cost_usd"] == pytest.approx(0.056) and usage["judge_s"] == 0.5 and usage["cache_hits"] == 5
    assert usage["internal_llm"] == "gpt-4.1-mini (= answer LLM)"
    filter_table = table_of(report, "meme_filter_rule")
    counts = dict(zip(filter_table.columns, filter_table.rows[0], strict=True))
    assert (counts["real"], counts["trivial"], counts["knew_but_failed"]) == (1, 1, 1)
    markdown = without_intervals(table_markdown(table))
    assert "| md_flat | memsuite | 1.00 | 0.50 | 1.00 | 1.00 | 0.00 | 0.00 | 0.58 |" in markdown


def test_cost_splits_answer_and_internal_models_and_flags_unpriced(tmp_path):
    path = _meme_answer_run(
        tmp_path / "two",
        answer="gpt-4.1-mini",
        internal="gpt-4o-mini",
        internal_config={"model": "gpt-4o-mini"},
    )
    usage = table_of(build_report(load_runs([path])), "meme_usage")
    cost = dict(zip(usage.columns, usage.rows[0], strict=True))["cost_usd"]
    # Rows record 2,000 / 200 answer tokens at gpt-4.1-mini; the other 98,000 / 9,800 at gpt-4o-mini.
    expected = (2000 * 0.40 + 200 * 1.60 + 98_000 * 0.15 + 9_800 * 0.60) / 1e6
    assert cost == pytest.approx(expected)

    unpriced = _meme_answer_run(tmp_path / "unpriced", answer="my-model", internal="my-model")
    report = build_report(load_runs([unpriced]))
    usage = table_of(report, "meme_usage")
    assert dict(zip(usage.columns, usage.rows[0], strict=True))["cost_usd"] is None
    assert any("my-model" in note and "--prices" in note for note in usage.notes)
    priced = build_report(load_runs([unpriced]), prices=PriceTable({"my-model": (1.0, 2.0)}))
    row = dict(zip(usage.columns, table_of(priced, "meme_usage").rows[0], strict=True))
    assert row["cost_usd"] == pytest.approx(0.12)  # 0.1 + 0.02


def test_several_runs_get_a_run_column(meme_run, tmp_path):
    other = _meme_answer_run(tmp_path / "answers")
    report = build_report(load_runs([meme_run, other]))
    assert [s.title for s in report.sections] == ["MEME"]
    table = table_of(report, "meme_main_rule")
    assert table.columns[0] == "run" and table.column("run") == ["answers", "paper"]
    assert table_of(report, "meme_main_evidence").column("run")[0] == "meme_tiny"


def test_cli_report(meme_run, tmp_path, capsys):
    assert main(["report", str(meme_run), "--no-plots"]) == 0
    assert (meme_run / "report" / "report.md").exists() and not (
        meme_run / "report" / "meme_tasks.png"
    ).exists()
    assert "report.md" in capsys.readouterr().out
    assert main(["report", str(meme_run), str(meme_run)]) == 2
    assert "--out" in capsys.readouterr().err
    assert main(["report", str(tmp_path / "missing")]) == 2


def test_meme_failure_stage_table_and_figure(meme_run, tmp_path):
    report = build_report(load_runs([meme_run]))
    table = table_of(report, "meme_failure_stages")
    rows = {r[1]: dict(zip(table.columns, r, strict=True)) for r in table.rows}
    # bm25 keeps every session verbatim: the locker code the user asked to forget is still in memory.
    assert rows["Del"]["maintained"] == 1.0 and rows["Del"]["answer_judge"] == "none"
    assert rows["ER"]["none"] == 1.0 and rows["Cas"]["none"] == 1.0
    # Every share carries its interval and n (the cell's questions), resampling episodes.
    for index, row in enumerate(table.rows):
        record = dict(zip(table.columns, row, strict=True))
        for outcome in ("encoded", "maintained", "retrieved", "answered", "none"):
            interval = table.intervals[(index, outcome)]
            assert interval.n == record["n"] and interval.lo <= record[outcome] <= interval.hi
    assert any("resampling episodes whole" in note for note in table.notes)
    files = {f.name for f in write_report(report, tmp_path / "out")}
    assert {"meme_failure_stages.csv", "meme_failure_stages.png"} <= files


# -- how each number was made: left out, context cut, paper-row differences ----------------------------

FAILED = {"correct": None, "failure": "connection", "failed_call": "answer", "reason": "answer call failed"}


def _failed_row(unit: str, task: str, entity: str) -> Row:
    row = _meme_row(unit, task, "after", True, entity)
    return Row(**{**row.__dict__, "answer": None, "verdicts": {"rule": dict(FAILED)}})


def test_left_out_rows_are_counted_per_cell_and_in_the_usage_table(tmp_path):
    failed = [_failed_row("e1", "Agg", "y2"), _failed_row("e2", "Agg", "y3"), _failed_row("e2", "Tr", "t")]
    rows = [*MEME_ROWS, *failed]
    scores = {"source": {"kind": "generated"}, "by_judge": {"rule": meme_scores(rows, "rule")}}
    path = write_run(tmp_path / "failing", benchmark="meme", rows=rows, scores=scores, header=_gpt_header())
    folder = RunFolder(path)
    summary = folder.summary()
    summary["md_flat"]["failed_calls"] = {"answer": 3, "judge": 0}
    folder.write_summary(summary)
    report = build_report(load_runs([path]))
    table = table_of(report, "meme_main_rule")
    ours = dict(zip(table.columns, table.rows[0], strict=True))
    # The failed rows are out of the rates (Agg stays 1/2) and counted beside them.
    assert ours["Agg"] == 0.5 and ours["questions"] == 7 and ours["left out"] == 3
    markdown = without_intervals(table_markdown(table))
    cells = "1.00 | 0.50 (2 left out) | 1.00 (1 left out) | 1.00 | 0.00 | 0.00 | 0.58 (3 left out) | 7 | 3 |"
    assert f"| md_flat | memsuite | {cells}" in markdown
    assert "left out: rows whose answer or judge call failed" in markdown
    usage = table_of(report, "meme_usage")
    assert dict(zip(usage.columns, usage.rows[0], strict=True))["failed_answer_calls"] == 3
    # Nothing failed: no marks and no note.
    clean_report = build_report(load_runs([_meme_answer_run(tmp_path / "ok")]))
    clean = table_markdown(table_of(clean_report, "meme_main_rule"))
    assert "left out)" not in clean and "left out: rows" not in clean


def _cut_row(qid: str, evidence: bool, after_cut: bool | None, truncated: bool) -> Row:
    return Row(
        "bm25", "meme", "e1", qid, "q", "gold", "ctx", answer="a",
        verdicts={"evidence": {"correct": evidence}, "rule": {"correct": evidence}},
        metadata={"task": "ER", "phase": "after", "entities": [qid], "context_truncated": truncated,
                  "evidence_after_cut": after_cut},
    )  # fmt: skip


def test_a_cut_that_dropped_evidence_is_reported_per_system(tmp_path):
    rows = [
        _cut_row("a", True, False, True),  # the cut dropped the evidence
        _cut_row("b", True, True, True),  # cut, evidence kept
        _cut_row("c", False, False, True),  # nothing to drop
        _cut_row("d", True, True, False),  # not cut
    ]
    scores = {"by_judge": {j: meme_scores(rows, j) for j in ("evidence", "rule")}}
    path = write_run(tmp_path / "cut", benchmark="meme", rows=rows, scores=scores)
    report = build_report(load_runs([path]))
    cut = table_of(report, "meme_context_cut")
    assert cut.rows == (("bm25", 4, 3, 1),)
    notes = " ".join(table_of(report, "meme_main_rule").notes)
    assert "bm25: cutting the context to the answer model's window dropped evidence the memory had " \
        "returned for 1 of 4 questions" in notes  # fmt: skip
    # No cut dropped anything: no table, no note.
    kept = [_cut_row("b", True, True, True)]
    scores = {"by_judge": {"rule": meme_scores(kept, "rule")}}
    path = write_run(tmp_path / "kept", benchmark="meme", rows=kept, scores=scores)
    report = build_report(load_runs([path]))
    assert "dropped evidence" not in " ".join(table_of(report, "meme_main_rule").notes)


PAPER_LIKE = {
    "answer_llm": {"model": "gpt-4.1-mini"},
    "judge_llm": {"model": "gpt-4o"},
    "embedder": {"model": "text-embedding-3-small"},
    "packages": {"mem0ai": "1.0.3"},
    "config": {"k": 5},
}
OFFICIAL = {"kind": "official", "path": "meme/filler32k.json"}


def test_protocol_differences_match_the_paper_when_the_header_does():
    for paper_row, spec in (
        ("text-emb-3-small", {"name": "dense"}),
        ("Mem0", {"name": "mem0ai"}),
        ("MD-flat", {"name": "md_flat", "args": {"whole_file": True}}),
    ):
        assert protocol_differences(PAPER_LIKE, spec, paper_row, "llm", 100, OFFICIAL) == []


@pytest.mark.parametrize(
    ("change", "paper_row", "spec", "judge", "expected"),
    [
        ({"answer_llm": {"model": "SmolLM2-135M"}}, "BM25", {"name": "bm25"}, "llm",
         "answers by SmolLM2-135M vs gpt-4.1-mini"),
        ({"answer_llm": None}, "BM25", {"name": "bm25"}, "llm",
         "no answer model (retrieval only) vs gpt-4.1-mini answers"),
        ({"judge_llm": {"model": "gpt-4o-mini"}}, "BM25", {"name": "bm25"}, "llm",
         "LLM judge gpt-4o-mini vs GPT-4o"),
        ({"judge_llm": None}, "BM25", {"name": "bm25"}, "llm", "LLM judge gpt-4.1-mini vs GPT-4o"),
        ({}, "BM25", {"name": "bm25"}, "rule", "judge rule (deterministic) vs a GPT-4o judge"),
        ({"embedder": {"model": "all-MiniLM-L6-v2"}}, "text-emb-3-small", {"name": "dense"}, "llm",
         "embedder all-MiniLM-L6-v2 vs text-embedding-3-small"),
        ({"packages": {"mem0ai": "2.0.1"}}, "Mem0", {"name": "mem0ai"}, "llm",
         "mem0ai 2.0.1: add-only extraction (no UPDATE/DELETE)"),
        ({"packages": {}}, "Mem0", {"name": "mem0ai"}, "llm", "mem0ai version not recorded"),
        ({}, "Mem0", {"name": "llm_extraction"}, "llm", "memsuite's llm_extraction (a reimplementation)"),
        ({}, "MD-flat", {"name": "md_flat", "args": {}}, "llm",
         "md_flat retrieves its top-5 lines (whole_file: false) vs the whole file"),
    ],
)  # fmt: skip
def test_each_protocol_difference_comes_from_the_header(change, paper_row, spec, judge, expected):
    found = protocol_differences({**PAPER_LIKE, **change}, spec, paper_row, judge, 100, OFFICIAL)
    assert len(found) == 1 and found[0].startswith(expected)
    # The embedder only matters for the dense row.
    assert protocol_differences({**PAPER_LIKE, "embedder": {"model": "x"}}, {"name": "bm25"}, "BM25", "llm",
                                100, OFFICIAL) == []  # fmt: skip


def test_protocol_differences_of_episodes_and_generated_data():
    generated = {"kind": "generated", "episodes": 2, "filler": "none"}
    found = protocol_differences(PAPER_LIKE, {"name": "bm25"}, "BM25", "llm", 2, generated)
    assert found == ["2 episodes vs 100", "generated episodes, filler none vs the released ones, filler 32k"]


def test_paper_rows_carry_the_differences_note(tmp_path):
    report = build_report(load_runs([_meme_answer_run(tmp_path / "answers")]))
    notes = table_of(report, "meme_main_rule").notes
    note = next(n for n in notes if n.startswith("MD-flat (paper) vs md_flat"))
    # Same answer model as the paper: not listed; the rule judge, top-k md_flat and 2 generated episodes are.
    assert "answers by" not in note
    assert note == (
        "MD-flat (paper) vs md_flat -- protocol differs: judge rule (deterministic) vs a GPT-4o judge; "
        "md_flat retrieves its top-5 lines (whole_file: false) vs the whole file; 2 episodes vs 100; "
        "generated episodes, filler none vs the released ones, filler 32k."
    )


# -- intervals -------------------------------------------------------------------------------------------


def test_main_table_cells_carry_episode_intervals_and_n(tmp_path):
    # Twelve episodes: ER always right (a zero-width interval), Agg right in the first six only, so a
    # resample of episodes moves Agg -- and two Tr questions, too few to read.
    rows = [_meme_row(f"e{i}", "ER", "after", True, "x") for i in range(12)]
    rows += [_meme_row(f"e{i}", "Agg", "after", i < 6, "y") for i in range(12)]
    rows += [_meme_row(f"e{i}", "Tr", "after", True, "t") for i in range(2)]
    scores = {"by_judge": {"rule": meme_scores(rows, "rule")}}
    path = write_run(tmp_path / "run", benchmark="meme", rows=rows, scores=scores)
    report = build_report(load_runs([path]))
    table = table_of(report, "meme_main_rule")
    er, agg, tr = (table.intervals[(0, task)] for task in ("ER", "Agg", "Tr"))
    assert (er.value, er.lo, er.hi, er.n, er.units) == (1.0, 1.0, 1.0, 12, 12)
    assert agg.value == 0.5 and agg.lo < 0.4 and agg.hi > 0.6 and not agg.too_small
    assert tr.n == 2 and tr.too_small
    assert (0, "Del") not in table.intervals  # no Del question: a dash, no interval
    markdown = table_markdown(table)
    assert "| md_flat | memsuite | 1.00 [1.00, 1.00] n=12 | 0.50 [" in markdown
    assert "1.00 [1.00, 1.00] n=2 (too small to read)" in markdown
    assert "resampling episodes whole" in markdown
    write_report(report, tmp_path / "out", plots=False)
    record = csv_rows(tmp_path / "out" / "meme_main_rule.csv")[0]
    assert (record["ER"], record["ER lo"], record["ER hi"], record["ER n"]) == ("1", "1", "1", "12")
    assert float(record["Agg lo"]) == pytest.approx(agg.lo)


def test_filter_table_before_rates_carry_episode_intervals_and_counts_do_not(tmp_path):
    # Twelve episodes: the ER before-question right in the first six only, the Del one always right.
    rows = [_meme_row(f"e{i}", "ER", "before", i < 6, "x") for i in range(12)]
    rows += [_meme_row(f"e{i}", "ER", "after", True, "x") for i in range(12)]
    rows += [_meme_row(f"e{i}", "Del", "before", True, "d") for i in range(12)]
    rows += [_meme_row(f"e{i}", "Del", "after", i % 2 == 0, "d") for i in range(12)]
    scores = {"by_judge": {"rule": meme_scores(rows, "rule")}}
    path = write_run(tmp_path / "run", benchmark="meme", rows=rows, scores=scores)
    table = table_of(build_report(load_runs([path])), "meme_filter_rule")
    record = dict(zip(table.columns, table.rows[0], strict=True))
    er, deletion = table.intervals[(0, "before_ER")], table.intervals[(0, "before_Del")]
    assert record["before_ER"] == er.value == 0.5 and (er.n, er.units) == (12, 12)
    assert er.lo < 0.5 < er.hi
    assert (deletion.value, deletion.lo, deletion.hi, deletion.n) == (1.0, 1.0, 1.0, 12)
    assert record["real"] == 6 and record["knew_but_failed"] == 6
    assert {column for _, column in table.intervals} == {"before_ER", "before_Del"}  # no Cas/Abs, counts
    assert any("resampling episodes whole" in note for note in table.notes)
