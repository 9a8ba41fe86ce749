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
