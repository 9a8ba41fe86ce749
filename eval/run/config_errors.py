"""Config error messages: the key path of a problem, an unknown key with its closest valid ones, and
pydantic's first validation error as one :class:`ConfigError` naming the source and the key."""

from __future__ import annotations

import difflib
import typing
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel

from memsuite.memory_systems.errors import ConfigError


def key_path(loc: Iterable[Any]) -> str:
    """``("systems", 1, "args", "k")`` -> ``systems[1].args.k``."""
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def unknown_key_message(key: str, valid: Iterable[str], noun: str = "key", of: str = "") -> str:
    """``unknown key 'x'; did you mean 'y'? (valid: ...)``, with up to two close matches.

    ``of`` follows the key (`` of benchmark 'meme'``).
    """
    valid = sorted(valid)
    close = difflib.get_close_matches(str(key), valid, n=2)
    # A qualified spelling of a valid key (top_k for k, max_turn for max_turns) is too short for difflib.
    words = set(str(key).split("_"))
    qualified = [v for v in valid if v not in close and (v in words or set(v.split("_")) < words)]
    close += qualified[: 2 - len(close)]
    hint = f"; did you mean {' or '.join(map(repr, close))}?" if close else ""
    listed = f" (valid: {', '.join(valid)})" if valid else " (it takes none)"
    return f"unknown {noun} {key!r}{of}{hint}{listed}"


def _model_at(model: Any, loc: tuple[Any, ...]) -> type[BaseModel] | None:
    """The model class whose field set the path ``loc`` lands in (for an unknown-key hint)."""
    current = model
    for part in loc:
        for arg in typing.get_args(current) or ():  # Optional[...] / tuple[X, ...] / list[X]
            if is_model(arg):
                current = arg
                break
        if isinstance(part, int):
            continue
        if not is_model(current) or part not in current.model_fields:
            return None
        current = current.model_fields[part].annotation
    for arg in (current, *(typing.get_args(current) or ())):
        if is_model(arg):
            return arg
    return None


def is_model(annotation: Any) -> bool:
    """Whether ``annotation`` is a pydantic model class."""
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def schema_error(
    errors: list[Any],
    model: type[BaseModel],
    *,
    source: str,
    prefix: tuple[Any, ...] = (),
    noun: str = "key",
) -> ConfigError:
    """One :class:`ConfigError` for the first problem pydantic found, with its key path.

    Args:
        errors: ``ValidationError.errors()``.
        model: The model that was validated (to list the valid keys next to an unknown one).
        source: The file (or other origin) of the data.
        prefix: Key path of the validated data inside the config (``("systems", 1, "args")``).
        noun: What an unknown key is called: key, argument, option.
    """
    # An unknown key first: a misspelt required key is reported as the misspelling, not as missing.
    errors = sorted(errors, key=lambda e: e["type"] != "extra_forbidden")
    error = errors[0]
    loc = tuple(error["loc"])
    path = key_path(prefix + loc)
    if error["type"] == "extra_forbidden":
        owner = _model_at(model, loc[:-1])
        valid = [f.alias or n for n, f in owner.model_fields.items()] if owner is not None else []
        message = unknown_key_message(loc[-1], valid, noun)
        # A top-level key is named in the message itself; a nested one by its whole path.
        return ConfigError(f"{source}: {path + ': ' if len(prefix + loc) > 1 else ''}{message}")
    if error["type"] == "missing":
        return ConfigError(f"{source}: missing required {noun} {path!r}")
    text = error["msg"].removeprefix("Value error, ")
    shown = "" if error["type"].startswith("value_error") else f" (got {error['input']!r})"
    more = f" [and {len(errors) - 1} more]" if len(errors) > 1 else ""
    return ConfigError(f"{source}: {path or 'config'}: {text}{shown}{more}")
