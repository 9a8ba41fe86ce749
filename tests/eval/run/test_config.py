"""The run config: schema, key-path errors, the registry checks done before anything runs, shipped configs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

import memsuite.memory_systems.llm_server
from memsuite.eval.cli import main as cli
from memsuite.eval.run.config import (
    RunConfig,
    config_from_dict,
    configs_dir,
    find_config,
    load_config,
    parse_override,
    with_systems,
)
from memsuite.eval.run.schema import SystemSpec
from memsuite.eval.run.validate import known_judges
from memsuite.eval.study.ablation import load_ablation, variant_configs
from memsuite.memory_systems.errors import ConfigError


def shipped_configs(folder: str = "") -> list[str]:
    """Names of the shipped configs (in ``folder``), sorted."""
    return sorted(p.stem for p in (configs_dir() / folder).glob("*.yaml"))


REPO_CONFIGS = Path(__file__).resolve().parents[3] / "configs"
BASE = {"benchmark": "meme", "systems": ["bm25"], "benchmark_options": {"episodes": 1}}


@pytest.fixture
def nothing_starts(monkeypatch):
    """Fail the test if a run gets as far as starting an LLM server or building a benchmark."""

    def refuse(*args, **kwargs):
        raise AssertionError("work started before the config was refused")

    monkeypatch.setattr(memsuite.memory_systems.llm_server, "serve_local", refuse)
    monkeypatch.setattr("memsuite.eval.run.runner.get_benchmark", refuse)  # the runner's first step


def _refused(tmp_path, capsys, data, *flags) -> str:
    """Run ``memsuite run`` on ``data``; assert exit 2 and no run folder; return the message."""
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump({"answer_llm": "local", **data}))
    out = tmp_path / "run"
    assert cli.main(["run", str(path), "--out", str(out), "--quiet", *flags]) == 2
    assert not out.exists()
    err = capsys.readouterr().err
    assert err.startswith("memsuite: error: ") and err.count("\n") == 1  # one line
    return err


@pytest.mark.parametrize(
    ("change", "flags", "expected"),
    [
        ({"answer_lm": "local"}, (), r"c.yaml: unknown key 'answer_lm'; did you mean 'answer_llm'\?"),
        (
            {"benchmark": "memee"},
            (),
            r"c.yaml: benchmark: unknown benchmark 'memee' \(did you mean 'meme'\?\)",
        ),
        (
            {"benchmark_options": {"episods": 2}},
            (),
            r"benchmark_options.episods: unknown option 'episods'; did you mean 'episodes'\?",
        ),
        (
            {"benchmark_options": {"episodes": "two"}},
            (),
            r"benchmark_options.episodes: .*valid integer.*'two'",
        ),
        (
            {"systems": ["bm25", "bm52"]},
            (),
            r"systems\[1\].name: unknown memory system 'bm52' \(did you mean 'bm25'\?\)",
        ),
        (
            {"systems": ["bm25", {"name": "dense", "args": {"top_kk": 3}}]},
            (),
            r"systems\[1\].args.top_kk: unknown argument 'top_kk'; did you mean 'top_k'\?",
        ),
        (
            {"systems": [{"name": "dense", "args": {"top_k": "five"}}]},
            (),
            r"systems\[0\].args.top_k: .*valid integer.*'five'",
        ),
        (
            {"systems": [{"name": "dense", "args": {"embedder": "x"}}]},
            (),
            r"systems\[0\].args.embedder: a shared resource the runner passes",
        ),
        (
            {"systems": [{"name": "dense", "lable": "d"}]},
            (),
            r"systems\[0\].lable: unknown key 'lable'; did you mean 'label'",
        ),
        (
            {"judges": ["rulee", "lm"]},
            (),
            r"judges\[0\]: unknown judge 'rulee' of benchmark 'meme'; did you mean 'rule'\? "
            r"\(valid: evidence, llm, rule\)",
        ),
        (
            {"answer_llm": {"model": "m", "temprature": 0.2}},
            (),
            r"answer_llm.temprature: unknown key 'temprature'; did you mean 'temperature'\?",
        ),
        ({"judge_llm": "gpt-4o"}, (), r"judge_llm: LLM spec 'gpt-4o': use 'local'"),
        (
            {"internal_llm": {"model": "local", "base_url": "http://x/v1"}},
            (),
            r"internal_llm.base_url: set by the",
        ),
        ({"k": 0}, (), r"c.yaml: k: .*greater than or equal to 1 \(got 0\)"),
        (
            {},
            ("--systems", "bm25,dnse"),
            r"--systems: systems\[1\].name: .*'dnse' \(did you mean 'dense'\?\)",
        ),
        (
            {},
            ("--set", "benchmark_options.filer=none"),
            r"error: --set \(over \S*c.yaml\): benchmark_options.filer: .*did you mean 'filler'\?",
        ),
        (
            {},
            ("--set", "top_k=3"),
            r"error: --set \(over \S*c.yaml\): unknown key 'top_k'; did you mean 'k'\?",
        ),
        (
            {"answer_llm": None, "judges": ["llm"]},
            (),
            r"c.yaml: judges\[0\]: .*'llm' calls an LLM: set judge_llm",
        ),
        (
            {"benchmark": "locomo", "answer_llm": None, "judges": ["evidence"], "benchmark_options": {}},
            ("--set", "judges=[llm]"),
            r"judges\[0\]: the locomo judge 'llm' calls an LLM",
        ),
        (
            {
                "benchmark": "locomo",
                "answer_llm": None,
                "judge_llm": "local",
                "judges": ["f1"],
                "benchmark_options": {},
            },
            (),
            r"judges\[0\]: the locomo judge 'f1' judges answers: set answer_llm",
        ),
        (
            # Asked for by name, an answer judge of a retrieval-only run would leave every row unjudged.
            {"answer_llm": None, "judges": ["evidence", "rule"]},
            (),
            r"judges\[1\]: the meme judge 'rule' judges answers: set answer_llm",
        ),
    ],
)
def test_a_mistake_exits_2_with_its_key_path_before_anything_starts(
    tmp_path, capsys, nothing_starts, fetched_catalogue, change, flags, expected
):
    err = _refused(tmp_path, capsys, {**BASE, **change}, *flags)
    assert re.search(expected, err), err


def test_an_ablation_refuses_a_bad_variant_before_running_any(tmp_path, capsys, nothing_starts):
    (tmp_path / "base.yaml").write_text(yaml.safe_dump(BASE))
    ablation = tmp_path / "sweep.yaml"
    ablation.write_text(
        yaml.safe_dump({"base": "base.yaml", "sweep": {"key": "judges", "values": ["evidence", "evidenc"]}})
    )
    assert cli.main(["ablate", str(ablation), "--out", str(tmp_path / "runs"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "variant judges-evidenc" in err and "judges[0]: unknown judge 'evidenc'" in err
    assert not (tmp_path / "runs").exists()  # the good first variant did not run either


def test_the_model_is_typed_frozen_and_dumps_as_before():
    config = config_from_dict({**BASE, "systems": "bm25, dense", "judges": "evidence"}, source="x/quick.yaml")
    assert config.name == "quick" and config.judges == ("evidence",)
    assert [s.key for s in config.systems] == ["bm25", "dense"] and config.systems[0] == SystemSpec("bm25")
    with pytest.raises(ValidationError):
        config.k = 3  # type: ignore[misc]
    # The header form of a config without judge_llm is unchanged, so earlier run folders resume.
    assert set(config.to_dict()) == {
        "benchmark", "systems", "name", "k", "answer_llm", "internal_llm", "judges", "seed",
        "benchmark_options", "embedder",
    }  # fmt: skip
    assert config.to_dict()["systems"][0] == {"name": "bm25", "label": "", "args": {}}
    with_judge = config_from_dict({**BASE, "judge_llm": {"model": "gpt-4o-mini"}})
    assert with_judge.to_dict()["judge_llm"] == {"model": "gpt-4o-mini"}
    assert isinstance(config, RunConfig)


def test_the_embedder_entry_takes_a_folder_or_path_device_and_batch_size(tmp_path):
    assert config_from_dict(BASE).to_dict()["embedder"] is None
    folder = config_from_dict({**BASE, "embedder": "/models/e5"})
    assert folder.embedder.path == "/models/e5" and folder.to_dict()["embedder"] == "/models/e5"
    full = config_from_dict({**BASE, "embedder": {"device": "cpu", "batch_size": 512}})
    assert full.to_dict()["embedder"] == {"path": None, "device": "cpu", "batch_size": 512}
    path = tmp_path / "c.yaml"
    path.write_text("benchmark: meme\nsystems: [dense]\n")
    assert load_config(path, ["embedder.device=cpu"]).embedder.device == "cpu"
    named = r"--set \(over .*c\.yaml\): embedder\.device: embedder device 'gpu'"
    with pytest.raises(ConfigError, match=named):
        load_config(path, ["embedder.device=gpu"])
    with pytest.raises(ConfigError, match=r"embedder\.batch_size"):
        load_config(path, ["embedder.batch_size=0"])


def test_a_gpu_the_machine_lacks_is_refused_before_any_work(monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(ConfigError, match=r"x\.yaml: embedder\.device: .*torch sees no CUDA device"):
        config_from_dict({**BASE, "embedder": {"device": "cuda:0"}}, source="x.yaml")
    assert config_from_dict({**BASE, "embedder": {"device": "auto"}}).embedder.device == "auto"


def test_with_systems_keeps_known_specs_and_checks_new_names():
    config = config_from_dict({**BASE, "systems": [{"name": "dense", "label": "d", "args": {"top_k": 3}}]})
    picked = with_systems(config, ["d", "bm25"])
    assert [(s.name, s.key, s.args) for s in picked.systems] == [
        ("dense", "d", {"top_k": 3}),
        ("bm25", "bm25", {}),
    ]
    with pytest.raises(ConfigError, match=r"--systems: systems\[0\].name: .*did you mean 'bm25'"):
        with_systems(config, ["bm2"])


def test_overrides_and_missing_keys(tmp_path, fetched_catalogue):
    assert parse_override("benchmark_options.episodes=3") == (["benchmark_options", "episodes"], 3)
    path = tmp_path / "c.yaml"
    path.write_text("benchmark: meme\nsystems: [bm25]\nanswer_llm: local\n")
    config = load_config(path, ["answer_llm.model=gpt-4o-mini", "k=2"])
    assert config.answer_llm == {"model": "gpt-4o-mini"} and config.k == 2
    path.write_text("systems: [bm25]\n")
    with pytest.raises(ConfigError, match=r"c\.yaml: missing required key 'benchmark'"):
        load_config(path)
    path.write_text("benchmark: wmb\nsystems: [bm25]\n")  # wmb's data_dir has a default: no error here
    assert load_config(path).benchmark == "wmb"


def test_known_judges_of_each_benchmark():
    assert sorted(known_judges("meme")) == ["evidence", "llm", "rule"]
    assert sorted(known_judges("wmb")) == ["llm", "rule"]
    assert sorted(known_judges("dynamicmem")) == ["llm", "rule"]


@pytest.mark.parametrize("name", sorted(p.stem for p in REPO_CONFIGS.glob("*.yaml")))
def test_every_shipped_config_is_valid(name, fetched_catalogue):
    path = REPO_CONFIGS / f"{name}.yaml"
    if "sweep" in yaml.safe_load(path.read_text()):
        variant_configs(load_ablation(path))
    else:
        load_config(path)


@pytest.mark.parametrize("name", sorted(p.stem for p in (REPO_CONFIGS / "ablations").glob("*.yaml")))
def test_every_shipped_ablation_is_valid(name, fetched_catalogue):
    assert variant_configs(load_ablation(REPO_CONFIGS / "ablations" / f"{name}.yaml"))


def test_shipped_configs_are_found_by_name(tmp_path, monkeypatch):
    assert configs_dir() == REPO_CONFIGS and {"demo", "meme_quick"} <= set(shipped_configs())
    monkeypatch.chdir(tmp_path)
    assert find_config("meme_quick") == REPO_CONFIGS / "meme_quick.yaml"
    assert find_config("demo.yaml") == REPO_CONFIGS / "demo.yaml"
    assert find_config("meme_topk", "ablations") == REPO_CONFIGS / "ablations" / "meme_topk.yaml"
    (tmp_path / "meme_quick").write_text("benchmark: meme\n")
    assert find_config("meme_quick") == Path("meme_quick")  # a file of that name here wins
    assert find_config("nope") == Path("nope")


def test_load_config_takes_a_shipped_name_from_any_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert load_config("meme_quick").name == "meme_quick"
    with pytest.raises(ConfigError, match="nope"):
        load_config("nope")


def test_benchmarks_and_version_commands(capsys):
    assert cli.main(["benchmarks"]) == 0
    lines = capsys.readouterr().out.splitlines()
    meme = next(i for i, line in enumerate(lines) if line.split()[0] == "meme")
    expected = "judges (needs): evidence (evidence), llm (answer, llm), rule (answer)"
    assert lines[meme + 1].split() == expected.split()
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.startswith("memsuite-bench ")
