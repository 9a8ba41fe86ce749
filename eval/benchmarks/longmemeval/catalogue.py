"""LongMemEval's data: how the benchmark names it, its catalogue entries (the oracle, S and M files of
the cleaned release, and published answer sets) and its development copy."""

from __future__ import annotations

from memsuite.eval.data.catalogue import LOCK, DataFile, Dataset, github_url, hf_url
from memsuite.eval.definition import DataOption

_LME_REPO, _LME_REV = "xiaowu0162/longmemeval-cleaned", "98d7416c24c778c2fee6e6f3006e7a073259d48f"
_HUNK_REPO, _HUNK_REV = "Hunk0724/LongMemEval", "9e6d29e69d35a0f59d16490d2e7ed7b86095560f"
_HUNK_LOGS = (
    "fullhistory_stella_userfact/llama3.1-8b-128k/con/longmemeval_oracle.json_testlog_top1000context_"
    "jsonformat_useronlyfalse_20251215-1521.jsonl",
    *(
        "fullhistory_stella_userfact/llama3.1-8b-128k/con/longmemeval_oracle_bc_only.json_testlog_top1000context_"
        f"jsonformat_useronlyfalse_{run}.jsonl"
        for run in (
            "con3500_4k_20251216-1221",
            "con500_1k_20251217-0615",
            "con1500_2k_20251217-0720",
            "con2500_3k_20251217-0747",
            "con5500_6k_20251217-0822",
        )
    ),
    "rag_stella_userfact_turn_old/llama3.1-8b-128k/con/longmemeval_s_cleaned.json_retrievallog_turn_flat-stella_"
    "testlog_top50context_jsonformat_useronlyfalse_20251212-0340.jsonl",
)

#: The ``data`` option: default the released S file; a shared dev subset of it under
#: ``$MEMSUITE_SHARED_DATA`` when it is there.
DATA = DataOption("data", "longmemeval_s", "longmemeval/longmemeval_s_cleaned.dev.json.gz")

#: The catalogue entries (``memsuite data``).
CATALOGUE = (
    Dataset(
        name="longmemeval_oracle",
        description="LongMemEval oracle: 500 questions, evidence sessions only (ICLR 2025)",
        licence="MIT",
        source=f"https://huggingface.co/datasets/{_LME_REPO}",
        revision=_LME_REV,
        files=(
            DataFile(
                "longmemeval_oracle.json",
                hf_url(_LME_REPO, _LME_REV, "longmemeval_oracle.json"),
                "821a2034d219ab45846873dd14c14f12cfe7776e73527a483f9dac095d38620c",
                15_388_478,
            ),
        ),
        hashes="rebuilt byte for byte from per-question copies and checked here",
    ),
    Dataset(
        name="longmemeval_s",
        description="LongMemEval S, cleaned release: 500 questions, ~48-session haystacks (~115K tokens)",
        licence="MIT",
        source=f"https://huggingface.co/datasets/{_LME_REPO}",
        revision=_LME_REV,
        files=(
            DataFile(
                "longmemeval_s_cleaned.json",
                hf_url(_LME_REPO, _LME_REV, "longmemeval_s_cleaned.json"),
                "d6f21ea9d60a0d56f34a05b609c79c88a451d2ae03597821ea3d5a9678c3a442",
                277_383_467,
            ),
        ),
        hashes="the file's LFS sha256 at the revision, as several independent harnesses pin it",
    ),
    Dataset(
        name="longmemeval_m",
        description="LongMemEval M, cleaned release: 500 questions, ~500-session haystacks",
        licence="MIT",
        source=f"https://huggingface.co/datasets/{_LME_REPO}",
        revision=_LME_REV,
        files=(
            DataFile(
                "longmemeval_m_cleaned.json",
                hf_url(_LME_REPO, _LME_REV, "longmemeval_m_cleaned.json"),
                "9d79e5524794a2e6900a3aa9cb7d9152c5a3e8319c9a87c25494ba1eacee495f",
            ),
        ),
        hashes="the file's LFS sha256 at the revision (published; not downloaded here)",
        approx_size="2.7 GB",
    ),
    Dataset(
        name="longmemeval_published",
        description="Seven llama-3.1-8b answer sets on LongMemEval with gpt-4o-mini verdicts "
        "(generation logs of a LongMemEval fork); memsuite rejudge reads them",
        licence="MIT",
        source=f"https://github.com/{_HUNK_REPO}",
        revision=_HUNK_REV,
        files=tuple(
            DataFile(
                f"{log}.eval-results-gpt-4o-mini",
                github_url(_HUNK_REPO, _HUNK_REV, f"generation_logs/{log}.eval-results-gpt-4o-mini"),
            )
            for log in _HUNK_LOGS
        ),
        hashes=LOCK,
        folder=True,
    ),
)
