"""WMB-100K's judges: ``rule`` (the coverage judge) and
``llm`` (the reference's LLM judge, through callables); a FalseMemory probe is correct iff nothing was
returned under either name (no judge call).

Sources: wontopos/WMB-100K @ 436cba8, scripts/score.py (judge inputs and prompt, quick/official modes).
The situational judge sees the returned memories joined with ``"\\n"`` and cut to 3,000 characters, and
never ``gold_answer``; nothing returned is wrong without a judge call.

The deterministic coverage judge (memsuite's offline stand-in for the LLM judges). The reference
prompt asks whether the returned memories "contain the specific facts listed in required memories",
strictly, with no partial credit; the rule mirrors that:

1. Normalise: NFKC, lower case, split on anything not a letter or digit, drop stop words (English
   function words plus "user"/"assistant", which start every stored memory) and one-letter words;
   keep numbers. Each word becomes its first 5 characters (a truncation stemmer: alarm/alarms,
   gentle/gently, prefer/prefers meet).
2. A required memory's labels are removed first ("turn_597: " on S2-S7, "from daily_life: " on S3).
3. A required memory is *found* when the returned text covers at least 50% of its stems.
4. A question is correct when every required memory is found (the prompt wants all listed facts).

The 50% bar was chosen on the real daily_life sample (114 questions with gold turns, bm25, k=5):
the verdict then agrees with "a gold turn was returned" on 94% of questions (0.4: 91%, 0.6: 93%).
It is lexical, so a paraphrase the LLM judges would accept can fail; treat it as a reproducible
lower-bound proxy, and report its agreement with an LLM judge when one is available
(:func:`memsuite.eval.analysis.metrics.judge_agreement`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from memsuite.eval.answer import JudgeInput
from memsuite.eval.benchmarks.wmb.schema import Question
from memsuite.eval.definition import Judge
from memsuite.memory_systems.errors import ConfigError
from memsuite.memory_systems.llm.protocol import ChatClient
from memsuite.memory_systems.llm.replies import ENDPOINT_ERRORS

#: The judge sees at most this many characters of the returned memories (scripts/score.py).
JUDGE_CHARS = 3000
#: Coverage judge: share of a required memory's stems the returned text must hold.
COVERAGE_THRESHOLD = 0.5
#: Coverage judge: characters kept of each word (truncation stemmer).
STEM_CHARS = 5

_STOP_WORDS = frozenset(
    """
    a about above after again against all also am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further had
    has have having he her here hers herself him himself his how i if in into is it its itself just
    me more most my myself no nor not now of off on once only or other our ours ourselves out over
    own same she should so some such than that the their theirs them themselves then there these
    they this those through to too under until up very was we were what when where which while who
    whom why will with would you your yours yourself yourselves
    don doesn didn isn aren wasn weren hasn haven hadn won wouldn shouldn couldn cannot ll ve re
    user users assistant
    """.split()  # noqa: SIM905 - a word list reads better as text than as 170 quoted strings
)
_WORD = re.compile(r"[^\W_]+")
_LABEL = re.compile(r"^\s*(?:turn_\d+|from [\w ]+?)\s*:\s*", re.IGNORECASE)


# -- the coverage judge ----------------------------------------------------------------------------
def judge_text(memories: Sequence[str]) -> str:
    """The returned memories as the judge sees them: joined with newlines, cut to 3,000 characters."""
    return "\n".join(memories)[:JUDGE_CHARS]


def content_stems(text: str) -> frozenset[str]:
    """The normalised content words of ``text`` (see the module docstring), each cut to 5 characters."""
    words = _WORD.findall(unicodedata.normalize("NFKC", text).lower())
    return frozenset(w[:STEM_CHARS] for w in words if w not in _STOP_WORDS and (len(w) > 1 or w.isdigit()))


def strip_memory_label(required_memory: str) -> str:
    """A required memory without its "turn_N: " or "from <category>: " label."""
    return _LABEL.sub("", required_memory, count=1)


def memory_coverage(required_memory: str, text: str) -> float:
    """Share of the required memory's content stems that occur in ``text`` (1.0 if it has none).

    A required memory made only of stop words is covered when its normalised words all occur.
    """
    wanted = content_stems(strip_memory_label(required_memory))
    if not wanted:
        words = set(_WORD.findall(strip_memory_label(required_memory).lower()))
        return 1.0 if words <= set(_WORD.findall(text.lower())) else 0.0
    return len(wanted & content_stems(text)) / len(wanted)


def judge_coverage(
    required_memories: Sequence[str],
    memories: Sequence[str],
    *,
    threshold: float = COVERAGE_THRESHOLD,
) -> dict[str, Any]:
    """The deterministic coverage verdict on one situational question.

    Args:
        required_memories: The question's ``required_memories``.
        memories: The memories returned (after the abstention cutoff), best first.
        threshold: Share of a required memory's stems that must be covered for it to count as found.

    Returns:
        ``{"correct", "reason", "coverage": [per required memory], "found", "required"}``;
        ``correct`` is None when the question lists no required memory (nothing to judge against).
    """
    if not memories:
        return {
            "correct": False,
            "reason": "nothing returned",
            "coverage": [],
            "found": 0,
            "required": len(required_memories),
        }
    if not required_memories:
        return {
            "correct": None,
            "reason": "the question lists no required memory",
            "coverage": [],
            "found": 0,
            "required": 0,
        }
    text = judge_text(memories)
    coverage = [memory_coverage(required, text) for required in required_memories]
    found = sum(c >= threshold for c in coverage)
    correct = found == len(required_memories)
    return {
        "correct": correct,
        "reason": f"{found}/{len(required_memories)} required memories covered to >= {threshold:.0%}",
        "coverage": [round(c, 3) for c in coverage],
        "found": found,
        "required": len(required_memories),
    }


# -- the LLM judge hook ----------------------------------------------------------------------------
#: A judge: prompt in, verdict out (the reply text, a bool, or None for a failed call).
JudgeFn = Callable[[str], Any]

# Same inputs and rules as the reference prompt (scripts/score.py JUDGE_PROMPT), in memsuite's words.
_JUDGE_PROMPT = """You score a memory retrieval system.

Decide whether the RETURNED MEMORIES contain the specific information listed in REQUIRED MEMORIES.

Rules:
- Judge only from the returned memories below; do not use your own knowledge.
- If the returned memories are empty or irrelevant to the question, answer WRONG.
- CORRECT: the returned memories contain the specific facts listed in the required memories.
- WRONG: the returned memories do not contain the required information.
- Be strict: the facts must be present in the returned memories themselves.

Question: {question}
Required Memories: {required_memories}
Returned Memories: {memories}

Answer with only one word: CORRECT or WRONG"""


def judge_prompt(question: str, required_memories: Sequence[str], memories: Sequence[str]) -> str:
    """The judge prompt: required memories joined with ", ", returned ones as :func:`judge_text`."""
    return _JUDGE_PROMPT.format(
        question=question, required_memories=", ".join(required_memories), memories=judge_text(memories)
    )


def parse_judge_reply(reply: Any) -> bool | None:
    """CORRECT -> True, WRONG or INCORRECT -> False, a bool as is, anything else (or None) -> None.

    The reference tests ``"CORRECT" in reply.upper()``, which also reads "INCORRECT" as correct; here
    the first word decides, and an unreadable reply is a failed vote, not a verdict.
    """
    if reply is None or isinstance(reply, bool):
        return reply
    words = re.findall(r"[A-Za-z]+", str(reply))
    if not words:
        return None
    first = words[0].upper()
    return True if first == "CORRECT" else False if first in ("WRONG", "INCORRECT") else None


def judge_llm(
    question: str,
    required_memories: Sequence[str],
    memories: Sequence[str],
    judges: Sequence[JudgeFn],
    *,
    official: bool = False,
) -> dict[str, Any]:
    """The LLM verdict: quick mode asks the first judge, official mode three judges (two must agree).

    Args:
        question: The question text.
        required_memories: Its required memories.
        memories: The memories returned.
        judges: Callables prompt -> reply; quick mode uses ``judges[0]``, official mode needs three.
        official: Official mode (majority of three) instead of quick mode (one judge).

    Returns:
        ``{"correct", "reason", "votes", "errors"}``. Nothing returned is wrong without a call. A vote
        that fails (exception or unreadable reply) is None; when failures leave no majority,
        ``correct`` is None (the reference would count the failed call as WRONG).

    Raises:
        ConfigError: No judge, or official mode without exactly three judges.
    """
    needed = 3 if official else 1
    if len(judges) < needed or (official and len(judges) != 3):
        mode = "official mode needs exactly three" if official else "quick mode needs one"
        raise ConfigError(f"WMB LLM judge: {mode} judge callables, got {len(judges)}")
    if not memories:
        return {"correct": False, "reason": "nothing returned", "votes": [], "errors": []}
    prompt = judge_prompt(question, required_memories, memories)
    votes: list[bool | None] = []
    errors: list[str] = []
    for judge in judges[:needed]:
        try:
            votes.append(parse_judge_reply(judge(prompt)))
        except JUDGE_CALL_ERRORS as exc:  # endpoint trouble is a failed vote; a bug propagates
            votes.append(None)
            errors.append(f"{type(exc).__name__}: {exc}")
    yes, no = votes.count(True), votes.count(False)
    majority = (needed // 2) + 1
    correct = True if yes >= majority else False if no >= majority else None
    return {
        "correct": correct,
        "reason": f"{yes} CORRECT / {no} WRONG / {needed - yes - no} failed",
        "votes": votes,
        "errors": errors,
    }


class JudgeCallError(RuntimeError):
    """A judge callable's endpoint failed (raised by :func:`client_judge`)."""


#: What a judge callable may raise when its endpoint fails: counted as a failed vote. Anything else
#: (a TypeError in a wrapper, say) is a bug and propagates.
JUDGE_CALL_ERRORS = (JudgeCallError, OSError, *ENDPOINT_ERRORS)


def judge_false_memory(memories: Sequence[str]) -> dict[str, Any]:
    """The verdict on a FalseMemory probe: correct iff nothing was returned (no judge call)."""
    if memories:
        return {"correct": False, "reason": f"false positive: {len(memories)} memories returned"}
    return {"correct": True, "reason": "nothing returned"}


def client_judge(client: ChatClient) -> JudgeFn:
    """A judge callable over an ``LLMClient``: prompt -> reply; a failed call raises (and is recorded)."""

    def judge(prompt: str) -> str:
        result = client.chat(
            [{"role": "user", "content": prompt}], phase="judge", temperature=0.0, max_tokens=50
        )
        if result.failure is not None:
            raise JudgeCallError(f"{result.failure.kind}: {result.failure.message}")
        return result.text

    return judge


@dataclass(frozen=True)
class WMBCase:
    """What WMB-100K's judges need of one question."""

    question: Question
    memories: tuple[str, ...]
    """The memories returned (after the cutoff)."""
    llm_judges: tuple[JudgeFn, ...] = ()
    """Judge callables given to the benchmark (official mode); default one over the judge LLM."""
    official: bool = False


def _rule_judge(inp: JudgeInput) -> dict[str, Any]:
    case: WMBCase = inp.case
    if case.question.is_false_memory:
        return judge_false_memory(list(case.memories))
    return judge_coverage(case.question.required_memories, list(case.memories))


def _llm_judge(inp: JudgeInput) -> dict[str, Any]:
    case: WMBCase = inp.case
    if case.question.is_false_memory:
        return judge_false_memory(list(case.memories))
    judges = case.llm_judges or ((client_judge(inp.llm),) if inp.llm is not None else ())
    if not judges:
        raise ConfigError(
            "the wmb llm judge needs a judge_llm (or answer_llm) in the config, or judge callables: "
            "WMBBenchmark(llm_judges=[prompt -> reply, ...])"
        )
    question = case.question
    verdict = judge_llm(
        question.text, question.required_memories, list(case.memories), judges, official=case.official
    )
    if verdict["correct"] is None and verdict["errors"]:
        verdict["failure"] = "judge_error"  # the shared step puts the LLM's failure kind when it has one
    return verdict


#: The judges by name, each with what it needs from a run: both judge the retrieved memories
#: themselves, not an answer.
JUDGES = {
    "rule": Judge(_rule_judge, needs=()),
    "llm": Judge(_llm_judge, needs=("llm",)),
}
