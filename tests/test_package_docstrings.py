"""The module lists in package docstrings (what ARCHITECTURE.md points to) name exactly what is there."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
#: Packages whose docstring lists their modules, one bullet (``- ``name``: ...``) each.
LISTED = [
    "eval",
    "eval/run",
    "eval/data",
    "eval/analysis",
    "eval/cli",
    "eval/study",
    "eval/benchmarks",
    "eval/retrieval_qa",
    "baselines",
    "memory_systems",
]


def _parts(package: Path) -> set[str]:
    modules = {p.stem for p in package.glob("*.py") if p.name != "__init__.py"}
    return modules | {p.parent.name for p in package.glob("*/__init__.py")}


def _bullets(docstring: str) -> tuple[set[str], set[str]]:
    """(the first name of every bullet, every name a bullet mentions)."""
    lines = [line for line in docstring.splitlines() if line.startswith("- ")]
    first = {m.group(1) for line in lines if (m := re.match(r"- ``(\w+)``", line))}
    mentioned = {name for line in lines for name in re.findall(r"``(\w+)``", line)}
    return first, mentioned


@pytest.mark.parametrize("folder", LISTED)
def test_every_module_is_listed_and_every_listed_module_exists(folder):
    package = REPO / folder
    docstring = ast.get_docstring(ast.parse((package / "__init__.py").read_text(encoding="utf-8"))) or ""
    first, mentioned = _bullets(docstring)
    assert first, f"{folder}/__init__.py lists no modules"
    parts = _parts(package)
    assert not parts - mentioned, f"{folder}/__init__.py does not list {sorted(parts - mentioned)}"
    assert first <= parts, f"{folder}/__init__.py lists what is not there: {sorted(first - parts)}"
