"""The MEME paper's published numbers (arXiv 2605.12477): the main table, its setup, cost per episode,
and which memsuite system reproduces which paper row. Reports print them beside memsuite's rows."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memsuite.eval.benchmarks.meme.scoring import TASKS

#: MEME paper main table (gpt-4.1-mini answers, 100 episodes, filler 32k): ER Agg Tr Del Cas Abs Overall.
PAPER_MAIN_TABLE: dict[str, dict[str, float]] = {
    "BM25": dict(zip((*TASKS, "Overall"), (1.00, 0.05, 0.16, 0.27, 0.02, 0.00, 0.25), strict=True)),
    "text-emb-3-small": dict(
        zip((*TASKS, "Overall"), (0.96, 0.33, 0.46, 0.17, 0.04, 0.00, 0.33), strict=True)
    ),
    "Mem0": dict(zip((*TASKS, "Overall"), (0.67, 0.35, 0.43, 0.21, 0.03, 0.00, 0.28), strict=True)),
    "Graphiti": dict(zip((*TASKS, "Overall"), (0.03, 0.01, 0.04, 0.09, 0.02, 0.01, 0.03), strict=True)),
    "MD-flat": dict(zip((*TASKS, "Overall"), (0.94, 0.45, 0.77, 0.25, 0.06, 0.05, 0.42), strict=True)),
    "Karpathy Wiki": dict(zip((*TASKS, "Overall"), (0.11, 0.18, 0.27, 0.03, 0.01, 0.02, 0.10), strict=True)),
}
#: Which memsuite system reproduces which paper row.
PAPER_ROW_OF_SYSTEM = {
    "bm25": "BM25",
    "dense": "text-emb-3-small",
    "llm_extraction": "Mem0",
    "mem0ai": "Mem0",
    "graphiti": "Graphiti",
    "md_flat": "MD-flat",
    "karpathy_wiki": "Karpathy Wiki",
}
#: Published setup of the MEME main table (MEME paper, arXiv 2605.12477).
PAPER_SETUP = (
    "paper rows: MEME (arXiv 2605.12477) main table -- gpt-4.1-mini answers, GPT-4o judge, "
    "100 released episodes with 32k filler; memsuite maps bm25 -> BM25, dense -> text-emb-3-small, "
    "llm_extraction/mem0ai -> Mem0, graphiti -> Graphiti, md_flat -> MD-flat, karpathy_wiki -> Karpathy Wiki."
)
#: MEME paper cost per episode in USD, (ingest, inference) (MEME paper, arXiv 2605.12477).
PAPER_COST_PER_EPISODE: dict[str, tuple[float, float]] = {
    "Mem0": (0.10, 0.01),
    "Graphiti": (0.55, 0.00),
    "MD-flat": (0.04, 0.01),
    "Karpathy Wiki": (1.17, 0.22),
}

# -- the paper's protocol, as the differences notes compare it with a run's header --------------------

#: Answer model of the main table (MEME paper, arXiv 2605.12477).
PAPER_ANSWER_MODEL = "gpt-4.1-mini"
#: Judge model of the main table.
PAPER_JUDGE_MODEL = "gpt-4o"
#: Embedding model of the dense row ("text-emb-3-small").
PAPER_EMBEDDER = "text-embedding-3-small"
#: Episodes and filler of the main table.
PAPER_EPISODES = 100
PAPER_FILLER = "32k"
#: The paper's MD-flat hands the whole memory file to the answer model (memsuite: ``whole_file: true``).
PAPER_MD_FLAT_WHOLE_FILE = True
#: The Mem0 the paper describes: extraction, then ADD / UPDATE / DELETE / NOOP per fact (mem0's
#: original algorithm). mem0ai >= 2.0 extracts add-only (no UPDATE / DELETE).
PAPER_MEM0 = "mem0's extract-then-ADD/UPDATE/DELETE/NOOP algorithm"


def _model(identity: Mapping[str, Any] | None) -> str | None:
    return str(identity["model"]) if isinstance(identity, Mapping) and identity.get("model") else None


def protocol_differences(
    header: Mapping[str, Any],
    system_spec: Mapping[str, Any],
    paper_row: str,
    judge: str,
    episodes: int,
    source: Mapping[str, Any] | None,
) -> list[str]:
    """How one of our rows was made differently from the paper row printed beside it.

    Every item is derived from the run header (``answer_llm``, ``judge_llm``, ``embedder``,
    ``packages``, ``config``), the system's config entry, the judge of the table and the episodes run;
    a point where they match the paper gives nothing.

    Args:
        header: The run's ``run.json``.
        system_spec: The system's entry in the header's config (``name``, ``args``).
        paper_row: The paper row's name (a key of :data:`PAPER_MAIN_TABLE`).
        judge: The judge whose verdicts the table shows (``llm``, ``rule``, ``evidence``).
        episodes: Episodes the system ran (distinct unit ids of its rows).
        source: The summary's ``source`` (``kind``, and ``filler`` for generated episodes).

    Returns:
        One short clause per difference, in a fixed order.
    """
    out: list[str] = []
    answer = _model(header.get("answer_llm"))
    if answer is None:
        out.append(f"no answer model (retrieval only) vs {PAPER_ANSWER_MODEL} answers")
    elif answer.lower() != PAPER_ANSWER_MODEL:
        out.append(f"answers by {answer} vs {PAPER_ANSWER_MODEL}")
    if judge == "llm":
        judged_by = _model(header.get("judge_llm")) or answer
        if (judged_by or "").lower() != PAPER_JUDGE_MODEL:
            out.append(f"LLM judge {judged_by or 'unknown'} vs GPT-4o")
    else:
        kind = "a retrieval check, no answer judged" if judge == "evidence" else "deterministic"
        out.append(f"judge {judge} ({kind}) vs a GPT-4o judge")
    if paper_row == "text-emb-3-small":
        embedder = _model(header.get("embedder"))
        if (embedder or "").lower() != PAPER_EMBEDDER:
            out.append(f"embedder {embedder or 'not recorded'} vs {PAPER_EMBEDDER}")
    name, args = str(system_spec.get("name")), system_spec.get("args") or {}
    if paper_row == "Mem0":
        if name == "mem0ai":
            version = (header.get("packages") or {}).get("mem0ai")
            if version is None:
                out.append("mem0ai version not recorded in the run header")
            elif _major(version) >= 2:
                out.append(f"mem0ai {version}: add-only extraction (no UPDATE/DELETE) vs {PAPER_MEM0}")
        else:
            out.append(f"memsuite's {name} (a reimplementation) vs the mem0 library")
    if paper_row == "MD-flat" and bool(args.get("whole_file")) != PAPER_MD_FLAT_WHOLE_FILE:
        k = (header.get("config") or {}).get("k")
        out.append(f"md_flat retrieves its top-{k} lines (whole_file: false) vs the whole file")
    source = source or {}
    if episodes != PAPER_EPISODES:
        out.append(f"{episodes} episode{'s' * (episodes != 1)} vs {PAPER_EPISODES}")
    if source.get("kind") == "generated":
        filler = source.get("filler")
        out.append(f"generated episodes, filler {filler} vs the released ones, filler {PAPER_FILLER}")
    return out


def _major(version: str) -> int:
    head = str(version).split(".")[0]
    return int(head) if head.isdigit() else 0
