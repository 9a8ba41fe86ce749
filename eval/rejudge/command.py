"""``memsuite rejudge``: stored answers judged again, written as an ordinary run folder.

No memory system is built and no answer model is called: the answers come from SOURCE (a format of
:mod:`.formats`), the questions from the benchmark's data file (:mod:`.questions`), and the judges
are the benchmark's answer judges, run through the same step as a run's
(:func:`memsuite.eval.answer.judge`: the same failed-call rule).

Rows: from a memsuite run folder, each row is kept whole and gets the asked judges' verdicts (a
verdict of the same name is replaced); every other field is left as it was. From a published file,
a row per answer: ``question_id``, ``question``, ``gold`` (the benchmark file's), ``answer``,
``verdicts``, and ``metadata`` with the category or question type, ``published_verdict`` and
``published_judge`` (what the file says its official judge decided; None when it does not),
``published_judgments`` (every call of that judge, where the file keeps them) and ``source`` (file and
line or key). ``known_wrong`` (``--known-wrong``) declares every answer of SOURCE wrong by construction:
rows carry ``metadata.known_wrong: true``, and the agreement section adds each judge's leniency. The
system label is the source's name.

LLM judges run ``judge_repeats`` times: the first call is the verdict, and ``repeats`` holds every
call's ``correct``; repeats bypass the response cache (a cached reply would repeat itself).

The folder is written by a run's own unit loop (:func:`memsuite.eval.run.units.run_units`): unit by
unit (resumable: a rerun with the same source and judges skips the units done), a unit that raises
kept as an error record, SIGINT or SIGTERM ending it ``interrupted``, and then summarised by the
benchmark, so ``memsuite report`` renders it; its header records the source, the format, the judges
and the judge LLM under ``rejudge``.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import Any

from memsuite.eval.answer import Answer, judge
from memsuite.eval.data.shared import data_path
from memsuite.eval.definition import BenchmarkDefinition
from memsuite.eval.hooks import RejudgeQuestion, SourceAnswer
from memsuite.eval.protocol import Row, RunContext
from memsuite.eval.registry import check_judges, definition, definitions, get_benchmark
from memsuite.eval.rejudge.formats import formats_of, read_answers
from memsuite.eval.rejudge.questions import match_answers
from memsuite.eval.run.folder import RunFolder, UnitRecord, base_header, load_run
from memsuite.eval.run.runner import CODE_ROOT
from memsuite.eval.run.stopping import stop_on_signals
from memsuite.eval.run.units import run_units, say_resumed
from memsuite.memory_systems.errors import ConfigError

logger = logging.getLogger(__name__)


def question_reader(found: BenchmarkDefinition) -> Callable[[Path | None], list[RejudgeQuestion]]:
    """The question reader the benchmark's definition names (``BenchmarkDefinition.rejudge``).

    Raises:
        ConfigError: The benchmark cannot be rejudged (the message lists those that can).
    """
    if found.rejudge is None:
        can = [name for name, each in definitions().items() if each.rejudge is not None]
        raise ConfigError(
            f"benchmark {found.name!r} cannot be rejudged (no question reader); these can: {', '.join(can)}"
        )
    return found.rejudge


def _answer_of(source: SourceAnswer) -> Answer | None:
    """The answer as the judges take it; None for a row that never asked one (retrieval-only)."""
    row = source.row
    if row is not None:
        failure = row.usage.get("answer_failure")
        if failure:
            kind, _, message = str(failure).partition(": ")
            return Answer(None, failure=kind, message=message)
        return Answer(row.answer, data=row.answer) if row.answer is not None else None
    if source.answer is None:
        return Answer(None, failure="missing_answer", message=f"{source.where}: no answer in the file")
    return Answer(source.answer, data=source.answer)


def _judge_row(
    source: SourceAnswer,
    question: RejudgeQuestion,
    ctx: RunContext,
    *,
    llm_judges: Sequence[str],
    repeats: int,
    label: str,
    known_wrong: bool = False,
) -> Row:
    answer = _answer_of(source)
    base = source.row
    usage: dict[str, Any] = dict(base.usage) if base is not None else {}
    context = base.context if base is not None else ""
    verdicts = judge(ctx, question.case, answer, context, usage)
    repeated = [name for name in llm_judges if name in verdicts]
    if repeated and repeats > 1:
        again = replace(ctx, judges=tuple(repeated))
        calls = [verdicts]
        calls += [judge(again, question.case, answer, context, usage) for _ in range(repeats - 1)]
        for name in repeated:
            verdicts[name] = {**verdicts[name], "repeats": [c[name].get("correct") for c in calls]}
    if base is not None:
        row = Row(**{**base.to_dict(), "verdicts": {**base.verdicts, **verdicts}, "usage": usage})
        if known_wrong:
            row.metadata["known_wrong"] = True
        return row
    metadata = {
        **question.metadata,
        "published_verdict": source.published_verdict,
        "published_judge": source.published_judge,
        "source": source.where,
    }
    if source.published_judgments:
        metadata["published_judgments"] = list(source.published_judgments)
    if known_wrong:
        metadata["known_wrong"] = True
    return Row(
        system=label,
        benchmark=ctx.benchmark,
        unit_id=question.unit_id,
        question_id=question.question_id,
        question=question.question,
        gold=question.gold,
        context="",
        answer=source.answer,
        verdicts=verdicts,
        usage=usage,
        metadata=metadata,
    )


def _header(
    found: BenchmarkDefinition,
    source: Path,
    format_name: str,
    label: str,
    judges: Sequence[str],
    options: dict[str, Any],
) -> dict[str, Any]:
    if format_name == "memsuite_run":
        header = load_run(source).header
        config = dict(header.get("config") or {})
        config["judges"] = list(dict.fromkeys([*(config.get("judges") or []), *judges]))
        return {**header, "config": config}
    config = {
        "benchmark": found.name,
        "name": label,
        "systems": [{"name": label, "label": label}],
        "judges": list(judges),
        "answer_llm": None,
        "benchmark_options": options,
    }
    return {
        **base_header(config, CODE_ROOT, found.data),
        "answer_llm": None,
        "internal_llm": None,
        "judge_llm": None,
    }


def rejudge(
    source: Path | str,
    *,
    benchmark: str,
    out_dir: Path | str,
    data: Path | str | None = None,
    judges: Sequence[str] = ("rule",),
    judge_repeats: int = 1,
    judge_llm: Any = None,
    format_name: str | None = None,
    label: str | None = None,
    workers: int = 1,
    cache_dir: Path | None = None,
    restart: bool = False,
    show_progress: bool = True,
    known_wrong: bool = False,
) -> RunFolder:
    """Judge SOURCE's answers again and write the run folder ``out_dir`` (module docstring).

    Args:
        source: A run folder or a published answer file: a path, or a fetched catalogue file by name
            (``locomo_audit_answers/fc_gpt-4o-mini-memos.json``).
        benchmark: Whose questions and judges.
        out_dir: The run folder to write.
        data: The benchmark file; default the source run's, else the benchmark's default.
        judges: Answer judges to run (the benchmark defines them).
        judge_repeats: Calls per LLM judge and answer.
        judge_llm: LLM spec for LLM judges (as a config's ``judge_llm``).
        format_name: The source's format; default detected.
        label: System label of a published source's rows; default the file's name.
        workers: Rows judged at once (LLM judges wait on an endpoint).
        cache_dir: Root of the LLM response cache (single calls only).
        restart: Start ``out_dir`` over instead of resuming it.
        show_progress: Show a progress bar over units.
        known_wrong: Every answer of SOURCE is wrong by construction (an adversarial answer set): rows
            carry ``metadata.known_wrong``, and the agreement section reports each judge's leniency.

    Returns:
        The run folder; its header's ``status`` is that of a run (``complete``, ``complete_with_errors``
        or ``interrupted``: :func:`memsuite.eval.run.units.run_units`).

    Raises:
        ConfigError: Unknown benchmark, judge or format; a judge that does not judge answers; an LLM
            judge without ``judge_llm``; a run folder of another benchmark; ``out_dir`` holding another
            rejudge.
        DatasetError: A malformed source, or answers that match no question (all listed).
        RunInterrupted: A signal arrived before the header was written (nothing was written).
    """
    if not Path(source).exists():  # a catalogue name (a fetched published answer set) or a missing path
        source = data_path(str(source), benchmark=benchmark, option="source")
    source, out = Path(source), Path(out_dir)
    if judge_repeats < 1:
        raise ConfigError(f"--judge-repeats must be at least 1, got {judge_repeats}")
    specs = check_judges(benchmark, list(judges))
    for name, spec in zip(judges, specs, strict=True):
        if not spec.needs_answer:
            raise ConfigError(
                f"{benchmark} judge {name!r} judges retrieval, not answers: rejudge cannot run it"
            )
    found = definition(benchmark)
    read_questions = question_reader(found)
    # Every definition only to name the benchmark a format of another one serves.
    others = definitions() if format_name is not None and format_name not in formats_of(found) else None
    format_name, answers = read_answers(source, found, format_name, others)
    options: dict[str, Any] = {}
    if format_name == "memsuite_run":
        config = load_run(source).header.get("config") or {}
        if config.get("benchmark") != benchmark:
            raise ConfigError(f"{source} is a {config.get('benchmark')} run, not {benchmark}")
        options = dict(config.get("benchmark_options") or {})
    if data is not None:
        options["data"] = str(data)
    matched = match_answers(answers, read_questions(options.get("data")))
    llm_judges = [name for name, spec in zip(judges, specs, strict=True) if spec.uses_llm]
    uses_llm = bool(llm_judges)
    if uses_llm and judge_llm is None:
        raise ConfigError(f"judges {', '.join(judges)} include an LLM judge: give --judge-llm")
    label = label or source.stem
    block = {
        "source": str(source),
        "format": format_name,
        "judges": list(judges),
        "judge_repeats": judge_repeats,
        "data": options.get("data"),
    }
    if known_wrong:
        block["known_wrong"] = True
    folder = RunFolder(out)
    if restart:
        folder.clear()
    resumed = folder.header if folder.header_path.exists() else None
    if resumed is not None:
        previous = resumed.get("rejudge")
        if previous != block:
            raise ConfigError(
                f"{out} holds another run ({previous or 'not a rejudge'}); choose another --out or --restart"
            )
    units: dict[tuple[str, str], list[tuple[SourceAnswer, RejudgeQuestion]]] = defaultdict(list)
    for answer, question in matched:
        system = answer.row.system if answer.row is not None else label
        units[(system, question.unit_id)].append((answer, question))
    folder.prepare()
    done = folder.done_units()
    todo = [key for key in units if key not in done]
    if resumed is not None:
        say_resumed(out, resumed, len(units), len(todo))
    scorer = get_benchmark(benchmark, **options)  # summarizes the rows, as a run's benchmark does
    # As in a run: a signal before the header is written leaves the folder as it was.
    with stop_on_signals(), ExitStack() as stack:
        client = None
        if uses_llm:
            from memsuite.memory_systems.llm import open_llm

            cache = cache_dir if judge_repeats == 1 else None
            client = stack.enter_context(open_llm(judge_llm, cache_dir=cache))
        header = _header(found, source, format_name, label, judges, options)
        header.update(
            status="started",
            rejudge=block,
            judge_llm=client.identity() if client is not None else None,
            units={"total": len(units), "already_done": len(units) - len(todo)},
        )
        ctx = found.context(judges=tuple(judges), judge_llm=client)

        def judge_unit(system: str, unit_id: str) -> tuple[UnitRecord, list[Row]]:
            rows = [
                _judge_row(
                    a,
                    q,
                    ctx,
                    llm_judges=llm_judges,
                    repeats=judge_repeats,
                    label=label,
                    known_wrong=known_wrong,
                )
                for a, q in units[(system, unit_id)]
            ]
            return UnitRecord(system, unit_id, "done", rows=len(rows)), rows

        return run_units(
            folder,
            header,
            todo,
            judge_unit,
            benchmark=scorer,
            workers=workers,
            show_progress=show_progress,
            desc=f"rejudge {benchmark}",
        )
