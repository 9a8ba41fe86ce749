"""The fenced code blocks of README.md and docs/**/*.md, for tests/test_docs.py."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

#: The info strings a block may carry; tests/test_docs.py says what each one means.
INFO_STRINGS = frozenset({"python", "bash", "console", "toml", "yaml", "text"})
_FENCE = re.compile(r"^```(.*)$")


@dataclass(frozen=True)
class Block:
    path: Path
    line: int  # the opening fence's line, 1-based
    info: str
    text: str

    @property
    def where(self) -> str:
        return f"{self.path.name}:{self.line}"


def pages(repo: Path) -> list[Path]:
    """README.md and every Markdown page under docs/."""
    return [repo / "README.md", *sorted((repo / "docs").rglob("*.md"))]


def blocks(page: Path) -> list[Block]:
    """Every fenced block of ``page``, in order."""
    found: list[Block] = []
    opened: tuple[int, str] | None = None
    body: list[str] = []
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        match = _FENCE.match(line)
        if opened is None and match:
            opened, body = (number, match.group(1).strip()), []
        elif opened is not None and line.rstrip() == "```":
            found.append(Block(page, opened[0], opened[1], "\n".join(body) + "\n"))
            opened = None
        elif opened is not None:
            body.append(line)
    return found


def hidden_code(page: Path) -> list[str]:
    """Code the block test would not see: an indented code block, a fence not at the line's start, an
    unclosed fence."""
    problems: list[str] = []
    inside = False
    previous = ""
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("```"):
            inside = not inside or line.rstrip() != "```"  # inside, only a bare fence closes
        elif not inside and line.lstrip().startswith("```"):
            problems.append(f"line {number}: an indented fence")
        elif not inside and not previous.strip() and re.match(r"( {4}|\t)\S", line):
            problems.append(f"line {number}: an indented code block (use a fenced block)")
        previous = line
    if inside:
        problems.append("a fence is never closed")
    return problems


def all_blocks(repo: Path) -> list[Block]:
    """Every block of every page."""
    return [block for page in pages(repo) for block in blocks(page)]
