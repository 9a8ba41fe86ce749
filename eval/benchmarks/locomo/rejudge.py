"""LoCoMo's questions for ``memsuite rejudge`` (:mod:`memsuite.eval.rejudge.questions`).

Ids and gold are the protocol's (``q<index>`` within the conversation; category 5 without an answer
has "Not mentioned in the conversation"), so rejudged rows line up with a run's rows.
"""

from __future__ import annotations

from pathlib import Path

from memsuite.eval.benchmarks.locomo.judges import LocomoCase
from memsuite.eval.benchmarks.locomo.judges.llm import NOT_MENTIONED
from memsuite.eval.benchmarks.locomo.loader import load_conversations
from memsuite.eval.benchmarks.locomo.protocol import default_data_path
from memsuite.eval.rejudge.questions import RejudgeQuestion, register_questions


@register_questions("locomo")
def locomo_questions(data: Path | None) -> list[RejudgeQuestion]:
    """Every question of every conversation, in file order."""
    conversations, _ = load_conversations(Path(data) if data is not None else default_data_path())
    out = []
    for index, conversation in enumerate(conversations):
        for question in conversation.questions:
            metadata = {
                "category": question.category,
                "category_name": question.category_name,
                "evidence": list(question.evidence),
                "adversarial_answer": question.adversarial_answer,
            }
            out.append(
                RejudgeQuestion(
                    conversation.sample_id,
                    f"q{question.index:03d}",
                    question.question,
                    str(question.category),
                    question.answer if question.answer is not None else NOT_MENTIONED,
                    LocomoCase(question, (), False, None),
                    index,
                    metadata,
                )
            )
    return out
