"""Benchmark and judge registries: built-ins, per-benchmark judge names, third-party entry points."""

from __future__ import annotations

import sys
import textwrap

import pytest

from memsuite.eval import registry
from memsuite.eval.config import config_from_dict
from memsuite.eval.runner import run
from memsuite.memory_systems.errors import ConfigError

#: A third party's benchmark module: registers its benchmark and a judge when imported.
PLUGIN_MODULE = '''
from memsuite.eval.answer import Judge
from memsuite.eval.protocol import Row
from memsuite.eval.registry import register_benchmark, register_judge


class EchoBenchmark:
    name = "echo_plugin"

    def __init__(self, units=("a", "b")):
        self._units = list(units)

    def units(self):
        return self._units

    def run_unit(self, system, unit_id, ctx):
        yield Row(system.name, self.name, unit_id, "q", "q?", unit_id, unit_id)

    def summarize(self, rows):
        return {"rows": len(rows)}


register_benchmark("echo_plugin")(EchoBenchmark)
register_judge("echo_plugin", "exact")(Judge(lambda inp: {"correct": inp.context == inp.case}))
'''


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    """Install a package whose entry points add two benchmarks: a module and a factory."""
    (tmp_path / "echo_plugin_mod.py").write_text(textwrap.dedent(PLUGIN_MODULE))
    (tmp_path / "echo_factory_mod.py").write_text(
        "def make(**options):\n    from echo_plugin_mod import EchoBenchmark\n"
        "    return EchoBenchmark(**options)\n"
    )
    dist = tmp_path / "echo_plugin-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: echo-plugin\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(
        "[memsuite.benchmarks]\necho_plugin = echo_plugin_mod\necho_factory = echo_factory_mod:make\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    # A fresh view of the registry: entry points are read again, and nothing leaks into other tests.
    monkeypatch.setattr(registry.BENCHMARKS, "_entries", dict(registry.BENCHMARKS._entries))
    monkeypatch.setattr(registry.BENCHMARKS, "_loaded", False)
    monkeypatch.setattr(registry, "_JUDGES", dict(registry._JUDGES))
    yield
    for name in ("echo_plugin_mod", "echo_factory_mod"):
        sys.modules.pop(name, None)


def test_a_third_party_benchmark_comes_in_through_the_entry_point_group(plugin, tmp_path):
    assert {"echo_plugin", "echo_factory", "meme", "wmb", "dynamicmem"} <= set(registry.benchmark_names())
    assert registry.get_benchmark("echo_factory", units=["x"]).units() == ["x"]
    assert registry.judge_names("echo_plugin") == ["exact"]
    config = config_from_dict({"benchmark": "echo_plugin", "systems": ["bm25"], "judges": ["exact"]})
    folder = run(config, out_dir=tmp_path / "run", show_progress=False)
    assert folder.header()["status"] == "complete" and len(folder.rows()) == 2
    # The config is refused when it is read, before any run starts (eval/validate.py).
    with pytest.raises(ConfigError, match=r"judges\[0\]: unknown judge 'rule' of benchmark 'echo_plugin'"):
        config_from_dict({"benchmark": "echo_plugin", "systems": ["bm25"]})


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

    assert isinstance(SYSTEMS, Registry) and isinstance(registry.BENCHMARKS, Registry)
    assert registry.judge_names("meme")  # imports the built-in, so "meme" below is a real duplicate
    assert isinstance(registry.judge_registry("meme"), Registry)
    with pytest.raises(ConfigError, match="registered twice"):
        registry.register_benchmark("meme")(lambda: None)
