"""REALTALK's evidence citations read by one documented rule.

The release's ``evidence`` strings are written by hand: trailing dots (``D5:3.``), several ids in one
string (``D5:12;D5:16``, ``D1:11; D3:18``, ``D13:4. D14:4``), ranges (``D12:3-D12:5``), spaces
(``D 2:18``), ids run together (``D13:45:D20:19``), typos (``D:56``, ``D58``, ``23:29``, ``D17;39``),
and ids of messages removed in cleaning. Each string is read alone:

1. every whitespace character is removed;
2. a range ``Da:b-Da:c`` or ``Da:b-c`` cites every id ``Da:i`` (b <= i <= c) the chat holds; a range
   across two sessions, ``Da:b-Dx:c``, cites its two ends ``Da:b`` and ``Dx:c`` only; the range is
   then taken out of the string;
3. every ``Da:b`` left in the string cites ``Da:b`` (numbers as written).

Anything else (``D:56``, ``D58``, ``23:29``) cites nothing. A cited id the chat holds is *relevant*;
one it does not hold is *dangling*: listed per question, counted, never scored. Ids are kept once, in
citation order. A question with no relevant id is not scored for retrieval.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable

_RANGE = re.compile(r"D(\d+):(\d+)-(?:D(\d+):)?(\d+)")
_ID = re.compile(r"D(\d+):(\d+)")
_SPACE = re.compile(r"\s+")


def cited_ids(evidence: str, held: Collection[str]) -> list[str]:
    """The ids one evidence string cites (module docstring), in order, repeats kept.

    Args:
        evidence: One released evidence string.
        held: Every ``dia_id`` of the chat (a range cites only those it holds).
    """
    text = _SPACE.sub("", evidence)
    found: list[tuple[int, list[str]]] = []

    def take_range(match: re.Match[str]) -> str:
        session, start, other, end = match[1], int(match[2]), match[3], int(match[4])
        if other is not None and other != session:
            ids = [f"D{session}:{start}", f"D{other}:{end}"]
        else:
            ids = [f"D{session}:{i}" for i in range(start, end + 1) if f"D{session}:{i}" in held]
        found.append((match.start(), ids))
        return " " * (match.end() - match.start())  # keeps later positions, separates what follows

    rest = _RANGE.sub(take_range, text)
    found += [(m.start(), [f"D{m[1]}:{m[2]}"]) for m in _ID.finditer(rest)]
    return [i for _, ids in sorted(found, key=lambda f: f[0]) for i in ids]


def resolve(evidence: Iterable[str], held: Collection[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``(relevant, dangling)`` of a question's evidence strings: the cited ids the chat holds and
    those it does not, each once, in citation order."""
    cited = dict.fromkeys(i for string in evidence for i in cited_ids(string, held))
    return tuple(i for i in cited if i in held), tuple(i for i in cited if i not in held)
