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
