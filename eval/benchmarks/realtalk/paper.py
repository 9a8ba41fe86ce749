"""Published REALTALK numbers printed beside ours: only numbers with a source we can cite.

None yet. The paper (Lee, Maharana, Pujara, Ren, Barbieri, "REALTALK: A 21-Day Real-World Dataset for
Long-Term Conversation", arXiv 2502.13270) reports memory-probing scores per category for several
answer models given the whole chat, but its tables could not be read from a primary source here (the
public repository, danny911kr/REALTALK, ships the data and evaluation code, not the tables). A row
belongs here once it is transcribed from the paper itself, with its answer model and judge model.

How any such row's protocol differs from ours: the release answers every question from the whole chat
(``qa_tool.py`` ``get_input_context``; as released it lists each session twice, once for its
``session_N`` key and once for its ``events_session_N`` key), scores it with the lexical rules of
:mod:`.judges.official` and an LLM score from the answer model itself; it reports no retrieval
figures. Our evidence tables score retrieval alone, without an LLM; our answer tables are comparable
only for a ``full_context`` run with the same answer and judge models.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class PublishedRow:
    system: str
    """The answer model (and setting) as the paper names it."""
    judge: str
    """``f1`` (lexical) or ``llm``."""
    source: str
    by_category: dict[str, float] = field(default_factory=dict)
    """Category name -> score, %."""


PUBLISHED: tuple[PublishedRow, ...] = ()
PUBLISHED_NOTE = (
    "No published REALTALK row is listed: the paper's memory-probing tables (arXiv 2502.13270) could not "
    "be read from a primary source here (eval/benchmarks/realtalk/paper.py). Its protocol answers from the "
    "whole chat (the release's context lists each session twice), scores lexically per category and by an "
    "LLM score from the answer model, and reports no retrieval figures."
)
