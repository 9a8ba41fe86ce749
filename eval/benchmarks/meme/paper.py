"""The MEME paper's published numbers (arXiv 2605.12477): the main table, its setup, cost per episode,
and which memsuite system reproduces which paper row. Reports print them beside memsuite's rows."""

from __future__ import annotations

from eval.benchmarks.meme.scoring import TASKS

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
