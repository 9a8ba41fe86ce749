"""Dependencies run one way: down. Read statically with ``perf/import_graph.py`` (plain ``ast``, nothing
imported), counting every ``memsuite`` import of every module of the package, those inside function
bodies included; only imports under ``if TYPE_CHECKING:`` are left out, since they never run.

An edge goes from a module to the module it names (``from memsuite.eval.run import folder`` and
``from memsuite.eval.run.folder import load_run`` both name ``eval/run/folder.py``; a name a package's
``__init__`` re-exports names that ``__init__``), and, as Python runs it first, to the ``__init__`` of
every package above that module -- except the packages the importing module is itself in, whose
``__init__`` is already running. So a package ``__init__`` that re-exports its own submodules closes no
circle with them, while a module outside the package that imports one of its submodules depends on all
the package's ``__init__`` imports.
"""

from __future__ import annotations

import functools
import importlib.util
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EVAL = REPO / "eval"

#: The modules that may look a benchmark up in the registry: the registry itself; the entry points that
#: resolve a benchmark's definition once and hand its parts down -- the runner, the command line,
#: config validation (a config checked against the registries), the report (the definitions of the
#: runs it is given), ``rejudge`` (the rejudging run), ``memsuite llm oracle`` (the oracle served on
#: its own), the studies that run a config several times, and the public run readers
#: (``memsuite.load_run``), which read each run with its benchmark's layout. A benchmark package's
#: ``__init__`` declares itself with the registry's decorator; :func:`_allowed_registry_user` adds those.
REGISTRY_USERS = {
    "memsuite/runs.py",
    "eval/registry.py",
    "eval/run/runner.py",
    "eval/run/validate.py",
    "eval/cli",
    "eval/report/document.py",
    "eval/rejudge/command.py",
    "eval/oracle/serve.py",
    "eval/study",
}
#: Modules below the entry points that still look a benchmark up by name, each to be handed what it
#: needs by its caller; the test fails when one is added, and when one listed no longer does.
STILL_LOOKING_UP: set[str] = set()


def _graph_module():
    spec = importlib.util.spec_from_file_location("_import_graph", REPO / "perf" / "import_graph.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("_import_graph", module)
    spec.loader.exec_module(module)
    return module


graph = _graph_module()


def _rel(path: Path) -> str:
    return str(path.relative_to(REPO))


def _packages_above(target: Path, importer: Path) -> list[Path]:
    """The ``__init__`` files Python runs before ``target``: each package above it that does not hold
    ``importer``."""
    found = []
    for folder in target.parents:
        init = folder / "__init__.py"
        if not init.exists() or folder == REPO:
            break
        if folder not in importer.parents and init != target:
            found.append(init)
    return found


@functools.cache
def _runtime_edges() -> dict[Path, set[Path]]:
    edges: dict[Path, set[Path]] = defaultdict(set)
    for path in graph.source_files():
        for target, name, typing_only in graph.imports(path):
            assert target is not None, f"{_rel(path)}: import {name} names no module file"
            if typing_only:
                continue
            for found in (target, *_packages_above(target, path)):
                if found != path:
                    edges[path].add(found)
    return edges


def _allowed_registry_user(path: Path) -> bool:
    rel = _rel(path)
    if any(rel == allowed or rel.startswith(allowed + "/") for allowed in REGISTRY_USERS):
        return True
    # A benchmark package declares itself in its __init__ (``@benchmark("name")``).
    if not path.is_relative_to(EVAL):
        return False
    parts = path.relative_to(EVAL).parts
    return len(parts) == 3 and parts[0] == "benchmarks" and parts[2] == "__init__.py"


def test_no_import_circle():
    found = graph.circles(_runtime_edges())
    assert not found, "import circles:\n" + "\n".join(" <-> ".join(map(_rel, c)) for c in found)


def test_only_the_top_looks_benchmarks_up_in_the_registry():
    registry = (EVAL / "registry.py").resolve()
    users = {
        _rel(path)
        for path, targets in _runtime_edges().items()
        if registry in targets and not _allowed_registry_user(path)
    }
    below = sorted(users - STILL_LOOKING_UP)
    assert not below, f"modules below the runner and the CLI that import the registry: {below}"
    done = sorted(STILL_LOOKING_UP - users)
    assert not done, f"no longer import the registry (drop them from STILL_LOOKING_UP): {done}"


def test_the_run_layer_stands_below_report_and_analysis():
    above = (EVAL / "report", EVAL / "analysis")
    found = sorted(
        f"{_rel(path)} -> {_rel(target)}"
        for path, targets in _runtime_edges().items()
        if (EVAL / "run") in path.parents
        for target in targets
        if any(folder in target.parents for folder in above)
    )
    assert not found, f"the run layer imports the report or analysis: {found}"
