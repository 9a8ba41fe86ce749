"""Published LoCoMo numbers printed beside ours: only numbers with a source we can cite.

mem0 (Chhikara et al., arXiv 2504.19413) reports an overall LLM-as-a-Judge score ("J", %, questions
of categories 1-4 of all ten conversations; answers and judge gpt-4o-mini, the judge prompt of
mem0ai/mem0 ``evaluation/metrics/llm_judge.py``). The overall J values below are the paper's as
reproduced on widemem.ai/benchmarks; mem0's blog (mem0.ai/blog/ai-agent-memory-benchmark) gives
the same four of them rounded (Mem0 66.9, Mem0g 68.5, OpenAI 52.9, LangMem 58.1) and Zep's reply
(blog.getzep.com, "Lies, Damn Lies, & Statistics") quotes Zep's 65.99 and reports 84.61 for Zep in
its own corrected setup. Per-category values are not listed: we could not read the paper's Table 1
from a source we can cite.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PublishedRow:
    system: str
    overall_j: float
    source: str
    answer_model: str
    judge_model: str
    setup: str
    retrieval: str = "top-k memories per speaker (two stores, both searched)"
    """What the answer model was given per question."""
    answer_prompt: str = "mem0's answer prompt (evaluation/prompts.py)"
    embedder: str = "text-embedding-3-small (mem0 platform)"


_MEM0 = "mem0 arXiv 2504.19413 (overall J)"
_SETUP = "10 conversations, categories 1-4 (1,540 questions)"
PUBLISHED_LLM_JUDGE: tuple[PublishedRow, ...] = (
    PublishedRow(
        "Full-context",
        72.90,
        _MEM0,
        "gpt-4o-mini",
        "gpt-4o-mini",
        _SETUP,
        retrieval="the whole conversation (~26K tokens) in the prompt",
        embedder="none",
    ),
    PublishedRow(
        "Mem0g",
        68.44,
        _MEM0,
        "gpt-4o-mini",
        "gpt-4o-mini",
        _SETUP,
        retrieval="top-k memories per speaker plus graph relations",
        embedder="text-embedding-3-small (mem0 platform)",
    ),
    PublishedRow("Mem0", 66.88, _MEM0, "gpt-4o-mini", "gpt-4o-mini", _SETUP),
    PublishedRow(
        "Zep",
        65.99,
        _MEM0,
        "gpt-4o-mini",
        "gpt-4o-mini",
        _SETUP,
        retrieval="Zep graph search (facts and entities), mem0's settings",
        embedder="Zep's own",
    ),
    PublishedRow(
        "LangMem",
        58.1,
        _MEM0,
        "gpt-4o-mini",
        "gpt-4o-mini",
        _SETUP,
        retrieval="LangMem search per speaker, mem0's harness",
        embedder="not stated",
    ),
    PublishedRow(
        "OpenAI",
        52.9,
        _MEM0,
        "gpt-4o-mini",
        "gpt-4o-mini",
        _SETUP,
        retrieval="every memory ChatGPT saved (copied from its UI) in the prompt",
        embedder="none",
    ),
    PublishedRow(
        "A-Mem",
        48.38,
        _MEM0,
        "gpt-4o-mini",
        "gpt-4o-mini",
        _SETUP,
        retrieval="A-Mem retrieval, mem0's harness",
        embedder="not stated",
    ),
    PublishedRow(
        "Zep (Zep's rerun)",
        84.61,
        "blog.getzep.com 'Lies, Damn Lies, & Statistics'",
        "gpt-4o-mini",
        "gpt-4o-mini",
        _SETUP + ", Zep's own ingestion and search settings",
        retrieval="Zep graph search, Zep's own settings",
        answer_prompt="Zep's answer prompt",
        embedder="Zep's own",
    ),
)
#: memsuite system -> the published row it corresponds to (the reader's comparison, flagged).
PUBLISHED_ROW_OF_SYSTEM = {"full_context": "Full-context", "mem0ai": "Mem0", "graphiti": "Zep"}
