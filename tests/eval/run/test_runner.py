"""The runner on a small test benchmark with the real bm25 system: rows, resume, failures, header."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from memsuite.eval.definition import BenchmarkDefinition
from memsuite.eval.protocol import Row, RunContext, Scores
from memsuite.eval.registry import benchmark, get_benchmark
from memsuite.eval.run.config import config_from_dict, load_config
from memsuite.eval.run.folder import load_run
from memsuite.eval.run.runner import run, stale_reasons
from memsuite.memory_systems.base import MemorySystem
from memsuite.memory_systems.errors import ConfigError

FACTS = {
    "u1": ["The boiler code is 4471.", "The cat is called Pelmet."],
    "u2": ["The ferry leaves at noon.", "Our router is named Brindlewatch."],
    "u3": ["The garden gate is painted teal.", "Odrin lives in Varnhollow."],
}
QUESTIONS = {
    "u1": ("boiler code", "4471"),
    "u2": ("router name", "Brindlewatch"),
    "u3": ("where Odrin lives", "Varnhollow"),
}


class TinyBenchmark:
    """Store two facts per unit, ask one question, judge by substring."""

    def __init__(self, fail_on: str | None = None, calls: list | None = None) -> None:
        self.fail_on = fail_on
        self.calls = calls if calls is not None else []

    def units(self) -> list[str]:
        return list(FACTS)

    def run_unit(self, system: MemorySystem, unit_id: str, ctx: RunContext) -> Iterator[Row]:
        self.calls.append(unit_id)
        system.store(FACTS[unit_id], namespace=unit_id)
        question, gold = QUESTIONS[unit_id]
        context = system.retrieve(question, k=1, namespace=unit_id).context
        yield Row(
            system.name,
            ctx.benchmark,
            unit_id,
            "q1",
            question,
            gold,
            context,
            verdicts={"rule": {"correct": gold in context}},
        )
        if unit_id == self.fail_on:
            raise RuntimeError("injected failure")

    def summarize(self, rows: list[Row]) -> Scores:
        return Scores(
            extras={"accuracy": sum(r.verdicts["rule"]["correct"] for r in rows) / len(rows) if rows else 0.0}
        )


CALLS: list[str] = []


def _tiny(fail_on: str | None = None) -> TinyBenchmark:
    return TinyBenchmark(fail_on, CALLS)


@benchmark("tiny_test")
def tiny_test() -> BenchmarkDefinition:
    """a test benchmark"""
    return BenchmarkDefinition(protocol=_tiny)


def _config(**extra):
    return config_from_dict({"benchmark": "tiny_test", "systems": ["bm25"], "name": "t", **extra})


def test_rows_summary_and_header(tmp_path):
    folder = run(_config(), out_dir=tmp_path / "run", show_progress=False)
    rows = folder.rows()
    assert [(r.system, r.unit_id) for r in rows] == [("bm25", "u1"), ("bm25", "u2"), ("bm25", "u3")]
    assert all(r.verdicts["rule"]["correct"] for r in rows)
    header = load_run(tmp_path / "run").header
    assert header["status"] == "complete" and header["config"]["benchmark"] == "tiny_test"
    assert header["packages"]["bm25s"] and header["started_at"].endswith("+00:00")
    assert header["embedder"]["model"] == "all-MiniLM-L6-v2" and header["answer_llm"] is None
    summary = folder.summary
    assert summary["bm25"]["scores"] == {"accuracy": 1.0}
    assert summary["bm25"]["units"]["done"] == 3 and summary["bm25"]["wall_s"] > 0


def test_failed_unit_is_recorded_and_retried_on_resume(tmp_path):
    CALLS.clear()
    config = _config(benchmark_options={"fail_on": "u2"})
    folder = run(config, out_dir=tmp_path / "run", show_progress=False)
    assert folder.header["status"] == "complete_with_errors"
    units = {u.unit_id: u for u in folder.units()}
    assert units["u2"].status == "error" and "injected failure" in units["u2"].error
    assert sorted(r.unit_id for r in folder.rows()) == ["u1", "u3"]  # no half unit written
    CALLS.clear()
    run(config, out_dir=tmp_path / "run", show_progress=False)
    assert CALLS == ["u2"]  # only the failed unit runs again
    assert sorted(r.unit_id for r in folder.rows()) == ["u1", "u3"]


def test_a_stalled_system_fails_its_units_by_name_and_the_run_goes_on(tmp_path, silent_cognee):
    """A library whose worker never answers (cognee's adapter over a stand-in worker that stalls):
    each of its units fails within the deadline, naming the system, the deadline and the verb; the
    other system's units finish; the same command reruns only the failed units."""
    systems = ["bm25", {"name": "cognee", "args": {"call_timeout_s": 1}}]
    config = _config(systems=systems)
    folder = run(config, out_dir=tmp_path / "run", show_progress=False)
    assert folder.header["status"] == "complete_with_errors"
    units = {(u.system, u.unit_id): u for u in folder.units()}
    assert [units["bm25", u].status for u in FACTS] == ["done"] * 3
    for unit in FACTS:
        assert units["cognee", unit].status == "error"
        assert "system 'cognee' gave no answer within 1 s in store" in units["cognee", unit].error
    assert folder.summary["cognee"]["units"] == {"done": 0, "error": 3}
    CALLS.clear()
    run(config, out_dir=tmp_path / "run", show_progress=False)
    assert list(FACTS) == CALLS  # only cognee's failed units run again


def test_resume_skips_done_units_and_refuses_other_config(tmp_path):
    run(_config(), out_dir=tmp_path / "run", show_progress=False)
    CALLS.clear()
    folder = run(_config(), out_dir=tmp_path / "run", show_progress=False)
    assert CALLS == [] and len(folder.rows()) == 3
    with pytest.raises(ConfigError, match="different config"):
        run(_config(k=3), out_dir=tmp_path / "run", show_progress=False)
    folder = run(_config(k=3), out_dir=tmp_path / "run", show_progress=False, restart=True)
    assert len(folder.rows()) == 3


def test_resume_keeps_the_first_header_and_lists_each_session(tmp_path):
    first = run(_config(), out_dir=tmp_path / "run", show_progress=False).header
    assert "resumes" not in first
    # Pretend older code made the first rows: a resume must not relabel them with today's revision.
    path = tmp_path / "run" / "run.json"
    path.write_text(json.dumps({**first, "git_revision": "0ld", "memsuite_version": "0.0.1"}))
    run(_config(), out_dir=tmp_path / "run", show_progress=False)
    header = run(_config(), out_dir=tmp_path / "run", show_progress=False).header
    assert (header["git_revision"], header["memsuite_version"]) == ("0ld", "0.0.1")
    assert header["started_at"] == first["started_at"] and header["status"] == "complete"
    assert [r["git_revision"] for r in header["resumes"]] == [first["git_revision"]] * 2
    assert all(r["started_at"] and r["already_done"] == 3 for r in header["resumes"])
    assert "config_changes" not in header["resumes"][0]


def test_a_config_change_is_refused_naming_keys_unless_allowed_then_recorded(tmp_path, capsys):
    from memsuite.eval.cli.main import main

    run(_config(), out_dir=tmp_path / "run", show_progress=False)
    with pytest.raises(ConfigError, match=r"k: 5 -> 3; seed: 0 -> 7.*--allow-config-change"):
        run(_config(k=3, seed=7), out_dir=tmp_path / "run", show_progress=False)
    config = tmp_path / "t.yaml"
    config.write_text("benchmark: tiny_test\nname: t\nsystems: [bm25]\nk: 3\n")
    argv = ["run", str(config), "--out", str(tmp_path / "run"), "--quiet", "--no-cache"]
    assert main(argv) == 2
    assert "k: 5 -> 3" in capsys.readouterr().err
    assert load_run(tmp_path / "run").header.get("resumes") is None  # refused before any write
    CALLS.clear()
    assert main([*argv, "--allow-config-change"]) == 0
    header = load_run(tmp_path / "run").header
    assert CALLS == [] and header["config"]["k"] == 3
    assert header["resumes"][-1]["config_changes"] == [{"key": "k", "old": 5, "new": 3}]
    assert main(argv) == 0  # the next resume compares with the config now recorded


def test_stale_reasons_name_what_changed_since_a_folders_rows(tmp_path):
    out = tmp_path / "run"
    assert stale_reasons(_config(), out) == []  # no run yet
    run(_config(), out_dir=out, show_progress=False)
    assert stale_reasons(_config(), out) == []
    assert stale_reasons(_config(k=3, seed=7), out) == ["config k: 5 -> 3", "config seed: 0 -> 7"]
    header = json.loads((out / "run.json").read_text())
    header["code"]["systems"]["bm25"]["source_sha256"] = "0" * 64
    (out / "run.json").write_text(json.dumps(header))
    (reason,) = stale_reasons(_config(), out)
    assert reason.startswith("system 'bm25' (") and reason.endswith("module source changed")


def test_restart_removes_every_unit_file(tmp_path):
    folder = run(_config(benchmark_options={"fail_on": "u2"}), out_dir=tmp_path / "run", show_progress=False)
    assert folder.unit_path("bm25", "u2").exists()
    CALLS.clear()
    folder = run(_config(), out_dir=tmp_path / "run", show_progress=False, restart=True)
    assert CALLS == ["u1", "u2", "u3"] and "resumes" not in folder.header
    assert [(u.unit_id, u.status, u.error) for u in folder.units()] == [(u, "done", None) for u in FACTS]
    assert sorted(p.name for p in (tmp_path / "run" / "units" / "bm25").iterdir()) == [
        "u1.jsonl",
        "u2.jsonl",
        "u3.jsonl",
    ]


def test_a_lost_unit_file_reruns_that_unit_without_duplicating_rows(tmp_path):
    folder = run(_config(), out_dir=tmp_path / "run", show_progress=False)
    (tmp_path / "run" / "units.jsonl").write_text("")  # the all-units file is a copy: nothing reruns
    CALLS.clear()
    run(_config(), out_dir=tmp_path / "run", show_progress=False)
    assert CALLS == []
    folder.unit_path("bm25", "u2").unlink()  # as if killed before u2's file was renamed into place
    run(_config(), out_dir=tmp_path / "run", show_progress=False)
    assert CALLS == ["u2"]
    assert [(r.unit_id, r.question_id) for r in folder.rows()] == [("u1", "q1"), ("u2", "q1"), ("u3", "q1")]
    assert len((tmp_path / "run" / "rows.jsonl").read_text().splitlines()) == 3


def test_config_errors_name_key_file_and_nearest(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("benchmark: tiny_test\nsystems: [bm25]\nanswer_lm: local\n")
    with pytest.raises(ConfigError, match=r"c.yaml: unknown key 'answer_lm'; did you mean 'answer_llm'"):
        load_config(path)
    path.write_text("benchmark: tiny_test\nsystems: [bm25]\n")
    config = load_config(path, ["k=9", "benchmark_options.fail_on=u1"])
    assert config.k == 9 and config.benchmark_options == {"fail_on": "u1"} and config.name == "c"
    with pytest.raises(ConfigError, match=r"unknown benchmark 'memee'.*did you mean 'meme'"):
        get_benchmark("memee")
    with pytest.raises(ConfigError, match="share a label"):
        config_from_dict({"benchmark": "tiny_test", "systems": ["bm25", "bm25"]})


def _row_key(row: Row) -> tuple:
    return (row.system, row.unit_id, row.question_id, row.context, json.dumps(row.verdicts, sort_keys=True))


def test_four_workers_give_the_same_rows_as_one(tmp_path):
    one = run(_config(systems=["bm25", "dense"]), out_dir=tmp_path / "one", show_progress=False)
    four = run(_config(systems=["bm25", "dense"]), out_dir=tmp_path / "four", show_progress=False, workers=4)
    assert sorted(map(_row_key, one.rows())) == sorted(map(_row_key, four.rows()))
    assert len(four.rows()) == 6 and four.header["status"] == "complete"


def test_four_workers_on_generated_meme_episodes_give_the_same_rows(tmp_path):
    config = config_from_dict(
        {
            "benchmark": "meme",
            "systems": ["bm25", "dense"],
            "k": 3,
            "benchmark_options": {"episodes": 3, "filler": "none", "seed": 5, "snapshots": False},
        }
    )
    one = run(config, out_dir=tmp_path / "one", show_progress=False)
    four = run(config, out_dir=tmp_path / "four", show_progress=False, workers=4)
    assert len(one.rows()) > 30 and four.header["status"] == "complete"
    assert sorted(map(_row_key, one.rows())) == sorted(map(_row_key, four.rows()))


def test_workers_failing_midway_lose_no_rows_and_never_interleave(tmp_path):
    folder = run(
        _config(systems=["bm25", "dense"], benchmark_options={"fail_on": "u2"}),
        out_dir=tmp_path / "run",
        show_progress=False,
        workers=4,
    )
    units = folder.units()
    assert sorted((u.system, u.unit_id, u.status) for u in units) == [
        ("bm25", "u1", "done"),
        ("bm25", "u2", "error"),
        ("bm25", "u3", "done"),
        ("dense", "u1", "done"),
        ("dense", "u2", "error"),
        ("dense", "u3", "done"),
    ]
    # Every line of rows.jsonl is one whole row, and exactly the finished units' rows are there.
    lines = (tmp_path / "run" / "rows.jsonl").read_text().splitlines()
    assert all(json.loads(line)["schema_version"] == 1 for line in lines)
    assert sorted((r.system, r.unit_id) for r in folder.rows()) == sorted(
        (u.system, u.unit_id) for u in units if u.status == "done"
    )


def test_ray_executor_gives_the_same_rows(tmp_path):
    pytest.importorskip("ray", reason="the ray extra is not installed (pip install 'memsuite-bench[ray]')")
    # A built-in benchmark: Ray workers rebuild it from the config in their own processes.
    config = config_from_dict(
        {
            "benchmark": "meme",
            "systems": ["bm25"],
            "k": 2,
            "benchmark_options": {"episodes": 2, "filler": "none", "seed": 3, "snapshots": False},
        }
    )
    one = run(config, out_dir=tmp_path / "one", show_progress=False)
    on_ray = run(config, out_dir=tmp_path / "ray", show_progress=False, workers=2, executor="ray")
    assert len(one.rows()) > 10
    assert sorted(map(_row_key, one.rows())) == sorted(map(_row_key, on_ray.rows()))
    assert on_ray.header["status"] == "complete"
    with pytest.raises(ConfigError, match="unknown executor"):
        run(_config(), out_dir=tmp_path / "x", show_progress=False, executor="dask")


def test_header_masks_literal_api_keys():
    from memsuite.eval.run.folder import header_config

    masked = header_config(
        {"answer_llm": {"model": "m", "api_key": "sk-secret"}, "systems": [{"name": "bm25"}]}
    )
    assert masked == {"answer_llm": {"model": "m", "api_key": "***"}, "systems": [{"name": "bm25"}]}


@pytest.mark.parametrize("system", ["llm_extraction", "md_flat", "temporal_kg"])
def test_a_systems_own_llm_calls_count_in_its_unit_usage(tmp_path, replay_llm, system):
    """Ingestion calls of an LLM paradigm land in the unit's usage (and so in every cost table)."""
    llm = replay_llm()  # scripted defaults: the user's sentences become facts / lines
    config = config_from_dict(
        {
            "benchmark": "meme",
            "systems": [system],
            "k": 2,
            "internal_llm": {"model": "replay", "base_url": llm.server.base_url, "api_key_env": None},
            "benchmark_options": {"episodes": 1, "filler": "none", "seed": 1, "snapshots": False},
        }
    )
    folder = run(config, out_dir=tmp_path / "run", cache_dir=None, show_progress=False)
    (unit,) = folder.units()
    sent = len(llm.server.endpoint.requests)
    assert unit.status == "done" and sent > 0
    # No answer LLM: every request but the run's one preflight request was the system's own.
    assert unit.usage["llm_calls"] == sent - 1
    assert unit.usage["prompt_tokens"] > 0
