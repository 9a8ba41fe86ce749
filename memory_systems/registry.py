"""Registry of memory systems: name -> factory.

Built-in systems and third-party ones register the same way: an entry point in the group
``memsuite.systems`` whose value is either a module (importing it runs :func:`register` decorators)
or a factory callable (registered under the entry point's name). A duplicate name fails loudly; an
unknown name gets the closest match and the full list.
"""

from __future__ import annotations

import difflib
import inspect
import logging
from collections.abc import Callable
from importlib.metadata import entry_points
from types import ModuleType
from typing import Any, TypeVar

from memory_systems.base import MemorySystem
from memory_systems.errors import ConfigError

logger = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "memsuite.systems"

Factory = Callable[..., MemorySystem]
F = TypeVar("F", bound=Factory)

_FACTORIES: dict[str, Factory] = {}
_entry_points_loaded = False


def register(name: str) -> Callable[[F], F]:
    """Decorator: register a factory (a MemorySystem class or a function returning one) as ``name``."""

    def decorate(factory: F) -> F:
        existing = _FACTORIES.get(name)
        if existing is not None and existing is not factory:
            raise ConfigError(
                f"memory system name {name!r} is registered twice ({existing!r} and {factory!r})"
            )
        _FACTORIES[name] = factory
        return factory

    return decorate


def _load_entry_points() -> None:
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        loaded = ep.load()
        if not isinstance(loaded, ModuleType) and ep.name not in _FACTORIES:
            register(ep.name)(loaded)


def system_names() -> list[str]:
    """Names of all registered systems, sorted."""
    _load_entry_points()
    return sorted(_FACTORIES)


def get_factory(name: str) -> Factory:
    """The factory registered as ``name``.

    Raises:
        ConfigError: Unknown name; the message suggests the closest match and lists all names.
    """
    _load_entry_points()
    try:
        return _FACTORIES[name]
    except KeyError:
        close = difflib.get_close_matches(name, _FACTORIES, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ConfigError(
            f"unknown memory system {name!r}{hint}; known: {', '.join(sorted(_FACTORIES))}"
        ) from None


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
