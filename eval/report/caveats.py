"""How a number was made, for every benchmark's tables: rows a rate left out because an LLM call
failed, questions whose context was the system's whole memory (so retrieval made no choice), and rows
whose LLM calls the gold-backed oracle answered (ceilings, not model results).

The first two are per cell: a renderer puts the count in a column (kept in the CSV) and a mark on the cell
(:attr:`~memsuite.eval.report.model.Table.marks`, Markdown only), and adds the matching note under the table.
An oracle ceiling is per run: its rows' system names say so (:func:`oracle_system`), in the CSV too.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import Any

from memsuite.eval.protocol import Row
from memsuite.eval.run.folder import RunFolder

LEFT_OUT_NOTE = (
    "left out: rows whose answer or judge call failed (verdict correct = None with a failure; "
    "summary.json n_failed) are left out of their cell's rate -- never counted wrong -- so that rate "
    "covers fewer questions; a cell marked '(N left out)' lost N rows."
)
#: Appended to a cell whose rows include questions asked of a memory that held <= k items.
WHOLE_MEMORY_MARK = " †"


def left_out_mark(n: Any) -> str:
    """The Markdown mark of a cell that lost ``n`` rows to failed calls ("" when none)."""
    return f" ({int(n)} left out)" if isinstance(n, int | float) and n else ""


def count_text(counts: Mapping[str, Any]) -> str:
    """Non-zero counts as "Agg 2, Del 1" (empty when every count is zero)."""
    return ", ".join(f"{key} {int(n)}" for key, n in counts.items() if isinstance(n, int | float) and n)


def left_out_note(any_left_out: bool) -> tuple[str, ...]:
    """:data:`LEFT_OUT_NOTE` when some cell lost rows, else nothing."""
    return (LEFT_OUT_NOTE,) if any_left_out else ()


def whole_memory_counts(
    rows: Iterable[Row], key: Callable[[Row], Hashable]
) -> dict[Hashable, tuple[int, int]]:
    """Per ``key(row)``: (rows whose context was the whole memory, rows that record the flag).

    The flag is ``metadata.context_is_whole_memory`` (:func:`memsuite.eval.answer.memory_flags`): the memory
    held at most k items at question time. Rows without it (a system that cannot list its memory) are not
    counted.
    """
    counts: dict[Hashable, list[int]] = defaultdict(lambda: [0, 0])
    for row in rows:
        flag = row.metadata.get("context_is_whole_memory")
        if flag is None:
            continue
        counts[key(row)][0] += bool(flag)
        counts[key(row)][1] += 1
    return {k: (flagged, recorded) for k, (flagged, recorded) in counts.items()}


def whole_memory_text(counts: Mapping[Hashable, tuple[int, int]], order: Iterable[Hashable]) -> str:
    """Counts of :func:`whole_memory_counts` as "ER 3/3, Cas 1/2" in ``order`` (flagged keys only)."""
    return ", ".join(f"{k} {counts[k][0]}/{counts[k][1]}" for k in order if counts.get(k, (0, 0))[0])


def whole_memory_mark(counts: Mapping[Hashable, tuple[int, int]], key: Hashable | None = None) -> str:
    """:data:`WHOLE_MEMORY_MARK` when the cell of ``key`` (any cell when None) has a flagged row."""
    if key is None:
        return WHOLE_MEMORY_MARK if any(flagged for flagged, _ in counts.values()) else ""
    return WHOLE_MEMORY_MARK if counts.get(key, (0, 0))[0] else ""


def whole_memory_note(flagged: int, recorded: int) -> str:
    """The note under a table with marked cells: how many questions, and why it matters."""
    return (
        f"†: context = whole memory for {flagged} of {recorded} questions (column 'whole memory': "
        "flagged / questions per cell): the system's memory held at most k items when asked, so the "
        "context was everything it had -- retrieval was not a choice and those rows do not test it."
    )


#: Says what a row of a run served by the oracle LLM endpoint is (eval/oracle/).
ORACLE_CEILING = "oracle ceiling"
ORACLE_NOTE = (
    "oracle ceiling: a run whose LLM calls (the roles named) were answered from the benchmark's gold by "
    "the oracle endpoint (eval/oracle/), not by a model: its rows are ceilings -- what the system's own "
    "storage, update and retrieval keep when its LLM is perfect -- never model results."
)


def oracle_roles(run: RunFolder, system: str | None = None) -> list[str]:
    """The LLM roles the oracle endpoint served in ``run`` (empty for a run with model LLMs only).

    With ``system``: empty too when only its internal LLM was the oracle and it made no LLM call (bm25
    beside the libraries), since nothing of its rows came from gold; gold answers serve every system.
    """
    roles = list((run.header.get("oracle_llm") or {}).get("roles") or [])
    if system is None or "answer" in roles:
        return roles
    calls = ((run.summary.get(system) or {}).get("usage") or {}).get("llm_calls")
    return roles if calls else []


def oracle_from(run: RunFolder, system: str | None = None) -> str:
    """What made an oracle-served run's (or system's) rows: ``oracle ceiling (answer, internal)``."""
    return f"{ORACLE_CEILING} ({', '.join(oracle_roles(run, system))})"


def oracle_system(run: RunFolder, system: str) -> str:
    """A system's name in a table, saying it is a ceiling when the oracle served its calls, so the row
    says so wherever the table is read."""
    return f"{system} ({oracle_from(run, system)})" if oracle_roles(run, system) else system
