"""MEME (Multi-entity & Evolving Memory Evaluation): episode records, loader, scoring.

Public surface: the records of :mod:`~eval.benchmarks.meme.schema` and :func:`load_episodes` /
:func:`save_episodes`. Scoring lives in :mod:`eval.benchmarks.meme.scoring`.
"""

from eval.benchmarks.meme.loader import load_episodes, save_episodes
from eval.benchmarks.meme.schema import (
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
