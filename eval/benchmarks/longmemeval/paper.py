"""Published LongMemEval QA accuracies printed beside ours: only numbers with a source we can cite.

- Zep's research page (getzep.com/research) reports 90.2 % (451 of 500 questions of
  LongMemEval_S) with its per-type accuracies; its reader and judge models are not named there.
- LongMemEval's own pipeline on the 400 public dev questions: llama-3.1-8b-instruct answers, read
  with "chain-of-note", judged by the official ``src/evaluation/evaluate_qa.py`` with
  gpt-4o-mini-2024-07-18, from the generation logs of the public fork Hunk0724/LongMemEval
  (``generation_logs/``). The accuracies are the share of ``autoeval_label`` = true over the 400
  answers of each log (abstention questions included, as ``print_qa_metrics.py`` counts them); the
  oracle log is the gold-evidence setting, the S log retrieval-augmented (flat-stella, turn level).

The paper's own long-context accuracies (GPT-4o and others on the oracle and S files) are not listed:
we could not read its tables from a source we can cite.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class PublishedRow:
    system: str
    setting: str
    """What the answer model was given."""
    overall: float
    """QA accuracy, %."""
    n: int
    source: str
    answer_model: str
    judge_model: str
    by_type: dict[str, float] = field(default_factory=dict)
    """Accuracy per question type (%), where the source gives it; abstention questions apart."""


_HUNK = "LongMemEval generation logs (github.com/Hunk0724/LongMemEval, generation_logs/), 400 dev questions"
_OFFICIAL_JUDGE = "gpt-4o-mini-2024-07-18, LongMemEval's evaluate_qa.py"

PUBLISHED_QA: tuple[PublishedRow, ...] = (
    PublishedRow(
        "Zep",
        "Zep's multi-scope retrieval (median context 4,408 tokens)",
        90.2,
        500,
        "getzep.com/research (LongMemEval_S, 451 of 500 correct)",
        "not stated",
        "not stated",
        {
            "single-session-user": 94.3,
            "single-session-assistant": 96.4,
            "single-session-preference": 90.0,
            "multi-session": 83.5,
            "knowledge-update": 93.6,
            "temporal-reasoning": 90.2,
        },
    ),
    PublishedRow(
        "llama-3.1-8b, oracle (gold evidence)",
        "the evidence sessions in full, chain-of-note reading",
        61.5,
        400,
        _HUNK,
        "llama-3.1-8b-instruct",
        _OFFICIAL_JUDGE,
        {
            "single-session-user": 78.4,
            "single-session-assistant": 86.7,
            "single-session-preference": 54.2,
            "multi-session": 40.0,
            "knowledge-update": 81.0,
            "temporal-reasoning": 45.6,
            "abstention": 91.7,
        },
    ),
    PublishedRow(
        "llama-3.1-8b, S + flat-stella turns",
        "turns retrieved by Stella v5 from LongMemEval_S, chain-of-note reading",
        52.5,
        400,
        _HUNK,
        "llama-3.1-8b-instruct",
        _OFFICIAL_JUDGE,
        {
            "single-session-user": 90.2,
            "single-session-assistant": 55.6,
            "single-session-preference": 25.0,
            "multi-session": 35.8,
            "knowledge-update": 74.1,
            "temporal-reasoning": 35.0,
            "abstention": 83.3,
        },
    ),
)
