"""``memsuite show``: a run's questions (:mod:`memsuite.eval.analysis.show`) printed or exported as CSV."""

from __future__ import annotations

import argparse

from memsuite.eval.analysis.diagnostics import STAGES


def cmd_show(args: argparse.Namespace) -> int:
    from memsuite.eval.analysis.show import format_record, question_records, records_csv, select
    from memsuite.eval.report.document import definitions_of
    from memsuite.eval.run.folder import load_runs

    (run,) = load_runs([args.run])
    found = definitions_of([run]).get(run.benchmark)
    spec = found.outcomes if found is not None else None
    records = question_records(run, args.judge, [args.system] if args.system else None, spec=spec)
    picked = select(records, cell=args.task, failed=args.failed, stage=args.stage, limit=args.limit)
    if args.csv:
        print(records_csv(picked), end="")
        return 0
    for record in picked:
        print(format_record(record) + "\n")
    shown = select(records, cell=args.task, failed=args.failed, stage=args.stage)
    print(f"{len(picked)} of {len(shown)} matching questions shown ({len(records)} in the run)")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``show`` on the CLI's subcommands."""
    p = sub.add_parser("show", help="a run's questions: question, gold, answer, verdicts, stage, context")
    p.add_argument("run", help="run folder")
    p.add_argument("--system", help="only this system")
    p.add_argument("--task", help="only this task / category / question type")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--failed", action="store_true", help="only questions failed under the judge")
    which.add_argument("--stage", choices=STAGES, help="only questions failing first at this stage")
    p.add_argument("--judge", help="judge whose outcome decides 'failed' (default: the benchmark's first)")
    p.add_argument("--limit", type=int, default=20, help="questions to print (default 20)")
    p.add_argument("--csv", action="store_true", help="print CSV (context cut to an excerpt)")
    p.set_defaults(func=cmd_show)
