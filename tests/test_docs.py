"""Every fenced block of README.md and docs/**/*.md is run or checked, so the docs cannot rot.

What each block's info string means (:mod:`docs_blocks` finds them; any other info string, a fence
without one, or an indented code block fails):

- ``python``: executed in a fresh namespace inside an empty folder that holds only ``configs/``. A
  block whose first line is ``# file: PATH`` is a copy of that repository file instead and must equal
  it (the file itself is run by its own tests).
- ``bash``: every command is checked without running it, because runs take minutes: ``memsuite`` (or
  ``python -m memsuite``) arguments must parse with memsuite's own parser, a config they name must load
  and pass validation (a dry run: nothing is computed; as on a machine that fetched every catalogue
  entry, so no real data is needed), catalogue names must exist; a ``make`` target is checked as the
  memsuite commands ``make -n`` prints; ``python perf/x.py`` and ``python -m perf.x`` scripts must
  exist. Listing commands that answer in a second (``systems``, ``benchmarks``, ``data list``,
  ``--version``) run for real. Any other program fails the test: such a block is ``text``.
- ``console``: ``$ memsuite ...`` lines run for real; the lines after each are its expected output,
  compared as doctest compares (``...`` stands for any text).
- ``toml`` and ``yaml``: parsed; a YAML block with a ``benchmark`` key is a run config and is validated.
- ``text``: shown, never run (output, layouts, commands of other programs); a deliberate choice.
"""

from __future__ import annotations

import contextlib
import doctest
import io
import os
import re
import shlex
import subprocess
import tomllib
from pathlib import Path

import docs_blocks
import pytest
import yaml

from memsuite.eval.cli.main import build_parser, main

REPO = Path(__file__).resolve().parents[1]
BLOCKS = docs_blocks.all_blocks(REPO)
#: memsuite subcommands that answer in about a second: run for real, not only parsed.
INSTANT = {("systems",), ("benchmarks",), ("data", "list")}
#: Subcommands whose CONFIG argument is a run config or an ablation file: loaded and validated.
CONFIG_COMMANDS = {"run": "", "ablate": "ablations", "llm": ""}


def _doc_lines(block: docs_blocks.Block) -> list[tuple[int, str]]:
    """The block's commands, continuation lines joined: (line number, command)."""
    commands: list[tuple[int, str]] = []
    pending, start = "", 0
    for offset, line in enumerate(block.text.splitlines()):
        if not pending:
            start = block.line + 1 + offset
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        command = (pending + line).strip()
        pending = ""
        if command and not command.startswith("#"):
            commands.append((start, command))
    return commands


def _argv(command: str) -> list[str]:
    """The command's words, without comments, a redirection or a pipe and what follows it."""
    words = shlex.split(command, comments=True)
    for i, word in enumerate(words):
        if word in {">", ">>", "|", "2>&1"} or word.startswith(">"):
            return words[:i]
    return words


def _run_memsuite(argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            code = main(argv)
        except SystemExit as exc:  # --version and argparse's errors exit
            code = exc.code if isinstance(exc.code, int) else 1
    return code, out.getvalue()


def _check_memsuite(argv: list[str], where: str, request: pytest.FixtureRequest) -> None:
    parser = build_parser()
    if argv == ["--version"]:
        code, output = _run_memsuite(argv)
        assert code == 0 and output.strip(), f"{where}: memsuite --version failed: {output}"
        return
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        try:
            args = parser.parse_args(argv)
        except SystemExit:
            pytest.fail(f"{where}: memsuite {shlex.join(argv)} does not parse: {err.getvalue().strip()}")
    words = tuple(w for w in argv if not w.startswith("-"))
    if words[:2] in INSTANT or words[:1] in INSTANT:
        code, output = _run_memsuite(argv)
        assert code == 0, f"{where}: memsuite {shlex.join(argv)} exited {code}: {output}"
    elif args.command == "data" and args.data_command in {"fetch", "verify", "path", "remove"}:
        from memsuite.eval.data.catalogue import get_dataset

        for name in getattr(args, "names", None) or [args.name]:
            get_dataset(name.split("/")[0])  # an unknown name raises, naming the known ones
    elif args.command in CONFIG_COMMANDS and getattr(args, "config", None):
        _dry_run(args, where, request)


def _dry_run(args, where: str, request: pytest.FixtureRequest) -> None:
    """Load and validate the command's config exactly as the command would, computing nothing."""
    from memsuite.eval.run.config import find_config, load_config, with_systems
    from memsuite.eval.study.ablation import load_ablation

    # A user's machine once `memsuite data fetch` has run: every catalogue file there (empty: validation
    # checks files exist, only the loaders read them) and no development copy, so no real data is needed.
    request.getfixturevalue("fetched_catalogue")
    path = find_config(args.config, CONFIG_COMMANDS[args.command])
    assert path.is_file(), f"{where}: no config {args.config}"
    if args.command == "ablate":
        path = load_ablation(path).base  # each variant is the base config with one key changed
    config = load_config(path, getattr(args, "set", None) or getattr(args, "overrides", None))
    if getattr(args, "systems", None):
        with_systems(config, args.systems.split(","))


def _check_make(targets: list[str], where: str, request: pytest.FixtureRequest) -> None:
    """A make target is checked as the memsuite commands its recipe runs (``make -n`` runs nothing)."""
    dry = subprocess.run(["make", "-n", *targets], cwd=REPO, capture_output=True, text=True, check=False)
    assert dry.returncode == 0, f"{where}: make -n {shlex.join(targets)} fails: {dry.stderr.strip()}"
    for line in dry.stdout.splitlines():
        if re.match(r"\S*/memsuite\s", line):  # the recipe's other lines are shell, not memsuite's
            _check_memsuite(_argv(line)[1:], f"{where} (make {shlex.join(targets)}: {line})", request)


def _check_command(words: list[str], where: str, request: pytest.FixtureRequest) -> None:
    while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", words[0]):  # VAR=value prefixes
        words = words[1:]
    program, rest = words[0], words[1:]
    if program in {"memsuite", ".venv/bin/memsuite"}:
        _check_memsuite(rest, where, request)
    elif program in {"python", ".venv/bin/python"} and rest[:2] == ["-m", "memsuite"]:
        _check_memsuite(rest[2:], where, request)
    elif program in {"python", ".venv/bin/python"} and rest[:1] == ["-m"]:
        script = REPO / (rest[1].replace(".", "/") + ".py")
        assert script.is_file(), f"{where}: no module {rest[1]} ({script})"
    elif program in {"python", ".venv/bin/python"}:
        assert (REPO / rest[0]).is_file(), f"{where}: no script {rest[0]}"
    elif program == "make":
        _check_make(rest, where, request)
    else:
        pytest.fail(f"{where}: {program!r} is not a command this test can check; make the block ```text")


def _check_bash(block: docs_blocks.Block, request: pytest.FixtureRequest) -> None:
    commands = _doc_lines(block)
    assert commands, f"{block.where}: an empty bash block"
    for line, command in commands:
        _check_command(_argv(command), f"{block.path}:{line}", request)


def _check_console(block: docs_blocks.Block) -> None:
    checker = doctest.OutputChecker()
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    sessions = re.split(r"^\$ ", block.text, flags=re.M)
    assert not sessions[0].strip(), f"{block.where}: a console block starts with a `$ ` command"
    for session in sessions[1:]:
        command, _, expected = session.partition("\n")
        words = _argv(command)
        assert words[0] == "memsuite", f"{block.where}: only memsuite commands run in a console block"
        code, output = _run_memsuite(words[1:])
        assert code == 0, f"{block.where}: `{command}` exited {code}: {output}"
        assert checker.check_output(expected, output, flags), (
            f"{block.where}: `{command}` printed\n{output}\nwhich does not match the docs:\n{expected}"
        )


def _check_python(block: docs_blocks.Block, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = block.text.splitlines()[0]
    if first.startswith("# file: "):
        path = REPO / first.removeprefix("# file: ").strip()
        assert path.is_file(), f"{block.where}: no file {path}"
        shown = block.text.split("\n", 1)[1]
        assert shown == path.read_text(encoding="utf-8"), f"{block.where}: differs from {path}"
        return
    (tmp_path / "configs").symlink_to(REPO / "configs")  # the paths a reader's checkout has
    monkeypatch.chdir(tmp_path)
    code = compile(block.text, block.where, "exec")
    exec(code, {"__name__": "__docs__"})


def _check_yaml(block: docs_blocks.Block, request: pytest.FixtureRequest) -> None:
    data = yaml.safe_load(block.text)
    if isinstance(data, dict) and "benchmark" in data:
        from memsuite.eval.run.config import config_from_dict

        request.getfixturevalue("fetched_catalogue")
        config_from_dict(data, source=block.where)


@pytest.mark.parametrize("block", BLOCKS, ids=[b.where for b in BLOCKS])
def test_every_block_runs_or_checks(block, request, tmp_path, monkeypatch):
    assert block.info in docs_blocks.INFO_STRINGS, (
        f"{block.where}: info string {block.info!r}; use one of {sorted(docs_blocks.INFO_STRINGS)}"
    )
    if block.info == "python":
        _check_python(block, tmp_path, monkeypatch)
    elif block.info == "bash":
        _check_bash(block, request)
    elif block.info == "console":
        _check_console(block)
    elif block.info == "toml":
        tomllib.loads(block.text)
    elif block.info == "yaml":
        _check_yaml(block, request)


@pytest.mark.parametrize("page", docs_blocks.pages(REPO), ids=lambda p: str(p.relative_to(REPO)))
def test_no_code_hides_from_the_block_test(page):
    """An indented code block or an unclosed fence would escape the test above."""
    problems = docs_blocks.hidden_code(page)
    assert not problems, f"{page}: {problems}"


@pytest.mark.parametrize("page", docs_blocks.pages(REPO), ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_resolves(page):
    text = page.read_text(encoding="utf-8")
    missing = [
        target
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
        if "://" not in target and not (page.parent / target).exists()
    ]
    assert not missing, f"{page}: links to nothing: {missing}"


def test_the_readme_is_a_page():
    assert len((REPO / "README.md").read_text(encoding="utf-8").splitlines()) <= 200


def test_every_listed_benchmark_has_its_page():
    from memsuite.eval.registry import BUILTIN_PACKAGE, declarations

    # The shipped benchmarks: a test module may declare a benchmark of its own in this process.
    shipped = [n for n, d in declarations().items() if d.define.__module__.startswith(BUILTIN_PACKAGE)]
    assert len(shipped) >= 7, shipped
    missing = [n for n in shipped if not (REPO / "docs" / "benchmarks" / f"{n}.md").is_file()]
    assert not missing, f"docs/benchmarks/ has no page for {missing}"


def test_the_checks_catch_rot(tmp_path, request):
    """The checks are not vacuous: a wrong flag, a missing target or another program fails."""
    for text in ("memsuite run meme_quick --no-such-flag\n", "make no-such-target\n", "ray start\n"):
        block = docs_blocks.Block(tmp_path / "x.md", 1, "bash", text)
        with pytest.raises((AssertionError, pytest.fail.Exception)):
            _check_bash(block, request)
    console = docs_blocks.Block(tmp_path / "x.md", 1, "console", "$ memsuite systems\nno such system\n")
    with pytest.raises(AssertionError):
        _check_console(console)
    assert os.environ.get("MEMSUITE_DATA")  # the tests' own data cache, never the user's
