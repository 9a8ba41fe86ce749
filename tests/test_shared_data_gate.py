"""The gate of the tests that read the development copies of real data (tests/conftest.py): without the
folder a marked test skips saying which data and how to get it, under CI it fails naming the data, and
in CI's pass without the data on purpose it skips again. Checked on a real marked test, in a pytest of
its own with the data folder absent."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from shared_copies import SHARED_COPIES

from memsuite.eval.data.catalogue import catalogue

ROOT = Path(__file__).resolve().parents[1]
#: A test that reads the LoCoMo development copy (marked ``shared_data("locomo")``).
MARKED = "tests/eval/benchmarks/locomo/test_locomo_loader.py::test_dev_file_loads_with_its_quirks_counted"
NAMED = "needs the development copy of locomo ($MEMSUITE_SHARED_DATA/locomo/locomo.dev.json)"
HOW = "(a user gets the full release with `memsuite data fetch locomo`)"


def _pytest(shared: Path, **env: str) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if k not in ("CI", "MEMSUITE_NO_SHARED_DATA")}
    environ.update(MEMSUITE_SHARED_DATA=str(shared), **env)
    command = [sys.executable, "-m", "pytest", MARKED, "-q", "-rsE", "-p", "no:cacheprovider"]
    return subprocess.run(command, cwd=ROOT, env=environ, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize(
    ("env", "code", "outcome"),
    [
        ({}, 0, "1 skipped"),
        ({"CI": "1"}, 1, "1 error"),
        ({"CI": "1", "MEMSUITE_NO_SHARED_DATA": "1"}, 0, "1 skipped"),
    ],
    ids=["fresh-machine", "ci", "ci-without-data-on-purpose"],
)
def test_a_test_reading_an_absent_copy_names_the_data_and_how_to_get_it(tmp_path, env, code, outcome):
    done = _pytest(tmp_path / "absent", **env)
    out = done.stdout + done.stderr
    assert done.returncode == code, out
    assert outcome in out.splitlines()[-1], out
    assert NAMED in out and HOW in out and str(tmp_path / "absent") in out, out


def test_the_pass_without_data_refuses_a_folder_that_exists(tmp_path):
    done = _pytest(tmp_path, CI="1", MEMSUITE_NO_SHARED_DATA="1")
    assert done.returncode == 4, done.stdout + done.stderr  # a usage error: nothing ran
    assert "MEMSUITE_NO_SHARED_DATA is set, but MEMSUITE_SHARED_DATA names an existing folder" in done.stderr


def test_every_copy_names_catalogue_entries_that_exist():
    for name, (_, entries) in SHARED_COPIES.items():
        assert entries and set(entries) <= set(catalogue()), name
