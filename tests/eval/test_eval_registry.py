"""Benchmark and judge registries: built-ins, per-benchmark judge names, third-party entry points."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from memsuite.eval import registry
from memsuite.eval.definition import BenchmarkDefinition
from memsuite.eval.run.config import config_from_dict
from memsuite.eval.run.runner import run
from memsuite.memory_systems.errors import ConfigError

TOY_PLUGIN = Path(__file__).parent / "toy_plugin"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def fresh_registry(monkeypatch):
    """A fresh view of the registry: entry points are read again, and nothing leaks into other tests."""
    monkeypatch.setattr(registry, "_DECLARED", {})
    monkeypatch.setattr(registry, "_DEFINED", {})
    monkeypatch.setattr(registry, "_UNAVAILABLE", {})
    monkeypatch.setattr(registry, "_discovered", False)


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
    _install(site, "toy-bench", "toy = toy_bench:toy")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.syspath_prepend(str(TOY_PLUGIN))
    yield
    for name in [m for m in sys.modules if m == "toy_bench" or m.startswith("toy_bench.")]:
        sys.modules.pop(name, None)


def test_a_third_party_benchmark_is_run_reported_compared_shown_and_rejudged(toy_plugin, tmp_path, capsys):
    from memsuite.eval.cli.main import main

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


def test_an_entry_point_that_names_no_declared_function_is_refused_saying_what_it_names(
    tmp_path, monkeypatch, fresh_registry
):
    (tmp_path / "echo_factory_mod.py").write_text("def make(**options):\n    return None\n")
    _install(tmp_path, "echo-plugin", "echo_factory = echo_factory_mod:make")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        assert {"echo_factory", "meme"} <= set(registry.benchmark_names())
        refused = (
            r"'echo_factory' is not available .*'echo_factory_mod:make' is not a function declared with "
        )
        with pytest.raises(ConfigError, match=refused + r"@memsuite\.eval\.registry\.benchmark"):
            config_from_dict({"benchmark": "echo_factory", "systems": ["bm25"]})
    finally:
        sys.modules.pop("echo_factory_mod", None)


def test_every_builtin_benchmark_is_declared_by_a_function_in_its_package():
    builtins = registry._builtin_names()  # other tests' own benchmarks may be declared too
    assert {"beam", "dynamicmem", "locomo", "longmemeval", "meme", "wmb"} <= set(builtins)
    declared = registry.declarations()
    for name in builtins:
        assert declared[name].define.__module__ == f"memsuite.eval.benchmarks.{name}"
        assert declared[name].description
        found = registry.definition(name)
        assert found.name == name and found.description == declared[name].description
        assert callable(found.report) and found.outcomes.judges
        assert found.protocol.__module__.startswith(f"memsuite.eval.benchmarks.{name}.")


def test_a_judge_whose_needs_the_config_does_not_meet_is_refused_for_every_benchmark(fetched_catalogue):
    for name, found in registry.definitions().items():
        for judge, spec in found.judges.items():
            data = {"benchmark": name, "systems": ["bm25"], "judges": [judge]}
            if "answer" in spec.needs or "llm" in spec.needs:
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


def test_listing_benchmarks_imports_none_of_their_code():
    code = (
        "import sys; from memsuite.eval import registry; registry.benchmark_names(); registry.declarations();"
        "print(sorted(m for m in sys.modules if m.startswith('memsuite.eval.benchmarks.')"
        " and m.count('.') > 3))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert done.stdout.strip() == "[]", done.stdout


def test_a_name_is_declared_once():
    meme = registry.declarations()["meme"].define
    assert registry.benchmark("meme")(meme) is meme  # the same function again is a no-op

    def another() -> BenchmarkDefinition:
        return BenchmarkDefinition(protocol=object)

    with pytest.raises(ConfigError, match="declared twice"):
        registry.benchmark("meme")(another)


def test_a_declaration_is_not_called_until_its_definition_is_needed(fresh_registry):
    calls = []

    @registry.benchmark("lazy_probe")
    def lazy_probe() -> BenchmarkDefinition:
        """a probe"""
        calls.append(1)
        raise ModuleNotFoundError("No module named 'missing_dependency'")

    assert "lazy_probe" in registry.benchmark_names() and calls == []
    assert registry.declarations()["lazy_probe"].description == "a probe"
    with pytest.raises(ConfigError, match="'lazy_probe' is not available in this install: No module named"):
        registry.definition("lazy_probe")
    assert calls == [1] and "lazy_probe" not in registry.definitions()
    assert "meme" in registry.definitions()  # a benchmark that cannot be built blocks no other
