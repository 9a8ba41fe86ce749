"""No module of the package warns of a deprecation: nothing has been released, so there is no older way
to keep working. Every module is imported (in a fresh interpreter, so none was imported before) with
each deprecation warning traced to the code that issued it, and no source file names one."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import memsuite

PACKAGE = Path(memsuite.__file__).resolve().parent
ROOT = PACKAGE.parent

#: Imports every module; prints each deprecation warning with the file and line that called
#: ``warnings.warn`` (a library's own warning names the library's file, whatever its stacklevel).
IMPORT_EVERY_MODULE = """
import importlib, json, pkgutil, sys, warnings

issued, tried, failed = [], 0, {}
_warn = warnings.warn


def warn(message, category=None, stacklevel=1, source=None, **kwargs):
    kind = category or (type(message) if isinstance(message, Warning) else UserWarning)
    if issubclass(kind, DeprecationWarning):
        caller = sys._getframe(1)
        issued.append({"file": caller.f_code.co_filename, "line": caller.f_lineno, "message": str(message)})
    return _warn(message, category, stacklevel + 1, source, **kwargs)


warnings.warn = warn
import memsuite

for module in pkgutil.walk_packages(memsuite.__path__, "memsuite.", onerror=lambda name: None):
    if module.name.endswith(".__main__"):  # runs the command line
        continue
    tried += 1
    try:
        importlib.import_module(module.name)
    except ImportError as exc:  # an optional extra not installed here, or a broken module
        failed[module.name] = str(exc)
print(json.dumps({"issued": issued, "tried": tried, "failed": failed}))
"""


def _sources() -> list[Path]:
    folders = [PACKAGE] + [(PACKAGE / name).resolve() for name in ("eval", "baselines", "memory_systems")]
    return sorted({p for folder in folders for p in folder.rglob("*.py")})


def test_importing_every_module_issues_no_deprecation_warning_of_ours():
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_EVERY_MODULE], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    # Ours: issued from the package's source files (the venv may live inside the checkout too).
    sources = set(_sources())
    ours = [w for w in result["issued"] if Path(w["file"]).resolve() in sources]
    assert ours == [], ours
    # A module that cannot be imported is its own tests' concern; most must import for this to mean much.
    assert result["tried"] > 100 and len(result["failed"]) < result["tried"] / 10, result


def test_no_module_issues_a_deprecation_warning():
    issued = []
    for path in _sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Name) and node.id in ("DeprecationWarning", "PendingDeprecationWarning"):
                issued.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert len(_sources()) > 100 and issued == [], issued
