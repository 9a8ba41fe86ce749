"""Benchmark and judge registries: built-ins, per-benchmark judge names, third-party entry points."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from memsuite.eval import registry
from memsuite.eval.config import config_from_dict
from memsuite.eval.runner import run
from memsuite.eval.spec import resolve
from memsuite.memory_systems.errors import ConfigError

TOY_PLUGIN = Path(__file__).parent / "toy_plugin"


@pytest.fixture
def fresh_registry(monkeypatch):
    """A fresh view of the registry: entry points are read again, and nothing leaks into other tests."""
    # Every built-in benchmark's judges first: a judges module imported under the copy below would
    # register into it and be lost for the tests after this one.
    for name in registry.benchmark_names():
        registry.judge_names(name)
    monkeypatch.setattr(registry, "_SPECS", {})
    monkeypatch.setattr(registry, "_UNAVAILABLE", {})
    monkeypatch.setattr(registry, "_discovered", False)
    monkeypatch.setattr(registry, "_JUDGES", dict(registry._JUDGES))


def _install(tmp_path: Path, name: str, entry_points: str) -> None:
    """A dist-info folder on sys.path: what ``pip install`` of a package with these entry points leaves."""
    dist = tmp_path / f"{name}-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(f"[memsuite.benchmarks]\n{entry_points}\n")


@pytest.fixture
def toy_plugin(tmp_path, monkeypatch, fresh_registry):
    """The toy benchmark package (tests/eval/toy_plugin/toy_bench) installed through its entry point."""
    site = tmp_path / "site"
    site.mkdir()
    _install(site, "toy-bench", "toy = toy_bench:SPEC")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.syspath_prepend(str(TOY_PLUGIN))
    yield
    for name in [m for m in sys.modules if m == "toy_bench" or m.startswith("toy_bench.")]:
        sys.modules.pop(name, None)


def test_a_third_party_spec_is_run_reported_compared_shown_and_rejudged(toy_plugin, tmp_path, capsys):
    from memsuite.eval.cli import main

    assert {"toy", "meme", "wmb", "dynamicmem", "locomo", "longmemeval"} <= set(registry.benchmark_names())
    assert registry.judge_names("toy") == ["exact", "found"]
    config = tmp_path / "toy.yaml"
    config.write_text("benchmark: toy\nsystems: [bm25, dense]\njudges: [found]\nk: 1\n")
    assert main(["run", str(config), "--out", str(tmp_path / "run"), "--quiet", "--no-cache"]) == 0
    rows = [json.loads(line) for line in (tmp_path / "run" / "rows.jsonl").read_text().splitlines()]
    assert len(rows) == 12 and all(r["verdicts"]["found"]["correct"] for r in rows)

    assert main(["report", str(tmp_path / "run"), "--out", str(tmp_path / "report"), "--no-plots"]) == 0
    report = (tmp_path / "report" / "report.md").read_text()
    assert "Toy capitals" in report and "Capital found" in report

    capsys.readouterr()
    assert main(["compare", str(tmp_path / "run"), "--systems", "bm25", "dense"]) == 0
    assert "capitals" in capsys.readouterr().out
    assert main(["show", str(tmp_path / "run"), "--system", "bm25", "--limit", "2"]) == 0
    assert "What is the capital of France?" in capsys.readouterr().out

    # Published answers in the toy's own format, judged by its answer judge.
    answers = tmp_path / "toy_answers.jsonl"
    answers.write_text('{"country": "France", "answer": "Paris"}\n{"country": "Peru", "answer": "Quito"}\n')
    out = tmp_path / "rejudged"
    assert main(["rejudge", str(answers), "--benchmark", "toy", "--judges", "exact", "--out", str(out)]) == 0
    rejudged = {r["unit_id"]: r for r in map(json.loads, (out / "rows.jsonl").read_text().splitlines())}
    verdicts = {u: r["verdicts"]["exact"]["correct"] for u, r in rejudged.items()}
    assert verdicts == {"France": True, "Peru": False}
    # Its retrieval judge is refused by rejudge, and by a config without answers its answer judge is.
    with pytest.raises(ConfigError, match="judges answers: set answer_llm"):
        config_from_dict({"benchmark": "toy", "systems": ["bm25"], "judges": ["exact"]})


def test_an_entry_point_that_names_no_spec_is_refused_saying_what_it_names(
    tmp_path, monkeypatch, fresh_registry
):
    (tmp_path / "echo_factory_mod.py").write_text("def make(**options):\n    return None\n")
    _install(tmp_path, "echo-plugin", "echo_factory = echo_factory_mod:make")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        assert {"echo_factory", "meme"} <= set(registry.benchmark_names())
        refused = r"'echo_factory' is not available .*'echo_factory_mod:make'.* names a function, not a "
        with pytest.raises(ConfigError, match=refused + r"memsuite\.eval\.spec\.BenchmarkSpec"):
            config_from_dict({"benchmark": "echo_factory", "systems": ["bm25"]})
    finally:
        sys.modules.pop("echo_factory_mod", None)


def test_every_builtin_benchmark_is_declared_by_a_spec_in_its_package():
    builtins = registry._builtin_names()  # other tests' own benchmarks may be registered too
    assert {"beam", "dynamicmem", "locomo", "longmemeval", "meme", "wmb"} <= set(builtins)
    for name, spec in registry.benchmark_specs().items():
        if name not in builtins:
            continue
        assert spec.name == name
        assert isinstance(spec.factory, str) and spec.factory.startswith(f"memsuite.eval.benchmarks.{name}.")
        assert set(spec.judge_needs) <= set(registry.judge_names(name)), name
        assert callable(resolve(spec.report)) and resolve(spec.outcomes).judges


def test_a_judge_whose_needs_the_config_does_not_meet_is_refused_for_every_benchmark(fetched_catalogue):
    for name, spec in registry.benchmark_specs().items():
        for judge, needs in spec.judge_needs.items():
            data = {"benchmark": name, "systems": ["bm25"], "judges": [judge]}
            if "answer" in needs or "llm" in needs:
                with pytest.raises(ConfigError, match=rf"judges\[0\]: the {name} judge '{judge}'"):
                    config_from_dict(data)


def test_judge_names_are_per_benchmark():
    assert registry.judge_names("meme") == ["evidence", "llm", "rule"]
    assert registry.judge_names("wmb") == ["llm", "rule"]
    assert registry.judge_names("dynamicmem") == ["llm", "rule"]
    assert registry.get_judge("meme", "llm").uses_llm and not registry.get_judge("meme", "rule").uses_llm
    assert not registry.get_judge("wmb", "rule").needs_answer
    assert registry.get_judge("meme", "rule").needs_answer
    with pytest.raises(ConfigError, match=r"unknown meme judge 'rulez' \(did you mean 'rule'\?\)"):
        registry.check_judges("meme", ["rule", "rulez"])
    with pytest.raises(ConfigError, match=r"unknown benchmark 'mem' \(did you mean 'meme'\?\)"):
        registry.judge_names("mem")


def test_an_unknown_judge_fails_the_run_before_any_work(tmp_path):
    data = {"benchmark": "meme", "systems": ["bm25"], "judges": ["evidence", "gpt"]}
    with pytest.raises(ConfigError, match=r"judges\[1\]: unknown judge 'gpt' of benchmark 'meme'"):
        config_from_dict(data)
    # A config built without validation (as a library caller may) is still refused by the runner.
    config = config_from_dict(data, check=False)
    with pytest.raises(ConfigError, match=r"unknown meme judge 'gpt'.*known: evidence, llm, rule"):
        run(config, out_dir=tmp_path / "run", show_progress=False)
    assert not (tmp_path / "run" / "rows.jsonl").exists()


def test_one_registry_mechanism_for_systems_benchmarks_and_judges():
    from memsuite.memory_systems.registry import SYSTEMS, Registry

    assert isinstance(SYSTEMS, Registry) and isinstance(registry.judge_registry("meme"), Registry)
    meme = registry.benchmark_spec("meme")
    assert registry.register_spec(meme) is meme  # the same spec again is a no-op
    with pytest.raises(ConfigError, match="registered twice"):
        registry.register_spec(replace(meme, description="another"))
