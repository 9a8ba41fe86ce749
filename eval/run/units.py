"""The unit loop of a run folder: units computed, written one by one, and the folder closed.

Both ``memsuite run`` (a unit: a fresh system over one benchmark unit) and ``memsuite rejudge`` (a
unit: stored answers judged again) write their folder through :func:`run_units`, so a folder's
contract -- the header's statuses, the error records, ``rows.jsonl`` and ``summary.json`` -- is kept
in one place.
"""

from __future__ import annotations

import logging
import sys
import time
import traceback
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import closing
from pathlib import Path
from typing import Any

from memsuite.eval.answer import failed_calls
from memsuite.eval.protocol import Row
from memsuite.eval.run.folder import RunFolder, UnitRecord, now_iso
from memsuite.eval.run.stopping import RunInterrupted, stop_on_signals
from memsuite.eval.summary import Summary, SystemSummary
from memsuite.memory_systems.progress import progress_bar
from memsuite.memory_systems.records import Usage

logger = logging.getLogger(__name__)

#: One unit's result: its record and its rows (none for an error record).
Finished = tuple[UnitRecord, list[Row]]
#: Computes the unit ``(system, unit_id)``.
Compute = Callable[[str, str], Finished]


def run_units(
    folder: RunFolder,
    header: dict[str, Any],
    todo: Sequence[tuple[str, str]],
    compute: Compute,
    *,
    benchmark: Any,
    workers: int = 1,
    show_progress: bool = True,
    desc: str = "",
    label: str = "",
    finished: Iterator[Finished] | None = None,
    stop_before_write: Callable[[], str | None] | None = None,
    stop_after_first: Callable[[UnitRecord, list[Row]], str | None] | None = None,
    before_close: Callable[[], None] | None = None,
) -> RunFolder:
    """Write ``header``, compute and write every unit of ``todo``, then close the folder.

    Only this thread writes the folder; a unit whose computation raises becomes an error record (and
    no rows). SIGINT or SIGTERM stops the loop: the units written so far stay, a rerun resumes.

    Args:
        folder: The run folder, prepared (:meth:`RunFolder.prepare`).
        header: The session's header, written first; ``header["units"]`` holds the unit counts.
        todo: The ``(system, unit_id)`` pairs to compute.
        compute: Computes one unit.
        benchmark: Summarizes a system's rows (``benchmark.summarize(rows)``) for ``summary.json``.
        workers: Units computed at once, on threads of this process.
        show_progress: Show a progress bar (units done / to do, ETA).
        desc: The progress bar's title.
        label: Shown in the progress bar before the last unit written.
        finished: The units computed elsewhere (Ray), yielded as each finishes, instead of ``compute``
            on threads.
        stop_before_write: Why to stop before writing the unit that just finished (it is left for a
            rerun); None to go on.
        stop_after_first: Why to stop once the first unit is written and done while others are left;
            None to go on.
        before_close: Called when every unit is written or the loop stopped, unless by a signal: the
            caller's last entries in ``header``.

    Returns:
        The folder, with ``rows.jsonl``, ``summary.json`` and the header's final ``status``:
        ``complete``; ``complete_with_errors`` (error records: ``errors``, or failed answer/judge
        calls: ``failed_calls``); ``stopped`` (``stop_reason``); ``interrupted`` (``signal`` names
        it, ``units.done_after_stop`` counts the units done).

    Raises:
        RunInterrupted: A signal arrived before the header was written (nothing was written).
    """
    errors, stop_reason, interrupt, started = 0, None, None, False
    with stop_on_signals():
        try:
            folder.write_header(header)
            started = True
            if finished is None:
                finished = on_threads(todo, compute, workers)
            errors, stop_reason = _write_units(
                folder,
                finished,
                len(todo),
                label=label,
                desc=desc,
                show_progress=show_progress,
                stop_before_write=stop_before_write,
                stop_after_first=stop_after_first,
            )
            if before_close is not None:
                before_close()
        except RunInterrupted as exc:
            if not started:  # this session wrote nothing: nothing to close
                raise
            interrupt = exc
    folder.write_all_rows()
    folder.write_summary(summarize(folder, benchmark).to_json())
    calls = failed_calls(folder.rows())
    status = "complete" if errors == 0 and not any(calls.values()) else "complete_with_errors"
    if interrupt is not None:
        status = "interrupted"
        header.update(signal=interrupt.signal_name)
        header["units"] = {**header["units"], "done_after_stop": len(folder.done_units())}
    elif stop_reason:
        status = "stopped"
        header["stop_reason"] = stop_reason
    header.update(status=status, finished_at=now_iso(), errors=errors, failed_calls=calls)
    folder.write_header(header)
    return folder


def say_resumed(out: Path, previous: dict[str, Any], total: int, todo: int) -> None:
    """Tell a resumed run's user what was already there: a finished run, or some units done."""
    if todo == 0 and previous.get("status") in ("complete", "complete_with_errors"):
        print(f"found a finished run in {out} (all {total} units done): nothing recomputed", file=sys.stderr)
    else:
        print(f"resuming {out}: {total - todo} of {total} units already done, {todo} to run", file=sys.stderr)


def unit_or_error(system: str, unit_id: str, compute: Compute) -> Finished:
    """``compute(system, unit_id)``, or an error record (and no rows) when it raises."""
    started = time.perf_counter()
    try:
        return compute(system, unit_id)
    except Exception as exc:  # one broken unit must not end a long run: record it and go on
        logger.error("%s on %s failed: %s", system, unit_id, exc)
        error = "".join(traceback.format_exception_only(exc)).strip()
        return UnitRecord(system, unit_id, "error", wall_s=time.perf_counter() - started, error=error), []


def on_threads(todo: Sequence[tuple[str, str]], compute: Compute, workers: int) -> Iterator[Finished]:
    """Each unit computed here, in order (one worker) or by a pool of threads, yielded as it finishes.

    Threads, not processes: units mostly wait on LLM endpoints, and they share what the caller loaded
    (an embedder, LLM clients). Closing the generator early cancels the units not started; units
    already running finish unwritten, and a rerun redoes them.
    """
    if workers <= 1:
        for system, unit_id in todo:
            yield unit_or_error(system, unit_id, compute)
        return
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="memsuite-unit") as pool:
        pending = [pool.submit(unit_or_error, system, unit_id, compute) for system, unit_id in todo]
        try:
            for future in as_completed(pending):
                yield future.result()
        finally:
            pool.shutdown(wait=False, cancel_futures=True)


def _write_units(
    folder: RunFolder,
    finished: Iterator[Finished],
    total: int,
    *,
    label: str,
    desc: str,
    show_progress: bool,
    stop_before_write: Callable[[], str | None] | None,
    stop_after_first: Callable[[UnitRecord, list[Row]], str | None] | None,
) -> tuple[int, str | None]:
    """Write each finished unit, with a progress bar; returns ``(error records, stop reason)``."""
    errors, written, stop_reason = 0, 0, None
    # Closing the executor's generator, however the loop ends, cancels the units not started.
    with closing(finished), progress_bar(total=total, desc=desc, enabled=show_progress) as bar:
        for record, rows in finished:
            stop_reason = stop_before_write() if stop_before_write is not None else None
            if stop_reason:
                break
            folder.append_unit(record, rows)
            errors += int(record.status != "done")
            written += 1
            bar.update(1)
            bar.set_postfix_str(", ".join(filter(None, [label, f"last {record.system} {record.unit_id}"])))
            if stop_after_first is not None and written == 1 and written < total and record.status == "done":
                stop_reason = stop_after_first(record, rows)
                if stop_reason:
                    break
    return errors, stop_reason


def summarize(folder: RunFolder, benchmark: Any) -> Summary:
    """Per system: the benchmark's scores over its rows, usage totals, unit counts and failed calls.

    ``failed_calls`` (``{"answer", "judge"}``) counts the LLM calls whose rows the scores leave out.
    """
    rows_by_system: dict[str, list[Row]] = defaultdict(list)
    for row in folder.rows():
        rows_by_system[row.system].append(row)
    usage_by_system: dict[str, Usage] = defaultdict(Usage)
    units_by_system: dict[str, dict[str, int]] = defaultdict(lambda: {"done": 0, "error": 0})
    wall_by_system: dict[str, float] = defaultdict(float)
    for unit in folder.units():
        units_by_system[unit.system][unit.status] = units_by_system[unit.system].get(unit.status, 0) + 1
        if unit.status == "done":
            usage_by_system[unit.system] = usage_by_system[unit.system] + Usage(**unit.usage)
            wall_by_system[unit.system] += unit.wall_s
    systems = sorted(set(rows_by_system) | set(units_by_system))
    entries = {
        system: SystemSummary(
            system,
            benchmark.summarize(rows_by_system[system]),
            usage_by_system[system],
            units_by_system[system],
            wall_by_system[system],
            failed_calls(rows_by_system[system]),
        )
        for system in systems
    }
    return Summary(entries)
