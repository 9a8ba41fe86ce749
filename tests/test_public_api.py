"""``import memsuite``: the public surface, listed in one place and resolved on first use."""

from __future__ import annotations

import subprocess
import sys

import memsuite


def test_all_lists_exactly_the_public_names_and_each_resolves():
    assert set(memsuite.__all__) == {"DISTRIBUTION", *memsuite._PUBLIC}
    for name in memsuite.__all__:
        assert getattr(memsuite, name) is not None
    assert memsuite.MemorySystem.__module__ == "memsuite.memory_systems.base"
    assert memsuite.get_system("bm25").name == "bm25"


def test_an_unknown_name_is_an_attribute_error():
    try:
        memsuite.no_such_thing  # noqa: B018
    except AttributeError as exc:
        assert "no_such_thing" in str(exc)
    else:
        raise AssertionError("memsuite.no_such_thing resolved")


def test_importing_memsuite_loads_no_model_and_no_benchmark():
    code = (
        "import sys, memsuite; print(memsuite.DISTRIBUTION); "
        "print(sorted(m for m in ('torch', 'memsuite.eval', 'memsuite.baselines') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split("\n")[:2] == ["memsuite-bench", "[]"]


def test_load_run_reads_scores_with_the_runs_benchmark_layout(tmp_path):
    """BEAM keeps each judge's scores under a key of its own, not under ``by_judge``: the public reader
    finds them there."""
    from runfolders import write_run

    from memsuite.eval.protocol import Row

    row = Row("bm25", "beam", "c1", "q1", "When?", "May", "ctx", verdicts={"rule": {"correct": True}})
    write_run(tmp_path / "run", benchmark="beam", rows=[row], scores={"rule": {"overall": 1.0}})
    assert memsuite.load_run(tmp_path / "run").scores("bm25").judges["rule"].at("overall") == 1.0
    (run,) = memsuite.load_runs([tmp_path / "run"])
    assert run.scores("bm25").judges["rule"].at("overall") == 1.0
