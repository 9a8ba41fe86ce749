"""The code's structure as static tools see it: import edges, circles, benchmark names outside their
package, and long functions. Plain ``ast``; nothing is imported.

An import ``memsuite.<folder>.x`` is resolved to a file by ``memsuite/<folder>`` when that path exists
(the symlinks that map the subpackages: ARCHITECTURE.md), so the walk needs no knowledge of setup.py.
Imports under ``if TYPE_CHECKING:`` never run; they are counted as edges and reported apart.

    .venv/bin/python perf/import_graph.py            # the figures
    .venv/bin/python perf/import_graph.py --list     # and every circle, name and long function
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("memsuite", "memory_systems", "baselines", "eval")
LONG_FUNCTION = 80


def source_files() -> list[Path]:
    """Every module of the package, by its real path (each once)."""
    files = {p.resolve() for folder in FOLDERS for p in (ROOT / folder).rglob("*.py")}
    return sorted(f for f in files if "__pycache__" not in f.parts)


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts if parts[0] == "memsuite" else ["memsuite", *parts])


def resolve(name: str) -> Path | None:
    """The file of module ``name`` found through the filesystem from the repository root."""
    base = ROOT.joinpath(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.exists():
            return candidate.resolve()
    return None


def _type_checking_lines(tree: ast.AST) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for inner in node.body:
                lines.update(range(inner.lineno, (inner.end_lineno or inner.lineno) + 1))
    return lines


def imports(path: Path) -> list[tuple[Path | None, str, bool]]:
    """``(file or None, module name, type-checking only)`` for each ``memsuite`` import of ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = _type_checking_lines(tree)
    own = module_name(path)
    package = own if path.name == "__init__.py" else own.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            # ``from pkg import module`` imports the module; ``from module import name`` the module.
            names = [f"{target}.{a.name}" if resolve(f"{target}.{a.name}") else target for a in node.names]
        for name in names:
            if name == "memsuite" or name.startswith("memsuite."):
                found.append((resolve(name), name, node.lineno in typing_only))
    return found


def circles(edges: dict[Path, set[Path]]) -> list[list[Path]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[Path, int] = {}
    low: dict[Path, int] = {}
    stack: list[Path] = []
    on: set[Path] = set()
    out: list[list[Path]] = []
    sys.setrecursionlimit(10000)

    def visit(v: Path) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in list(edges):
        if v not in index:
            visit(v)
    return out


def benchmark_names() -> list[str]:
    return sorted(p.name for p in (ROOT / "eval" / "benchmarks").iterdir() if (p / "__init__.py").exists())


def naming_outside(files: list[Path], benchmarks: list[str]) -> dict[Path, list[str]]:
    """Modules outside ``eval/benchmarks/<name>/`` that import that benchmark's package."""
    found: dict[Path, list[str]] = defaultdict(list)
    for path in files:
        for _, name, _ in imports(path):
            parts = name.split(".")
            if parts[:3] == ["memsuite", "eval", "benchmarks"] and len(parts) > 3 and parts[3] in benchmarks:
                owner = ROOT / "eval" / "benchmarks" / parts[3]
                if owner not in path.parents:
                    found[path].append(name)
    return dict(found)


def long_functions(files: list[Path]) -> list[tuple[Path, str, int]]:
    out = []
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > LONG_FUNCTION:
                    out.append((path, node.name, length))
    return sorted(out, key=lambda t: -t[2])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="list every circle, name and long function")
    args = parser.parse_args()
    files = source_files()
    edges: dict[Path, set[Path]] = defaultdict(set)
    runtime: dict[Path, set[Path]] = defaultdict(set)
    unresolved = set()
    for path in files:
        for target, name, typing_only in imports(path):
            if target is None:
                unresolved.add(name)
            elif target != path:
                edges[path].add(target)
                if not typing_only:
                    runtime[path].add(target)
    all_circles, runtime_circles = circles(edges), circles(runtime)
    outside = naming_outside(files, benchmark_names())
    long = long_functions(files)
    print(f"modules: {len(files)}")
    resolved = sum(map(len, edges.values()))
    print(f"import edges resolved to files: {resolved} (unresolved names: {len(unresolved)})")
    print(f"circles: {len(all_circles)} counting type-checking imports, {len(runtime_circles)} at run time")
    print(f"modules naming a benchmark outside its package: {len(outside)}")
    print(f"functions over {LONG_FUNCTION} lines: {len(long)}")
    if args.list:
        rel = lambda p: str(p.relative_to(ROOT))  # noqa: E731
        for circle in all_circles:
            kind = "at run time" if circle in runtime_circles else "type-checking imports only"
            print(f"circle ({kind}):", " <-> ".join(map(rel, circle)))
        for path, names in sorted(outside.items()):
            print("names a benchmark:", rel(path), sorted(set(names)))
        for path, name, length in long:
            print(f"long: {rel(path)} {name} {length}")
        for name in sorted(unresolved):
            print("unresolved:", name)


if __name__ == "__main__":
    main()
