"""MEME (Multi-entity & Evolving Memory Evaluation): episode records, loader, scoring.

Public surface: the records of :mod:`~memsuite.eval.benchmarks.meme.schema` and :func:`load_episodes` /
:func:`save_episodes`. Scoring lives in :mod:`memsuite.eval.benchmarks.meme.scoring`.
"""

from memsuite.eval.benchmarks.meme.loader import load_episodes, save_episodes
from memsuite.eval.benchmarks.meme.schema import (
    TASK_TYPES,
    DependencyEdge,
    Episode,
    EpisodeSession,
    GoldFact,
    Question,
    QuestionSet,
    Task,
    parse_task_type,
)
from memsuite.eval.spec import BenchmarkSpec, Command, DataOption

SPEC = BenchmarkSpec(
    name="meme",
    description="MEME: six tasks asked before and after an upstream change (generated or released episodes)",
    factory="memsuite.eval.benchmarks.meme.protocol:MemeBenchmark",
    judges="memsuite.eval.benchmarks.meme.judges",
    judge_needs={"evidence": ("evidence",), "rule": ("answer",), "llm": ("answer", "llm")},
    report="memsuite.eval.benchmarks.meme.report:render_meme",
    outcomes="memsuite.eval.benchmarks.meme.report:OUTCOMES",
    commands={
        "generate": Command(
            help="MEME episodes in the released JSON schema",
            add_arguments="memsuite.eval.benchmarks.meme.commands:add_generate_arguments",
            run="memsuite.eval.benchmarks.meme.commands:generate",
        )
    },
    oracle_gold="memsuite.eval.benchmarks.meme.oracle_gold:unit_gold",
    demo="memsuite.eval.benchmarks.meme.demo:demo",
    data=DataOption("data", None),
    configs=("meme_quick", "meme_main", "demo"),
)

__all__ = [
    "TASK_TYPES",
    "DependencyEdge",
    "Episode",
    "EpisodeSession",
    "GoldFact",
    "Question",
    "QuestionSet",
    "Task",
    "load_episodes",
    "parse_task_type",
    "save_episodes",
]
