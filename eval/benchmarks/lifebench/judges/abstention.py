"""LifeBench's abstention judge, LLM-free, for the Unanswerable questions asked openly: right when the
answer declines -- it holds a refusal phrase of :mod:`memsuite.eval.answer_rules` (``not mentioned``,
``I don't know``, ...), or ``unable to answer`` / ``cannot answer`` / ``no record`` (the release's gold is
``Unable to answer``) -- and wrong when it answers instead."""

from __future__ import annotations

from typing import Any

from memsuite.eval.answer_rules.lists import fold
from memsuite.eval.answer_rules.responses import refusal

#: Abstentions in the release's words and a phone's, besides the shared refusal list.
_DECLINES = (
    "unable to answer", "cannot answer", "can't answer", "cannot be answered", "can't be answered",
    "cannot be determined", "no record", "no records", "not recorded", "not in the records",
    "not mention", "no mention", "no information",
)  # fmt: skip


def abstains(answer: str) -> str | None:
    """The phrase by which ``answer`` declines, or None."""
    folded = fold(answer)
    return refusal(answer, states_nothing=True) or next((p for p in _DECLINES if p in folded), None)


def judge_abstention(answer: str) -> dict[str, Any]:
    """The ``abstention`` verdict of an Unanswerable question's answer."""
    phrase = abstains(answer)
    if phrase is None:
        return {"judge": "abstention", "correct": False, "reason": "the answer does not decline"}
    return {"judge": "abstention", "correct": True, "phrase": phrase}
