"""One family of errors for user mistakes: the CLI prints them in one line, not as a traceback."""

from __future__ import annotations


class MemsuiteError(Exception):
    """Base class of every error memsuite raises on purpose."""


class ConfigError(MemsuiteError, ValueError):
    """A config file, flag or registry name is wrong."""


class DatasetError(MemsuiteError, ValueError):
    """A benchmark file is malformed; the message names file, line or record, and field."""


class EndpointError(MemsuiteError):
    """A configured LLM endpoint did not answer the check a run sends before any work."""


class InvalidInputError(MemsuiteError, ValueError):
    """An argument to a memory system is unusable (empty text, bad k, ...); nothing was changed."""


class UnknownMemoryError(MemsuiteError, KeyError):
    """A memory id does not exist in the given namespace; nothing was changed."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


class SystemTimeoutError(MemsuiteError, TimeoutError):
    """A memory system gave no answer within its deadline: the unit that called it fails by this name,
    the run goes on with the other units, and a rerun of the same command redoes that unit."""

    def __init__(self, system: str, seconds: float, verb: str, detail: str = "") -> None:
        self.system, self.seconds, self.verb = system, seconds, verb
        suffix = f" ({detail})" if detail else ""
        super().__init__(f"system {system!r} gave no answer within {seconds:g} s in {verb}{suffix}")


class MissingDependencyError(MemsuiteError, ImportError):
    """An optional package is missing; the message names the extra to install."""


def require(module: str, *, extra: str, purpose: str):
    """Import an optional module or raise an error that says how to install it.

    Args:
        module: Dotted module name to import.
        extra: The memsuite extra that provides it.
        purpose: What needs it, for the message.

    Returns:
        The imported module.

    Raises:
        MissingDependencyError: When the import fails.
    """
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingDependencyError(
            f"{purpose} needs the package providing '{module}'; install it with "
            f"pip install 'memsuite-bench[{extra}]' (or run make install). Import error: {exc}"
        ) from exc
