"""LoCoMo's questions for ``memsuite rejudge`` (:mod:`memsuite.eval.rejudge.questions`).

Ids and gold are the protocol's (``q<index>`` within the conversation; category 5 without an answer
has "Not mentioned in the conversation"), so rejudged rows line up with a run's rows. When the data is
the shared dev file and the audit's errors.json lies beside it (:func:`.audit.default_audit_path`),
each question the audit names carries its finding, so the verdicts hold their audited reading too
(``metadata["audit"]``, as a run's rows).
"""

from __future__ import annotations

from pathlib import Path

from memsuite.eval.benchmarks.locomo.audit import audit_findings, default_audit_path
from memsuite.eval.benchmarks.locomo.catalogue import DATA
from memsuite.eval.benchmarks.locomo.judges import LocomoCase
from memsuite.eval.benchmarks.locomo.judges.llm import NOT_MENTIONED
from memsuite.eval.benchmarks.locomo.loader import load_conversations
from memsuite.eval.benchmarks.locomo.protocol import default_data_path
from memsuite.eval.rejudge.questions import RejudgeQuestion


def locomo_questions(data: Path | None) -> list[RejudgeQuestion]:
    """Every question of every conversation, in file order."""
    path = Path(data) if data is not None else default_data_path()
    conversations, _ = load_conversations(path)
    audit = default_audit_path(path, DATA.dev)
    findings = audit_findings(audit, conversations) if audit is not None else {}
    out = []
    for index, conversation in enumerate(conversations):
        for question in conversation.questions:
            finding = findings.get((conversation.sample_id, question.index))
            metadata = {
                "category": question.category,
                "category_name": question.category_name,
                "evidence": list(question.evidence),
                "adversarial_answer": question.adversarial_answer,
                **({"audit": finding.to_metadata()} if finding is not None else {}),
            }
            out.append(
                RejudgeQuestion(
                    conversation.sample_id,
                    f"q{question.index:03d}",
                    question.question,
                    str(question.category),
                    question.answer if question.answer is not None else NOT_MENTIONED,
                    LocomoCase(question, (), False, None, finding),
                    index,
                    metadata,
                )
            )
    return out
