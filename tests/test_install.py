"""memsuite installs like a package beside a researcher's own code: one import root, the shipped configs,
and a CLI that works outside a checkout.

The wheel goes into a fresh virtual environment whose only other import path is the project venv's
site-packages (for the dependencies, which are large); the project's own editable install is not
active there, so the commands run the wheel's code -- asserted, not assumed. The venv also holds
top-level packages named ``eval``, ``configs``, ``baselines`` and ``memory_systems`` of someone else's
(names that real distributions on the package index install): memsuite must neither shadow them nor
be shadowed by them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from importlib.metadata import version
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_FOREIGN = ("eval", "configs", "baselines", "memory_systems")
_NOT_SOURCE = (".git", ".venv", "runs", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", "results")


def _run(*command: str | Path, cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [str(c) for c in command], cwd=cwd, env=env, capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, f"{command} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> tuple[Path, Path, Path]:
    """(wheel, venv python, a working folder outside the checkout)."""
    tmp = tmp_path_factory.mktemp("install")
    # Build from a copy: an in-tree build leaves build/ and *.egg-info in the checkout.
    source = tmp / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(*_NOT_SOURCE))
    # Without build isolation when this venv's setuptools can build it: no package index needed.
    flags = ["--no-build-isolation"] if int(version("setuptools").split(".")[0]) >= 77 else []
    _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", *flags, source, "-w", tmp / "dist", cwd=tmp)
    (wheel,) = (tmp / "dist").glob("memsuite_bench-*.whl")

    venv = tmp / "venv"
    _run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=tmp)
    python = venv / "bin" / "python"
    purelib = Path(
        _run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=tmp).strip()
    )
    # Dependencies from the project venv; a .pth line adds the folder but runs none of its .pth files,
    # so the project's editable install stays inactive and the venv's own site-packages comes first.
    (purelib / "_project_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    # Someone else's top-level packages with the names of memsuite's subpackages.
    for name in _FOREIGN:
        (purelib / name).mkdir()
        (purelib / name / "__init__.py").write_text(f"OWNER = 'not memsuite: {name}'\n")
    _run(sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "-q", wheel, cwd=tmp)
    outside = tmp / "elsewhere"
    outside.mkdir()
    return wheel, python, outside


def _version(wheel: Path) -> str:
    return wheel.name.split("-")[1]


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}


@pytest.mark.slow
def test_the_wheel_holds_one_import_root_and_the_shipped_configs(installed):
    wheel, _, _ = installed
    archive = zipfile.ZipFile(wheel)
    names = set(archive.namelist())
    assert {
        "memsuite/__init__.py",
        "memsuite/configs/demo.yaml",
        "memsuite/configs/meme_quick.yaml",
        "memsuite/configs/ablations/meme_topk.yaml",
        "memsuite/eval/benchmarks/dynamicmem/generator/data/life_events.json",
    } <= names
    assert {name.split("/")[0] for name in names} == {
        "memsuite",
        f"memsuite_bench-{_version(wheel)}.dist-info",
    }
    info = f"memsuite_bench-{_version(wheel)}.dist-info"
    assert archive.read(f"{info}/top_level.txt").decode().split() == ["memsuite"]
    metadata = archive.read(f"{info}/METADATA").decode()
    assert "Name: memsuite-bench" in metadata
    assert "License-Expression: Apache-2.0" in metadata and "Requires-Dist: pydantic>=2" in metadata
    entry_points = archive.read(f"{info}/entry_points.txt").decode()
    assert "memsuite = memsuite.eval.cli.main:main" in entry_points
    assert "bm25 = memsuite.baselines.bm25" in entry_points


@pytest.mark.slow
def test_the_installed_cli_runs_the_wheels_code_outside_the_checkout(installed):
    wheel, python, outside = installed
    venv = python.parents[1]
    memsuite = venv / "bin" / "memsuite"
    env = _env()
    where = _run(
        python,
        "-c",
        "import memsuite, memsuite.eval, memsuite.configs; print(memsuite.eval.__file__); "
        "print(memsuite.configs.__file__); print(memsuite.get_system('bm25').name)",
        cwd=outside,
        env=env,
    )
    *paths, name = where.split()
    assert all(Path(line).is_relative_to(venv) for line in paths) and name == "bm25", where
    # The other owners' packages still import, untouched, beside memsuite's.
    owners = _run(
        python, "-c", f"import memsuite.eval, {', '.join(_FOREIGN)}; "
        + "; ".join(f"print({name}.OWNER)" for name in _FOREIGN), cwd=outside, env=env,
    )  # fmt: skip
    assert owners.split("\n")[:-1] == [f"not memsuite: {name}" for name in _FOREIGN]

    assert _run(memsuite, "--version", cwd=outside, env=env).startswith(
        f"memsuite-bench {_version(wheel)} from {venv}"
    )
    assert "usage: memsuite demo" in _run(memsuite, "demo", "--help", cwd=outside, env=env)
    assert {"bm25", "dense"} <= set(_run(memsuite, "systems", cwd=outside, env=env).split())
    demo = _run(
        python, "-c", "from memsuite.eval.benchmarks.meme.demo import DEMO_CONFIG; print(DEMO_CONFIG)",
        cwd=outside, env=env,
    )  # fmt: skip
    assert Path(demo.strip()).is_relative_to(venv) and Path(demo.strip()).is_file()

    # A shipped config by name, from a folder without configs/: a real (small, retrieval-only) run.
    out = _run(
        memsuite, "run", "meme_quick", "--systems", "bm25", "--set", "benchmark_options.episodes=1",
        "--out", "r", "--no-cache", "--quiet", cwd=outside, env=env,
    )  # fmt: skip
    status = "run complete: r (0 failed units, 0 failed answer calls, 0 failed judge calls)"
    assert out.startswith(status), out
    assert (outside / "r" / "rows.jsonl").stat().st_size > 0
