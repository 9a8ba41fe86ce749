"""WMB-100K v2.1: records, loader, protocol, judges, scores, calibration and report (WMB-100K v2.1 README)."""

from memsuite.eval.benchmarks.wmb.calibration import calibrate, calibrate_run
from memsuite.eval.benchmarks.wmb.judges import judge_coverage
from memsuite.eval.benchmarks.wmb.loader import (
    load_documents,
    load_questions,
    load_turns,
    select_within_turns,
)
from memsuite.eval.benchmarks.wmb.protocol import WMBBenchmark
from memsuite.eval.benchmarks.wmb.schema import Conversation, Document, Question, Turn
from memsuite.eval.benchmarks.wmb.scoring import result_json, wmb_scores
from memsuite.eval.spec import BenchmarkSpec, Command, DataOption

SPEC = BenchmarkSpec(
    name="wmb",
    description="WMB-100K v2.1: situational retrieval over ~105K turns, with false-memory probes",
    factory="memsuite.eval.benchmarks.wmb.protocol:WMBBenchmark",
    judges="memsuite.eval.benchmarks.wmb.judges",
    # Both judge the retrieved memories themselves, not an answer.
    judge_needs={"rule": (), "llm": ("llm",)},
    report="memsuite.eval.benchmarks.wmb.report:render_wmb",
    outcomes="memsuite.eval.benchmarks.wmb.report:OUTCOMES",
    commands={
        "calibrate": Command(
            help="choose WMB-100K abstention cutoffs on a held-out split of a run",
            add_arguments="memsuite.eval.benchmarks.wmb.commands:add_calibrate_arguments",
            run="memsuite.eval.benchmarks.wmb.commands:calibrate",
        )
    },
    data=DataOption("data_dir", "wmb100k", "wmb100k", folder=True),
    configs=("wmb_sample", "wmb_quick", "wmb_full"),
)

__all__ = [
    "Conversation",
    "Document",
    "Question",
    "Turn",
    "WMBBenchmark",
    "calibrate",
    "calibrate_run",
    "judge_coverage",
    "load_documents",
    "load_questions",
    "load_turns",
    "result_json",
    "select_within_turns",
    "wmb_scores",
]
