"""DynamicMem (arXiv 2606.22877): 15 months of multi-app activity per user, asked at quarterly checkpoints.

Records (:mod:`.schema`), the loader of the released two-file layout (:mod:`.loader`), the checkpoint
cut rule and gold replay (:mod:`.checkpoints`), the runner protocol (:mod:`.protocol`, registered as
``dynamicmem``), the Core + Detail field judges (:mod:`.judges`) and the scores (:mod:`.scoring`).
Synthetic users in the same layout come from :mod:`memsuite.eval.benchmarks.dynamicmem.generator`.
"""

from memsuite.eval.benchmarks.dynamicmem.checkpoints import Cut, quarterly_cuts, replay_states
from memsuite.eval.benchmarks.dynamicmem.loader import load_user, load_users, user_folders
from memsuite.eval.benchmarks.dynamicmem.schema import (
    AppLog,
    Checkpoint,
    CompletionTask,
    GoldenEvidence,
    Observability,
    ScoringPoint,
    ServiceItem,
    UserData,
)
from memsuite.eval.benchmarks.dynamicmem.scoring import summarize
from memsuite.eval.spec import BenchmarkSpec, Command

SPEC = BenchmarkSpec(
    name="dynamicmem",
    description="DynamicMem: 15 months of multi-app activity per user, asked at quarterly checkpoints C1..C5",
    factory="memsuite.eval.benchmarks.dynamicmem.protocol:DynamicMemBenchmark",
    judges="memsuite.eval.benchmarks.dynamicmem.judges",
    judge_needs={"rule": ("answer",), "llm": ("answer", "llm")},
    report="memsuite.eval.benchmarks.dynamicmem.report:render_dynamicmem",
    outcomes="memsuite.eval.benchmarks.dynamicmem.report:OUTCOMES",
    commands={
        "generate": Command(
            help="DynamicMem users in the released layout (one folder per user, two JSON files)",
            add_arguments="memsuite.eval.benchmarks.dynamicmem.commands:add_generate_arguments",
            run="memsuite.eval.benchmarks.dynamicmem.commands:generate",
        )
    },
    oracle_gold="memsuite.eval.benchmarks.dynamicmem.oracle_gold:unit_gold",
    configs=("dynamicmem_quick", "dynamicmem_tce"),
)

__all__ = [
    "AppLog",
    "Checkpoint",
    "CompletionTask",
    "Cut",
    "GoldenEvidence",
    "Observability",
    "ScoringPoint",
    "ServiceItem",
    "UserData",
    "load_user",
    "load_users",
    "quarterly_cuts",
    "replay_states",
    "summarize",
    "user_folders",
]
