"""Install the worked example memory system of docs/extending.md the way a user's package would be.

docs/extending.md ("A memory system") shows a module and the entry point that registers it. At
collection time :func:`install` writes that module and a ``.dist-info`` folder carrying that entry
point into a temporary folder on ``sys.path``, so ``importlib.metadata`` finds it exactly as it finds
an installed package; the registry then picks the system up, and every contract test (parametrized
over the registered systems) runs against it. An edit of the page that breaks the example fails the suite.
"""

from __future__ import annotations

import atexit
import re
import shutil
import sys
import tempfile
import tomllib
from pathlib import Path

PAGE = Path(__file__).resolve().parents[1] / "docs" / "extending.md"
SECTION = "## A memory system"
ENTRY_POINT_GROUP = "memsuite.systems"


def page_blocks(language: str, page: Path = PAGE) -> list[str]:
    """The ``language`` code blocks of the page's section that documents new memory systems."""
    text = page.read_text(encoding="utf-8")
    start = text.index(SECTION)
    end = text.find("\n## ", start)
    section = text[start : end if end != -1 else len(text)]
    return re.findall(rf"```{language}\n(.*?)```", section, flags=re.DOTALL)


def example_entry_points() -> dict[str, str]:
    """The page's entry points of the group ``memsuite.systems``: name -> ``module:attribute``."""
    (toml,) = page_blocks("toml")
    return tomllib.loads(toml)["project"]["entry-points"][ENTRY_POINT_GROUP]


def install() -> dict[str, str]:
    """Write the example module and its distribution metadata onto ``sys.path``; its entry points."""
    (code,) = page_blocks("python")
    entry_points = example_entry_points()
    modules = {value.split(":")[0] for value in entry_points.values()}
    (module,) = modules  # the page shows one module
    root = Path(tempfile.mkdtemp(prefix="memsuite-extending-example-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    (root / f"{module}.py").write_text(code, encoding="utf-8")
    dist = root / "memsuite_extending_example-0.0.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: memsuite-extending-example\nVersion: 0.0.0\n", encoding="utf-8"
    )
    lines = [f"[{ENTRY_POINT_GROUP}]", *(f"{name} = {value}" for name, value in entry_points.items())]
    (dist / "entry_points.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    sys.path.insert(0, str(root))
    return entry_points
