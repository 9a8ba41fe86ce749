"""Registries: name -> factory, filled by decorators, built-in modules and entry points.

One mechanism (:class:`Registry`) serves memory systems here, and benchmarks and judges in ``eval``
(which depends on this package, never the other way). Built-in and third-party entries register the
same way: an entry point in the registry's group (``memsuite.systems``, ``memsuite.benchmarks``)
whose value is either a module (importing it runs :meth:`Registry.register` decorators) or a
factory callable (registered under the entry point's name). A duplicate name fails loudly; an
unknown name gets the closest match and the full list.
"""

from __future__ import annotations

import difflib
import importlib
import inspect
import logging
import threading
from collections.abc import Callable, Mapping
from importlib.metadata import entry_points
from types import ModuleType
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from memsuite.memory_systems.errors import ConfigError

if TYPE_CHECKING:  # the contract imports the registry (MemorySystem.load finds a class by name)
    from memsuite.memory_systems.base import MemorySystem

logger = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "memsuite.systems"

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])


class Registry(Generic[T]):
    """Name -> entry of one kind (a factory, a judge), with lazy built-ins and entry points.

    Args:
        kind: What the entries are, for messages ("memory system", "benchmark", "meme judge").
        group: Entry-point group loaded on first lookup, or None.
        builtins: Built-in name -> module that registers it when imported, imported only when that
            name is asked for (a built-in with a missing optional dependency never blocks the others).
    """

    def __init__(self, kind: str, *, group: str | None = None, builtins: Mapping[str, str] | None = None):
        self.kind = kind
        self.group = group
        self.builtins = dict(builtins or {})
        self._entries: dict[str, T] = {}
        self._loaded = group is None
        self._lock = threading.RLock()

    def register(self, name: str) -> Callable[[F], F]:
        """Decorator: register ``entry`` as ``name`` (registering the same object again is a no-op)."""

        def decorate(entry: F) -> F:
            with self._lock:
                existing = self._entries.get(name)
                if existing is not None and existing is not entry:
                    raise ConfigError(
                        f"{self.kind} name {name!r} is registered twice ({existing!r} and {entry!r})"
                    )
                self._entries[name] = entry  # type: ignore[assignment]
            return entry

        return decorate

    def _load_entry_points(self) -> None:
        with self._lock:
            if self._loaded:
                return
            self._loaded = True
        for ep in entry_points(group=self.group):
            loaded = ep.load()
            if not isinstance(loaded, ModuleType) and ep.name not in self._entries:
                self.register(ep.name)(loaded)

    def _import_builtin(self, name: str) -> None:
        if name in self._entries or name not in self.builtins:
            return
        try:
            importlib.import_module(self.builtins[name])
        except ModuleNotFoundError as exc:
            raise ConfigError(f"{self.kind} {name!r} is not available in this install: {exc}") from exc

    def names(self) -> list[str]:
        """Names of every entry (registered, built-in and from entry points), sorted."""
        self._load_entry_points()
        return sorted(set(self._entries) | set(self.builtins))

    def get(self, name: str) -> T:
        """The entry registered as ``name``.

        Raises:
            ConfigError: Unknown name (the message suggests the closest match and lists all names), or
                a built-in that cannot be imported in this install.
        """
        self._load_entry_points()
        self._import_builtin(name)
        try:
            return self._entries[name]
        except KeyError:
            known = self.names()
            close = difflib.get_close_matches(name, known, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ConfigError(f"unknown {self.kind} {name!r}{hint}; known: {', '.join(known)}") from None

    def __contains__(self, name: str) -> bool:
        return name in self.names()


#: The memory systems: name -> factory (a MemorySystem class or a function returning one).
SYSTEMS: Registry[Callable[..., MemorySystem]] = Registry("memory system", group=ENTRY_POINT_GROUP)

Factory = Callable[..., "MemorySystem"]


def register(name: str) -> Callable[[F], F]:
    """Decorator: register a factory (a MemorySystem class or a function returning one) as ``name``."""
    return SYSTEMS.register(name)


def system_names() -> list[str]:
    """Names of all registered systems, sorted."""
    return SYSTEMS.names()


def get_factory(name: str) -> Factory:
    """The factory registered as ``name``.

    Raises:
        ConfigError: Unknown name; the message suggests the closest match and lists all names.
    """
    return SYSTEMS.get(name)


def accepted_resources(factory: Factory, resources: dict[str, Any]) -> dict[str, Any]:
    """The subset of shared ``resources`` (embedder, llm, ...) that ``factory`` takes as keywords."""
    parameters = inspect.signature(factory).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return dict(resources)
    return {key: value for key, value in resources.items() if key in parameters}


def get_system(name: str, *, resources: dict[str, Any] | None = None, **kwargs: Any) -> MemorySystem:
    """Build the system registered as ``name``.

    Args:
        name: Registry name.
        resources: Shared objects (``embedder``, ``llm``) handed to the factory only if its signature
            takes them, so one embedder is loaded once and shared by every system of a run.
        **kwargs: The system's own settings.

    The instance is tagged with ``registry_name`` and ``registry_args`` so a run record says how it
    was built.
    """
    factory = get_factory(name)
    system = factory(**{**accepted_resources(factory, resources or {}), **kwargs})
    system.registry_name = name  # type: ignore[attr-defined]
    system.registry_args = {k: v for k, v in kwargs.items() if isinstance(v, (str, int, float, bool))}  # type: ignore[attr-defined]
    return system
