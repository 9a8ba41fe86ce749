"""Reports from run folders: tables in the papers' layouts hold hand-checked numbers; files are written.

Fixture runs are either made by the real runner on a tiny hand-made MEME episode (bm25 only, no
model load) or written directly with :class:`RunFolder` from rows scored by the benchmarks' own
scoring functions, so every expected number below can be checked by hand.
"""

from __future__ import annotations

import csv
import gzip
import io
import json

import pytest

from eval.benchmarks.dynamicmem.protocol import SNAPSHOT_FILE, probe_record
from eval.benchmarks.dynamicmem.scoring import summarize as dynamicmem_summarize
from eval.benchmarks.meme.scoring import PAPER_MAIN_TABLE, meme_scores
from eval.benchmarks.wmb.scoring import result_json, wmb_scores
from eval.cli import main
from eval.config import config_from_dict
from eval.diagnostics import OUTCOMES as STAGE_OUTCOMES
from eval.protocol import Row
from eval.report import (
    NA,
    Sweep,
    Table,
    build_report,
    load_runs,
    register_renderer,
    render_meme,
    table_csv,
    table_markdown,
    write_report,
)
from eval.runlog import RunFolder, UnitRecord
from eval.runner import run
from memory_systems.errors import ConfigError
from memory_systems.llm import PriceTable

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


def _csv_rows(path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text())))


def _table(report, name: str) -> Table:
    return next(t for s in report.sections for t in s.tables if t.name == name)


# -- MEME ----------------------------------------------------------------------------------------------


def test_meme_retrieval_only_run_table_and_files(meme_run, tmp_path):
    report = build_report(load_runs([meme_run]))
    main_table = _table(report, "meme_main_evidence")
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
    csv_rows = _csv_rows(tmp_path / "out" / "meme_main_evidence.csv")
    assert csv_rows[0]["system"] == "bm25" and csv_rows[0]["ER"] == "1" and csv_rows[0]["Del"] == "1"
    assert csv_rows[1]["system"] == "BM25" and csv_rows[1]["Agg"] == "0.05"
    markdown = (tmp_path / "out" / "report.md").read_text()
    assert "| bm25 | memsuite | 1.00 | – | – | 1.00 | 1.00 | – | – |" in markdown
    assert "judge: evidence" in markdown and "![" in markdown
    runs_csv = _csv_rows(tmp_path / "out" / "runs.csv")[0]
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


def _write_run(
    path, *, benchmark: str, rows: list[Row], scores: dict, header: dict | None = None, usage=None
):
    """A finished run folder written directly: header, rows, one done unit per unit id, summary."""
    folder = RunFolder(path)
    system = rows[0].system
    units = sorted({r.unit_id for r in rows})
    base = {
        "status": "complete",
        "config": {
            "benchmark": benchmark,
            "systems": [{"name": system, "label": "", "args": {}}],
            "k": 5,
            "judges": ["rule"],
            "answer_llm": None,
            "internal_llm": None,
            "benchmark_options": {},
        },
        "answer_llm": None,
        "internal_llm": None,
        "embedder": {"model": "all-MiniLM-L6-v2"},
        "units": {"total": len(units)},
    }
    folder.write_header({**base, **(header or {})})
    for unit in units:
        folder.append_unit(UnitRecord(system, unit, "done"), [r for r in rows if r.unit_id == unit])
    usage = usage or {"llm_calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "wall_s": {}}
    summary = {
        system: {"scores": scores, "usage": usage, "units": {"done": len(units), "error": 0}, "wall_s": 9.0}
    }
    folder.write_summary(summary)
    return path


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
    return _write_run(
        path,
        benchmark="meme",
        rows=MEME_ROWS,
        scores=scores,
        header=_gpt_header(**header_kwargs),
        usage=USAGE,
    )


def test_meme_answer_run_rates_cost_and_paper_row(tmp_path):
    report = build_report(load_runs([_meme_answer_run(tmp_path / "answers")]))
    table = _table(report, "meme_main_rule")
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
    usage = dict(zip(_table(report, "meme_usage").columns, _table(report, "meme_usage").rows[0], strict=True))
    assert usage["cost_usd"] == pytest.approx(0.056) and usage["judge_s"] == 0.5 and usage["cache_hits"] == 5
    assert usage["internal_llm"] == "gpt-4.1-mini (= answer LLM)"
    filter_table = _table(report, "meme_filter_rule")
    counts = dict(zip(filter_table.columns, filter_table.rows[0], strict=True))
    assert (counts["real"], counts["trivial"], counts["knew_but_failed"]) == (1, 1, 1)
    markdown = table_markdown(table)
    assert "| md_flat | memsuite | 1.00 | 0.50 | 1.00 | 1.00 | 0.00 | 0.00 | 0.58 |" in markdown


def test_cost_splits_answer_and_internal_models_and_flags_unpriced(tmp_path):
    path = _meme_answer_run(
        tmp_path / "two",
        answer="gpt-4.1-mini",
        internal="gpt-4o-mini",
        internal_config={"model": "gpt-4o-mini"},
    )
    usage = _table(build_report(load_runs([path])), "meme_usage")
    cost = dict(zip(usage.columns, usage.rows[0], strict=True))["cost_usd"]
    # Rows record 2,000 / 200 answer tokens at gpt-4.1-mini; the other 98,000 / 9,800 at gpt-4o-mini.
    expected = (2000 * 0.40 + 200 * 1.60 + 98_000 * 0.15 + 9_800 * 0.60) / 1e6
    assert cost == pytest.approx(expected)

    unpriced = _meme_answer_run(tmp_path / "unpriced", answer="my-model", internal="my-model")
    report = build_report(load_runs([unpriced]))
    usage = _table(report, "meme_usage")
    assert dict(zip(usage.columns, usage.rows[0], strict=True))["cost_usd"] is None
    assert any("my-model" in note and "--prices" in note for note in usage.notes)
    priced = build_report(load_runs([unpriced]), prices=PriceTable({"my-model": (1.0, 2.0)}))
    row = dict(zip(usage.columns, _table(priced, "meme_usage").rows[0], strict=True))
    assert row["cost_usd"] == pytest.approx(0.12)  # 0.1 + 0.02


def test_several_runs_get_a_run_column(meme_run, tmp_path):
    other = _meme_answer_run(tmp_path / "answers")
    report = build_report(load_runs([meme_run, other]))
    assert [s.title for s in report.sections] == ["MEME"]
    table = _table(report, "meme_main_rule")
    assert table.columns[0] == "run" and table.column("run") == ["answers", "paper"]
    assert _table(report, "meme_main_evidence").column("run")[0] == "meme_tiny"


# -- WMB-100K ------------------------------------------------------------------------------------------


def _wmb_row(qid: str, qtype: str, correct: bool | None, latency_ms: float, memories: list[str]) -> Row:
    verdict = {"correct": not memories} if qtype == "FalseMemory" else {"correct": correct}
    return Row(
        "bm25",
        "wmb",
        "daily_life",
        qid,
        "q",
        "gold",
        "\n".join(memories),
        verdicts={"rule": verdict},
        usage={"latency_ms": latency_ms, "search_calls": 1},
        metadata={"qtype": qtype, "memories": memories, "hits": [], "gold_turn_ids": []},
    )


#: S1: 1 of 2 correct; S2: 1 of 1; FM: one false positive, one clean. Latencies 100, 400 (-0.01),
#: 600 (-0.05), 50, 20 ms.
WMB_ROWS = [
    _wmb_row("daily_life.S1.001", "S1Situational", True, 100, ["user: wakes at 7:15"]),
    _wmb_row("daily_life.S1.002", "S1Situational", False, 400, ["user: likes tea"]),
    _wmb_row("daily_life.S2.001", "S2MultiMemory", True, 600, ["user: a", "user: b"]),
    _wmb_row("daily_life.FM.001", "FalseMemory", None, 50, ["user: something"]),
    _wmb_row("daily_life.FM.002", "FalseMemory", None, 20, []),
]


def test_wmb_tables_and_latency_plot(tmp_path):
    scores = {"judges": {"rule": wmb_scores(WMB_ROWS)}, "result_json": result_json(WMB_ROWS)}
    path = _write_run(tmp_path / "wmb", benchmark="wmb", rows=WMB_ROWS, scores=scores)
    report = build_report(load_runs([path]))
    results = dict(
        zip(
            _table(report, "wmb_results_rule").columns,
            _table(report, "wmb_results_rule").rows[0],
            strict=True,
        )
    )
    assert results["Part B (/100)"] == 50.0 and results["FM Penalty"] == 0.25
    assert results["Speed Penalty"] == pytest.approx(0.06)
    assert results["Score (/100)"] == pytest.approx(49.69) and results["Grade"] == "Failing"
    assert (results["p50 ms"], results["p95 ms"]) == (100, 600)
    assert results["Part B S1-S7"] == pytest.approx(200 / 3)
    fields = dict(
        zip(
            _table(report, "wmb_result_fields").columns,
            _table(report, "wmb_result_fields").rows[0],
            strict=True,
        )
    )
    assert (fields["part_b.correct"], fields["part_b.total"], fields["part_b.score"]) == (2, 3, 66.7)
    assert fields["total"] == 66.4 and fields["fm.false_positives"] == 1
    qtypes = dict(
        zip(_table(report, "wmb_qtypes_rule").columns, _table(report, "wmb_qtypes_rule").rows[0], strict=True)
    )
    assert (
        qtypes["S1Situational"] == 50.0 and qtypes["S2MultiMemory"] == 100.0 and qtypes["FalseMemory"] == 50.0
    )
    assert qtypes["S3CrossCategory"] is None
    files = write_report(report, tmp_path / "out")
    assert (tmp_path / "out" / "wmb_latency.png").stat().st_size > 1000
    markdown = files[0].read_text()
    assert "| bm25 | 50.0 | 0.25 | 0.06 | 49.7 | Failing | 100 | 600 | rule |" in markdown
    assert "No results yet" in markdown  # the README publishes no v2.1 numbers: said, not invented


def test_wmb_sweep_run_column_and_curves(tmp_path):
    scores = {"judges": {"rule": wmb_scores(WMB_ROWS)}, "result_json": result_json(WMB_ROWS)}
    paths = [_write_run(tmp_path / f"k-{k}", benchmark="wmb", rows=WMB_ROWS, scores=scores) for k in (1, 5)]
    sweep = Sweep("k", (1, 5), ("k-1", "k-5"))
    report = build_report(load_runs(paths, ["k-1", "k-5"]), sweep=sweep)
    table = _table(report, "wmb_results_rule")
    assert table.columns[:2] == ("k", "system") and table.column("k") == ["1", "5"]
    files = write_report(report, tmp_path / "out")
    assert tmp_path / "out" / "wmb_sweep_k.png" in files
    assert "| k-5 | wmb |" in files[0].read_text()  # the runs table keeps the variant folder names


# -- DynamicMem ----------------------------------------------------------------------------------------


def _dm_row(checkpoint: str, key: str, task: str, change: str, fields: list[float]) -> Row:
    return Row(
        "rag",
        "dynamicmem",
        "u1",
        f"{checkpoint}-{key}-{task}",
        "q",
        "gold",
        "ctx",
        answer="a",
        verdicts={"rule": {"score": sum(fields) / len(fields), "fields": [{"score": f} for f in fields]}},
        metadata={
            "checkpoint": checkpoint,
            "task": task,
            "change": change,
            "category": "habits",
            "prediction": "x",
        },
    )


DM_ROWS = [
    _dm_row("C1", "a", "state_completion", "new", [1.0, 0.5]),
    _dm_row("C1", "a", "personalized_service", "new", [0.9]),
    _dm_row("C2", "a", "state_completion", "updated", [0.8]),
    _dm_row("C2", "b", "state_completion", "retained", [0.4]),
]


@pytest.mark.parametrize("wrap", [False, True], ids=["summary", "by_judge"])
def test_dynamicmem_checkpoint_curves_and_retention(tmp_path, wrap):
    summary = dynamicmem_summarize(DM_ROWS)
    scores = {"by_judge": {"rule": summary}} if wrap else summary
    path = _write_run(tmp_path / "dm", benchmark="dynamicmem", rows=DM_ROWS, scores=scores)
    report = build_report(load_runs([path]))
    table = _table(report, "dynamicmem_checkpoints")
    assert table.columns == ("system", "metric", "C1", "C2", "mean")
    by_metric = {r[1]: r for r in table.rows}
    # C1: fields 1.0 and 0.5 -> 0.75; C2: 0.8 and 0.4 -> 0.6; mean over checkpoints 0.675.
    assert by_metric["State Completion"][2:] == pytest.approx((0.75, 0.6, 0.675))
    assert by_metric["Personalized Service"][2:4] == (0.9, None)
    retention = {(r[1], r[2]): r[3:] for r in _table(report, "dynamicmem_retention").rows}
    assert retention[("retained", "State Completion")] == (None, 0.4)
    assert retention[("updated", "State Completion")] == (None, 0.8)
    assert retention[("new", "State Completion")] == (0.75, None)
    write_report(report, tmp_path / "out")
    assert (tmp_path / "out" / "dynamicmem_checkpoints.png").stat().st_size > 1000


def test_dynamicmem_protocol_layout_prefers_the_llm_judge(tmp_path):
    # The protocol's summary: the rule judge's at the top level, the LLM judge's under "llm_judge".
    rows = [
        Row(**{**r.to_dict(), "verdicts": {**r.verdicts, "llm": {"score": 1.0, "fields": [{"score": 1.0}]}}})
        for r in DM_ROWS
    ]
    scores = {**dynamicmem_summarize(rows, "rule"), "llm_judge": dynamicmem_summarize(rows, "llm")}
    path = _write_run(tmp_path / "dm", benchmark="dynamicmem", rows=rows, scores=scores)
    table = _table(build_report(load_runs([path])), "dynamicmem_checkpoints")
    assert table.title.endswith("judge: llm")
    assert {r[1]: r[2:4] for r in table.rows}["State Completion"] == (1.0, 1.0)


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


def test_unknown_benchmark_gets_generic_table_and_renderers_register_once(tmp_path):
    rows = [Row("bm25", "tiny", "u1", "q1", "q", "g", "c")]
    path = _write_run(
        tmp_path / "tiny", benchmark="tiny_bench", rows=rows, scores={"accuracy": 0.5, "by": {"x": 2}}
    )
    report = build_report(load_runs([path]))
    table = _table(report, "tiny_bench_scores")
    assert table.columns == ("system", "accuracy", "by.x") and table.rows == (("bm25", 0.5, 2),)
    with pytest.raises(ConfigError, match="registered twice"):
        register_renderer("meme")(lambda runs, options: None)
    assert register_renderer("meme")(render_meme) is render_meme


def test_load_runs_errors_name_the_folder(tmp_path):
    with pytest.raises(ConfigError, match="not a memsuite run folder"):
        load_runs([tmp_path / "nothing"])
    RunFolder(tmp_path / "unfinished").write_header({"status": "started", "config": {"benchmark": "meme"}})
    with pytest.raises(ConfigError, match=r"unfinished has no summary\.json"):
        load_runs([tmp_path / "unfinished"])
    with pytest.raises(ConfigError, match="at least one run"):
        build_report([])


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
    table = _table(report, "meme_failure_stages")
    rows = {r[1]: dict(zip(table.columns, r, strict=True)) for r in table.rows}
    # bm25 keeps every session verbatim: the locker code the user asked to forget is still in memory.
    assert rows["Del"]["maintained"] == 1.0 and rows["Del"]["answer_judge"] == "none"
    assert rows["ER"]["none"] == 1.0 and rows["Cas"]["none"] == 1.0
    files = {f.name for f in write_report(report, tmp_path / "out")}
    assert {"meme_failure_stages.csv", "meme_failure_stages.png"} <= files


def test_dynamicmem_failure_stage_table_and_figure(tmp_path):
    # Three habits keys at C1: the evidence retrieved and the answer right, retrieved but answered wrong,
    # and the evidence stored but not retrieved; the probe (raw-event memory) holds log_1 and log_2.
    def row(key: str, retrieved: list[str], correct: bool) -> Row:
        return Row(
            "rag",
            "dynamicmem",
            "u1",
            f"C1/{key}",
            "q",
            {"location": "Weir meadow"},
            "ctx",
            answer="a",
            verdicts={"rule": {"correct": correct, "score": float(correct), "fields": []}},
            metadata={
                "checkpoint": "C1",
                "task": "state_completion",
                "category": "habits",
                "change": "new",
                "prediction": "x",
                "value_evidence_ids": ["log_1"] if key != "habits_state:c" else ["log_2"],
                "retrieved_app_log_ids": retrieved,
            },
        )

    rows = [
        row("habits_state:a", ["log_1"], True),
        row("habits_state:b", ["log_1", "log_9"], False),
        row("habits_state:c", ["log_9"], False),
    ]
    path = _write_run(tmp_path / "dm", benchmark="dynamicmem", rows=rows, scores=dynamicmem_summarize(rows))
    work = path / "work" / "rag" / "u1"
    work.mkdir(parents=True)
    snapshot = '{"app_log_id": "log_1"}\n\n{"app_log_id": "log_2"}'
    with gzip.open(work / SNAPSHOT_FILE, "wt", encoding="utf-8") as fh:
        fh.write(json.dumps(probe_record(0, "C1", snapshot)) + "\n")
    report = build_report(load_runs([path]))
    table = _table(report, "dynamicmem_failure_stages")
    assert table.columns == ("system", "category", "n", *STAGE_OUTCOMES, "answer_judge")
    (record,) = [dict(zip(table.columns, r, strict=True)) for r in table.rows]
    assert record["n"] == 3 and record["answer_judge"] == "rule"
    assert record["encoded"] == record["maintained"] == 0.0
    assert record["retrieved"] == record["answered"] == record["none"] == pytest.approx(1 / 3)
    files = {f.name for f in write_report(report, tmp_path / "out")}
    assert {"dynamicmem_failure_stages.csv", "dynamicmem_failure_stages.png"} <= files
