"""JSON out of a model's reply, robustly: fences, prose around it, and repair of broken JSON."""

from __future__ import annotations

import json
import logging
import re
from typing import Any

import json_repair

logger = logging.getLogger(__name__)


_FENCE = re.compile(r"^\s*```[\w-]*\s*\n?(.*?)\n?\s*```", re.DOTALL)


def parse_json(text: str) -> dict[str, Any] | list[Any] | None:
    """Parse a JSON object or array out of a model's reply, robustly.

    Tries, in order: the text as is (minus code fences); the first object or array in it, ignoring
    prose before and after; ``json_repair`` (trailing commas, single quotes, truncated replies).

    Args:
        text: The reply.

    Returns:
        The parsed dict or list, or None when no object or array can be recovered (scalars such as
        ``42`` or ``"yes"`` count as not recovered).
    """
    if not text or not text.strip():
        return None
    fenced = _FENCE.search(text)
    candidate = (fenced.group(1) if fenced else text).strip()
    try:
        value = json.loads(candidate)
        if isinstance(value, dict | list):
            return value
    except ValueError:
        pass
    decoder = json.JSONDecoder()
    for match in re.finditer(r"[\{\[]", candidate):
        try:
            value, _ = decoder.raw_decode(candidate, match.start())
        except ValueError:
            continue
        if isinstance(value, dict | list):
            return value
    try:
        value = json_repair.loads(candidate)
    except Exception:  # json_repair is best-effort; any crash in it just means "not recoverable"
        logger.debug("json_repair raised on %r", candidate[:200], exc_info=True)
        return None
    # json_repair returns "" for prose and scalars for scalar input; an empty list means "found nothing".
    if isinstance(value, dict) or (isinstance(value, list) and value):
        return value
    return None
