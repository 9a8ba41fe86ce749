"""Ablations: a base config plus one swept key -> one resumable run per value and one combined report."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from memsuite.eval.analysis.compare import base_variant
from memsuite.eval.cli.main import main
from memsuite.eval.run.folder import load_run
from memsuite.eval.study.ablation import load_ablation, run_ablation, variant_configs
from memsuite.memory_systems.errors import ConfigError

LOG = "FATAL qv-7 quorum lost at shard brindle-3"


def _session(i: int, *turns: str) -> dict:
    return {
        "session_id": f"s{i}",
        "type": "evidence",
        "timestamp": f"2023/03/0{i + 1} (Wed) 09:00",
        "conversation": [{"role": ("user", "assistant")[j % 2], "content": t} for j, t in enumerate(turns)],
    }


EPISODE = {
    "episode_id": "pl_001",
    "domain": "personal_life",
    "sessions": [
        _session(0, f"The staging crash printed: {LOG}", "Noted."),
        _session(1, "My locker code is 8812.", "Got it."),
        _session(2, "The gym moved to Thursdays.", "Noted."),
    ],
    "before_questions": {
        "timestamp": "2023/03/02 (Thu) 10:00",
        "position_after_session": 1,
        "questions": [
            {
                "task_type": "ER",
                "entity": ["log"],
                "question": "What did the staging crash print?",
                "gold_answer": LOG,
            }
        ],
    },
    "after_questions": {
        "timestamp": "2023/03/04 (Sat) 10:00",
        "position_after_session": 2,
        "questions": [
            {
                "task_type": "ER",
                "entity": ["log"],
                "question": "What did the staging crash print?",
                "gold_answer": LOG,
            }
        ],
    },
}


@pytest.fixture
def ablation_file(tmp_path):
    """A k sweep over a bm25-only, retrieval-only MEME config on one hand-made episode."""
    data = tmp_path / "episodes.json"
    data.write_text(json.dumps([EPISODE]))
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "base.yaml").write_text(
        f"benchmark: meme\nname: base\nsystems: [bm25, dense]\nk: 5\nbenchmark_options: {{data: {data}}}\n"
    )
    path = tmp_path / "configs" / "topk.yaml"
    path.write_text("name: topk\nbase: base.yaml\nset: {systems: [bm25]}\nsweep: {key: k, values: [1, 10]}\n")
    return path


def test_two_values_two_runs_one_combined_table(ablation_file, tmp_path):
    ablation = load_ablation(ablation_file)
    assert ablation.labels == ("k-1", "k-10") and ablation.base == ablation_file.parent / "base.yaml"
    result = run_ablation(ablation, out_dir=tmp_path / "runs" / "topk", show_progress=False)
    assert result.runs == (tmp_path / "runs" / "topk" / "k-1", tmp_path / "runs" / "topk" / "k-10")
    headers = [load_run(folder).header for folder in result.runs]
    assert [h["config"]["k"] for h in headers] == [1, 10]
    assert [h["config"]["name"] for h in headers] == ["topk-k-1", "topk-k-10"]
    assert all(h["status"] == "complete" and h["config"]["systems"][0]["name"] == "bm25" for h in headers)
    assert result.report_dir == tmp_path / "runs" / "topk" / "report" and not result.incomplete

    table = list(csv.DictReader(io.StringIO((result.report_dir / "meme_main_evidence.csv").read_text())))
    assert [(r["k"], r["system"], r["from"]) for r in table] == [
        ("1", "bm25", "memsuite"),
        ("10", "bm25", "memsuite"),
        ("paper", "BM25", "paper"),
    ]
    # Three sessions, one chunk each: the log's chunk ranks first for its own question at any k.
    assert table[0]["ER"] == table[1]["ER"] == "1"
    assert (result.report_dir / "meme_sweep_k.png").stat().st_size > 1000
    markdown = (result.report_dir / "report.md").read_text()
    assert markdown.startswith("# ablation topk: k over k-1, k-10")
    assert "memsuite ablate" in markdown
    # The base config's k = 5 is not swept: each variant is compared with the first, question by question.
    assert "## Paired comparison against k = 1 (the first variant" in markdown
    paired_csv = (result.report_dir / "compare_k-10_vs_k-1_bm25.csv").read_text()
    paired = list(csv.DictReader(io.StringIO(paired_csv)))
    assert paired[-1]["cell"] == "overall" and paired[-1]["reading"] == "too few"  # one episode

    # Resumable: a second call runs no unit again and rewrites the same report.
    units_before = (result.runs[0] / "units.jsonl").read_text()
    again = run_ablation(ablation, out_dir=tmp_path / "runs" / "topk", show_progress=False)
    assert (again.runs[0] / "units.jsonl").read_text() == units_before
    run_ablation(ablation, out_dir=tmp_path / "runs" / "topk", report_dir=tmp_path / "r2", report_only=True)
    assert (tmp_path / "r2" / "meme_main_evidence.csv").exists()


def test_the_base_variant_is_the_one_holding_the_base_value():
    assert base_variant((1, 5, 10), 5) == 1
    assert base_variant((1, 10), 5) is None


def test_variant_precedence_and_labels(ablation_file):
    ablation = load_ablation(ablation_file)
    variants = variant_configs(ablation, ["k=3", "benchmark_options.snapshots=false"])
    # The swept key wins over --set; other overrides apply to every variant.
    assert [(label, c.k, c.benchmark_options["snapshots"]) for label, c in variants] == [
        ("k-1", 1, False),
        ("k-10", 10, False),
    ]


def test_ablation_file_errors(tmp_path, ablation_file):
    bad = tmp_path / "configs" / "bad.yaml"
    bad.write_text("base: base.yaml\nsweep: {key: k, valuse: [1]}\n")
    with pytest.raises(ConfigError, match="unknown key 'valuse'; did you mean 'values'"):
        load_ablation(bad)
    bad.write_text("base: base.yaml\nsweep: {key: k, values: [1, 2], labels: [a]}\n")
    with pytest.raises(ConfigError, match="one label per value"):
        load_ablation(bad)
    bad.write_text("base: base.yaml\nsweeps: {key: k, values: [1]}\n")
    with pytest.raises(ConfigError, match="did you mean 'sweep'"):
        load_ablation(bad)
    bad.write_text("base: base.yaml\nsweep: {key: top_k, values: [1]}\n")
    with pytest.raises(ConfigError, match=r"variant top_k-1.*unknown key 'top_k'"):
        variant_configs(load_ablation(bad))
    bad.write_text("base: missing.yaml\nsweep: {key: k, values: [1]}\n")
    with pytest.raises(ConfigError, match="base config not found"):
        variant_configs(load_ablation(bad))


def test_llm_values_get_model_labels(tmp_path):
    path = tmp_path / "swap.yaml"
    path.write_text("base: b.yaml\nsweep: {key: answer_llm, values: [local, {model: gpt-4.1-mini}]}\n")
    assert load_ablation(path).labels == ("answer_llm-local", "answer_llm-gpt-4.1-mini")


def test_cli_ablate(ablation_file, tmp_path, capsys):
    out = tmp_path / "cli_runs"
    code = main(["ablate", str(ablation_file), "--out", str(out), "--quiet", "--no-cache", "--no-plots"])
    assert code == 0
    printed = capsys.readouterr().out
    assert f"k-1 (k = 1): {out / 'k-1'}" in printed and "k = k-1" not in printed
    assert str(out / "report" / "report.md") in printed
    assert (out / "k-10" / "summary.json").exists() and not (out / "report" / "meme_sweep_k.png").exists()


def test_resuming_after_a_change_of_code_or_config_needs_its_flag(ablation_file, tmp_path, capsys):
    out = tmp_path / "runs"
    argv = ["ablate", str(ablation_file), "--out", str(out), "--quiet", "--no-cache", "--no-plots"]
    assert main(argv) == 0
    # The rows of k-10 were made by other code: its header records another fingerprint of memsuite.
    header_path = out / "k-10" / "run.json"
    header = json.loads(header_path.read_text())
    header["code"]["memsuite_sha256"] = "0" * 64
    header_path.write_text(json.dumps(header))
    units = (out / "k-10" / "units.jsonl").read_text()
    capsys.readouterr()

    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"{out / 'k-10'} holds rows made by other code (memsuite's own code changed)" in err
    assert "--allow-code-change" in err and json.loads(header_path.read_text()) == header
    assert main([*argv, "--allow-code-change"]) == 0
    resumed = load_run(out / "k-10").header
    assert resumed["resumes"][-1]["code_changes"] == ["memsuite's own code changed"]
    assert (out / "k-10" / "units.jsonl").read_text() == units  # resumed, not recomputed
    assert "code_changes" not in (load_run(out / "k-1").header.get("resumes") or [{}])[-1]

    # A fixed override changed under both variants: refused naming the key, resumed with the flag.
    assert main([*argv, "--set", "seed=7"]) == 2
    assert "seed: 0 -> 7" in capsys.readouterr().err
    assert main([*argv, "--set", "seed=7", "--allow-config-change"]) == 0
    for label in ("k-1", "k-10"):
        changes = load_run(out / label).header["resumes"][-1]["config_changes"]
        assert {"key": "seed", "old": 0, "new": 7} in changes


def test_the_executor_reaches_every_variant(ablation_file, tmp_path):
    with pytest.raises(ConfigError, match="unknown executor 'dask'"):
        run_ablation(load_ablation(ablation_file), out_dir=tmp_path / "runs", executor="dask")
    assert not (tmp_path / "runs" / "k-1" / "run.json").exists()


CONFIGS = Path(__file__).resolve().parents[3] / "configs"


@pytest.mark.parametrize("path", sorted(CONFIGS.rglob("*.yaml")), ids=lambda p: str(p.relative_to(CONFIGS)))
def test_every_shipped_config_validates(path, fetched_catalogue):
    """Each file in configs/ is a valid run config or a valid ablation whose variants all validate."""
    from memsuite.eval.run.config import load_config
    from memsuite.memory_systems.registry import system_names

    text = path.read_text(encoding="utf-8")
    if "sweep:" in text:
        ablation = load_ablation(path)
        configs = [config for _, config in variant_configs(ablation)]
        with pytest.raises(ConfigError, match="memsuite ablate"):
            load_config(path)
    else:
        configs = [load_config(path)]
    for config in configs:
        unknown = {s.name for s in config.systems} - set(system_names())
        assert not unknown, f"{path.name} names unregistered systems {unknown}"


def test_context_budget_sweep_plots_each_systems_rate_against_its_context_tokens(ablation_file, tmp_path):
    from memsuite.eval.report.html.charts import chart_spec
    from memsuite.eval.run.folder import load_runs
    from memsuite.memory_systems.tokens import count_tokens

    path = ablation_file.parent / "budget.yaml"
    path.write_text(
        "name: budget\nbase: base.yaml\nset: {k: null}\nsweep: {key: context_tokens, values: [12, 200]}\n"
    )
    result = run_ablation(load_ablation(path), out_dir=tmp_path / "runs", show_progress=False)
    runs = load_runs(list(result.runs), ["12", "200"])
    for run, budget in zip(runs, (12, 200), strict=True):
        assert run.header["retrieval"]["context_tokens"] == budget
        for system in ("bm25", "dense"):
            rows = run.rows(system)
            recounted = [count_tokens(row.context) for row in rows]
            assert max(recounted) <= budget
            assert [row.metadata["context_tokens"] for row in rows] == recounted
    usage = csv.DictReader(io.StringIO((result.report_dir / "meme_usage.csv").read_text()))
    means = {(r["context_tokens"], r["system"]): float(r["context tokens mean"]) for r in usage}
    assert means[("12", "bm25")] <= 12 < means[("200", "bm25")]
    listed = csv.DictReader(io.StringIO((result.report_dir / "runs.csv").read_text()))
    assert [r["context_tokens"] for r in listed] == ["12", "200"]  # each run's budget in the runs table
    assert (result.report_dir / "meme_rate_against_context.png").stat().st_size > 2000
    markdown = (result.report_dir / "report.md").read_text()
    assert "against context tokens handed over per question" in markdown
    # The page draws the same points: x the mean context tokens, y the rate with its interval.
    from memsuite.eval.report.document import build_report
    from memsuite.eval.report.model import Sweep

    report = build_report(runs, sweep=Sweep("context_tokens", (12, 200), ("12", "200")))
    (figure,) = [f for s in report.sections for f in s.figures if f.name == "meme_rate_against_context"]
    spec = chart_spec(figure)
    points = {s["name"]: s["points"] for s in spec["series"]}
    assert [p["label"] for p in points["bm25"]] == ["12", "200"]
    assert [p["x"] for p in points["bm25"]] == [means[("12", "bm25")], means[("200", "bm25")]]
    assert all("lo" in p and "hi" in p and p["lo"] <= p["y"] <= p["hi"] for p in points["bm25"])


@pytest.mark.parametrize(
    ("sweep", "field"),
    [
        ("set: {systems: [bm25, dense, bm25]}\nsweep: {key: context_tokens, values: [128, 256]}", "systems"),
        ("sweep: {key: context_tokens, values: [128, 256, 128]}", "sweep.values"),
        ("sweep: {key: context_tokens, values: [128, 256, 128], labels: [a, b, c]}", "sweep.values"),
        ("sweep: {key: context_tokens, values: [128, 0]}", "context_tokens"),
    ],
    ids=["system twice", "budget twice", "budget twice, labelled", "budget not positive"],
)
def test_a_sweep_naming_a_system_or_budget_twice_is_refused_before_any_work(
    ablation_file, tmp_path, capsys, sweep, field
):
    path = ablation_file.parent / "bad.yaml"
    path.write_text(f"name: bad\nbase: base.yaml\n{sweep}\n")
    out = tmp_path / "bad_runs"
    assert main(["ablate", str(path), "--out", str(out), "--quiet", "--no-cache", "--no-plots"]) == 2
    error = capsys.readouterr().err
    assert error.startswith("memsuite: error:") and f"{field}:" in error
    assert not out.exists()  # refused before any variant ran
