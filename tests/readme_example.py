"""Install the README's worked example memory system the way a user's package would be installed.

The README ("Adding a memory system") shows a module and the entry point that registers it. At
collection time :func:`install` writes that module and a ``.dist-info`` folder carrying that entry
point into a temporary folder on ``sys.path``, so ``importlib.metadata`` finds it exactly as it finds
an installed package; the registry then picks the system up, and every contract test (parametrized
over the registered systems) runs against it. A README edit that breaks the example fails the suite.
"""

from __future__ import annotations

import atexit
import re
import shutil
import sys
import tempfile
import tomllib
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"
SECTION = "### Adding a memory system"
ENTRY_POINT_GROUP = "memsuite.systems"


def readme_blocks(language: str, readme: Path = README) -> list[str]:
    """The ``language`` code blocks of the README section that documents new memory systems."""
    text = readme.read_text(encoding="utf-8")
    start = text.index(SECTION)
    end = text.find("\n## ", start)
    section = text[start : end if end != -1 else len(text)]
    return re.findall(rf"```{language}\n(.*?)```", section, flags=re.DOTALL)


def example_entry_points() -> dict[str, str]:
    """The README's entry points of the group ``memsuite.systems``: name -> ``module:attribute``."""
    (toml,) = readme_blocks("toml")
    return tomllib.loads(toml)["project"]["entry-points"][ENTRY_POINT_GROUP]


def install() -> dict[str, str]:
    """Write the example module and its distribution metadata onto ``sys.path``; its entry points."""
    (code,) = readme_blocks("python")
    entry_points = example_entry_points()
    modules = {value.split(":")[0] for value in entry_points.values()}
    (module,) = modules  # the README shows one module
    root = Path(tempfile.mkdtemp(prefix="memsuite-readme-example-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    (root / f"{module}.py").write_text(code, encoding="utf-8")
    dist = root / "memsuite_readme_example-0.0.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: memsuite-readme-example\nVersion: 0.0.0\n", encoding="utf-8"
    )
    lines = [f"[{ENTRY_POINT_GROUP}]", *(f"{name} = {value}" for name, value in entry_points.items())]
    (dist / "entry_points.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    sys.path.insert(0, str(root))
    return entry_points
