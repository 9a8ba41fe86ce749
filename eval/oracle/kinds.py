"""Prompt kinds the oracle endpoint serves: how each is recognised, pinned and answered.

A :class:`PromptKind` recognises a request by *markers*: stable substrings of the caller's own prompt
source, every one of which must occur in the request's messages. A kind made by a third-party library
names the library and the version its markers were read from; :func:`check_kinds` refuses to serve
when that library is installed at another version, or when a marker no longer occurs in the installed
library's source (a changed prompt fails loudly at start-up, not as a silent wrong reply).
"""

from __future__ import annotations

import importlib.metadata
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from memsuite.eval.oracle.gold import UnitGold
from memsuite.memory_systems.errors import ConfigError


class Unservable(Exception):
    """A recognised prompt the oracle cannot answer from gold (no unit, no matching session or
    question): the call fails with an HTTP error, counted by the client, never a made-up reply."""


@dataclass(frozen=True)
class OracleRequest:
    """One chat-completion request as a reply builder sees it."""

    messages: list[dict[str, Any]]
    body: dict[str, Any]
    """The whole request body (``response_format``, ``tools`` ...)."""
    account: str
    """The caller's account (``<system>@<unit>``), from the ``X-Memsuite-Account`` header; "" if none."""
    unit: UnitGold | None
    """The unit's gold, when the account names a unit the oracle knows."""
    seen: Callable[[str], int] = lambda key: 0
    """How many times this account asked about ``key`` before (counts this time too)."""

    def text(self, role: str | None = None) -> str:
        """The messages' contents joined by blank lines (only ``role``'s, when given)."""
        return "\n\n".join(
            str(m.get("content") or "") for m in self.messages if role is None or m.get("role") == role
        )

    def need_unit(self) -> UnitGold:
        """The unit's gold, or :class:`Unservable` naming the account."""
        if self.unit is None:
            raise Unservable(f"no unit gold for account {self.account!r}: the oracle serves run units only")
        return self.unit


@dataclass(frozen=True)
class ToolCalls:
    """A reply made of function calls, sent as the message's ``tool_calls`` (several in one message, as
    a model's parallel calls are): for a caller that asks for any of several tools (``tool_choice``
    ``required`` or ``auto``) rather than forcing one. No calls at all is a plain empty message."""

    calls: tuple[tuple[str, dict[str, Any]], ...]
    """(function name, arguments) per call, in order."""


@dataclass(frozen=True)
class OwnPrompt:
    """One of memsuite's own prompt constants: the module that holds it and its name there.

    The text is read when the kinds are checked, not when they are declared, so what is checked is
    what the system sends at that moment.
    """

    module: ModuleType
    name: str

    def __post_init__(self) -> None:
        if not isinstance(getattr(self.module, self.name, None), str):
            raise TypeError(f"{self.module.__name__} has no prompt constant {self.name}")

    def text(self) -> str:
        return str(getattr(self.module, self.name))

    def __str__(self) -> str:
        return f"{self.module.__name__}:{self.name}"


@dataclass(frozen=True)
class PromptKind:
    """One kind of prompt: its markers, the library and version they come from, and its reply."""

    name: str
    """``<caller>.<call>``, e.g. ``mem0.extract``; recorded per served call."""
    markers: tuple[str, ...]
    """Substrings every request of this kind holds (all of them)."""
    reply: Callable[[OracleRequest], Any]
    """Builds the reply: a str is sent as it is, :class:`ToolCalls` as tool calls, anything else as JSON."""
    library: str | None = None
    """The distribution whose prompt this is (None: memsuite's own)."""
    version: str | None = None
    """The library version the markers were read from."""
    sources: tuple[str, ...] = ()
    """Files of the library's distribution (``mem0/configs/prompts.py``) whose text holds every marker
    (checked at start-up, read without importing the library)."""
    prompts: tuple[OwnPrompt, ...] = ()
    """memsuite's own prompt constants whose text holds every marker (checked at start-up: a reworded
    prompt is refused, not served a stale reply)."""
    gold_answer: bool = False
    """The reply is a question's gold answer (the answer ceiling), not extracted memory."""
    roles: tuple[str, ...] = field(default=("system", "user"))
    """Roles whose messages the markers are looked for in."""
    whole: bool = False
    """The messages' text must equal the one marker (a fixed prompt such as the preflight ping)."""

    def matches(self, request: OracleRequest) -> bool:
        text = "\n\n".join(
            str(m.get("content") or "") for m in request.messages if m.get("role") in self.roles
        )
        if self.whole:
            return text.strip() == self.markers[0]
        return all(marker in text for marker in self.markers)


@dataclass(frozen=True)
class PromptFamily:
    """Every prompt kind of one system module's LLM calls: what the oracle serves that module's systems."""

    systems: tuple[ModuleType, ...]
    """The modules whose registered systems send these prompts (an adapter, a native paradigm); none
    for prompts memsuite's driver sends (the benchmarks' answer prompts, the preflight ping)."""
    kinds: tuple[PromptKind, ...]
    """The kinds, most specific first."""

    @property
    def libraries(self) -> tuple[str, ...]:
        """The distributions whose prompts these are (their pins are checked when a run uses one)."""
        return tuple(dict.fromkeys(k.library for k in self.kinds if k.library is not None))

    def serves(self, module: str) -> bool:
        """Whether systems of the module named ``module`` send these prompts."""
        return any(system.__name__ == module for system in self.systems)


def render(reply: Any) -> str:
    """A reply as the completion's text (tool calls: their list as JSON, which is what is counted)."""
    if isinstance(reply, ToolCalls):
        return json.dumps([{"name": n, "arguments": a} for n, a in reply.calls], ensure_ascii=False)
    return reply if isinstance(reply, str) else json.dumps(reply, ensure_ascii=False)


#: Distributions installed in a venv of their own (a library that cannot share the project's): name ->
#: a function giving that venv's site-packages folders, where its version and sources are read.
OWN_VENV_LIBRARIES: dict[str, Callable[[], list[str]]] = {}


def _distribution(distribution: str) -> importlib.metadata.Distribution:
    paths = OWN_VENV_LIBRARIES.get(distribution)
    if paths is None:
        return importlib.metadata.distribution(distribution)
    found = next(iter(importlib.metadata.distributions(name=distribution, path=paths())), None)
    if found is None:
        raise importlib.metadata.PackageNotFoundError(distribution)
    return found


def installed_version(distribution: str) -> str | None:
    try:
        return _distribution(distribution).version
    except importlib.metadata.PackageNotFoundError:
        return None


def library_source(distribution: str, path: str) -> str:
    """The text of file ``path`` of an installed distribution, read without importing it (importing
    mem0 would start its telemetry before the adapter turns it off)."""
    return Path(str(_distribution(distribution).locate_file(path))).read_text("utf-8")


def check_kinds(kinds: Sequence[PromptKind], libraries: Sequence[str] | None = None) -> None:
    """Refuse to serve kinds whose library is installed at another version or whose markers are gone.

    Args:
        kinds: The kinds to serve.
        libraries: Check only kinds of these distributions (the ones a run's systems use); None: every
            kind whose library is installed.

    Raises:
        ConfigError: Naming the library, the installed and the pinned version, or the missing marker.
    """
    for kind in kinds:
        if kind.library is None:
            check_own_prompts(kind)
            continue
        if libraries is not None and kind.library not in libraries:
            continue
        installed = installed_version(kind.library)
        if installed is None:
            if libraries is None:
                continue
            raise ConfigError(
                f"oracle LLM: {kind.library} is not installed (its prompts are served at {kind.version})"
            )
        if installed != kind.version:
            raise ConfigError(
                f"oracle LLM: {kind.library} {installed} is installed, but the oracle recognises its prompts"
                f" at {kind.version} only ({kind.name}); install {kind.library}=={kind.version}"
            )
        source = "\n".join(library_source(kind.library, path) for path in kind.sources)
        for marker in kind.markers:
            if marker not in source and json.dumps(marker)[1:-1] not in source:
                raise ConfigError(
                    f"oracle LLM: marker {marker[:60]!r} of {kind.name} is not in {kind.library}"
                    f" {installed}'s source ({', '.join(kind.sources)}): the prompt changed, so the oracle"
                    " cannot recognise it"
                )


def check_own_prompts(kind: PromptKind) -> None:
    """Refuse a kind of memsuite's own whose markers are no longer in the prompt constants it names.

    Raises:
        ConfigError: Naming the kind, the marker and the constants.
    """
    if not kind.prompts:
        return
    source = "\n".join(prompt.text() for prompt in kind.prompts)
    for marker in kind.markers:
        if marker not in source:
            named = ", ".join(map(str, kind.prompts))
            raise ConfigError(
                f"oracle LLM: marker {marker[:60]!r} of {kind.name} is not in {named}:"
                " the prompt changed, so the oracle cannot recognise it"
            )


def first_line(messages: Sequence[dict[str, Any]]) -> str:
    """The first non-empty line of a request's messages: how an unrecognised prompt is named."""
    for message in messages:
        for line in str(message.get("content") or "").splitlines():
            if line.strip():
                return line.strip()[:160]
    return "(empty prompt)"
