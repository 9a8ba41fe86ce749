"""A change of code is never served from old results: a plugin system installed the way a user's package
is (module + distribution metadata with its entry point), edited and upgraded between runs."""

from __future__ import annotations

import json
import sys

import pytest
import yaml

from memsuite.eval.cli.main import main
from memsuite.eval.run.provenance import code_changes

PLUGIN = """
from memsuite.baselines.bm25 import BM25Memory
from memsuite.memory_systems.registry import register


@register("alpha_memory")
class AlphaMemory(BM25Memory):
    name = "alpha_memory"

    def __init__(self, *, alpha: float = {alpha}, top_k: int = 5) -> None:
        super().__init__(top_k=top_k)
        self.alpha = alpha
"""


def _install(root, alpha: float, version: str) -> None:
    (root / "alpha_plugin.py").write_text(PLUGIN.format(alpha=alpha), encoding="utf-8")
    dist = root / "alpha_plugin-0.dist-info"
    dist.mkdir(exist_ok=True)
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: alpha-plugin\nVersion: {version}\n")
    (dist / "entry_points.txt").write_text("[memsuite.systems]\nalpha_memory = alpha_plugin\n")


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    root = tmp_path / "site"
    root.mkdir()
    _install(root, 0.1, "0.1")
    monkeypatch.syspath_prepend(str(root))
    from memsuite.memory_systems.registry import system_names

    if "alpha_memory" not in system_names():
        import alpha_plugin  # noqa: F401 - registers the system
    yield root
    sys.modules.pop("alpha_plugin", None)


def _run(tmp_path, capsys, *flags) -> tuple[int, str, str]:
    config = tmp_path / "c.yaml"
    config.write_text(yaml.safe_dump({
        "benchmark": "meme", "systems": ["alpha_memory"],
        "benchmark_options": {"episodes": 1, "filler": "none", "seed": 4},
    }))  # fmt: skip
    code = main(["run", str(config), "--out", str(tmp_path / "run"), "--quiet", "--no-cache", *flags])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_a_changed_plugin_is_never_served_from_old_results(plugin, tmp_path, capsys):
    code, _, err = _run(tmp_path, capsys)
    assert code == 0, err
    header = json.loads((tmp_path / "run" / "run.json").read_text())
    recorded = header["code"]["systems"]["alpha_memory"]
    assert recorded["distribution"] == "alpha-plugin" and recorded["version"] == "0.1"
    assert recorded["module"] == "alpha_plugin" and len(recorded["source_sha256"]) == 64
    assert len(header["code"]["memsuite_sha256"]) == 64
    unit = next((tmp_path / "run" / "units").glob("*/*.jsonl"))
    written = unit.stat().st_mtime_ns

    code, _, err = _run(tmp_path, capsys)  # the same code: nothing to do, and it says so
    assert code == 0 and "found a finished run" in err and "nothing recomputed" in err

    _install(plugin, 0.9, "0.1")  # the default alpha edited: same version, other source
    code, out, err = _run(tmp_path, capsys)
    assert code == 2 and out == ""
    assert "system 'alpha_memory' (alpha_plugin): module source changed" in err
    assert "--allow-code-change" in err and unit.stat().st_mtime_ns == written

    _install(plugin, 0.9, "0.2")
    code, _, err = _run(tmp_path, capsys)
    assert code == 2 and "version changed '0.1' -> '0.2'" in err, err

    code, _, err = _run(tmp_path, capsys, "--allow-code-change")
    assert code == 0, err
    header = json.loads((tmp_path / "run" / "run.json").read_text())
    assert header["code"]["systems"]["alpha_memory"]["version"] == "0.2"  # the next resume compares to this
    assert any("module source changed" in c for c in header["resumes"][-1]["code_changes"])
    code, _, err = _run(tmp_path, capsys)
    assert code == 0 and "nothing recomputed" in err


def test_memsuite_own_code_and_old_folders():
    old = {"memsuite_sha256": "a", "systems": {"bm25": {"module": "m", "version": "1", "source_sha256": "x"}}}
    new = {"memsuite_sha256": "b", "systems": {"bm25": {"module": "m", "version": "1", "source_sha256": "x"}}}
    assert code_changes(old, new) == ["memsuite's own code changed"]
    assert code_changes(None, new) == []  # a folder written before code was recorded
    assert code_changes(new, {**new, "systems": {**new["systems"], "dense": {}}}) == []  # a new system
