"""The catalogue of the benchmarks' real data: what each file is, its licence, where it comes from at a
pinned revision, its size and its sha256.

An entry is one file or a file set (BEAM's conversations, WMB-100K's category files, the published
answer sets). ``memsuite data fetch NAME`` downloads it into the data cache
(:mod:`memsuite.eval.data_cache`); configs name it instead of a path (``benchmark_options.data: locomo``).

Where a hash could not be checked when the entry was written, ``sha256`` is None: the first verified
fetch records the file's hash in the cache's lock file, and every later fetch or ``memsuite data
verify`` checks against it. Each entry's ``hashes`` says where its hashes come from.
"""

from __future__ import annotations

from dataclasses import dataclass

from memsuite.eval.datasets_beam import BEAM_KNOWN
from memsuite.memory_systems.errors import ConfigError

_GITHUB_RAW = "https://raw.githubusercontent.com"
_HF = "https://huggingface.co/datasets"


@dataclass(frozen=True)
class DataFile:
    """One file of an entry, stored under the entry's folder at ``path``."""

    path: str
    """Where it lies under the entry's folder (the release's own layout, so loaders read it unchanged)."""
    url: str
    """The download URL, pinned to a revision."""
    sha256: str | None = None
    """The expected sha256, or None: recorded by the first verified fetch (lock file)."""
    size: int | None = None
    """Bytes, where known exactly."""


@dataclass(frozen=True)
class Dataset:
    """One catalogue entry."""

    name: str
    """The name configs and ``memsuite data`` use."""
    description: str
    licence: str
    source: str
    """The repository or dataset page the files come from."""
    revision: str
    """The pinned commit every URL names."""
    files: tuple[DataFile, ...]
    hashes: str
    """Where the expected hashes come from (or that the first fetch records them)."""
    approx_size: str = ""
    """A human size for the whole entry, when not every file's size is known."""
    folder: bool = False
    """A file set: ``memsuite data path`` names the entry's folder, not its one file."""

    @property
    def size(self) -> int | None:
        """Total bytes, when every file's size is known."""
        sizes = [f.size for f in self.files]
        return None if any(s is None for s in sizes) else sum(s for s in sizes if s is not None)

    def file(self, path: str) -> DataFile:
        """The file of this entry at ``path``.

        Raises:
            ConfigError: The entry has no such file (the message lists a few it has).
        """
        for f in self.files:
            if f.path == path:
                return f
        shown = ", ".join(f.path for f in self.files[:6]) + (", ..." if len(self.files) > 6 else "")
        raise ConfigError(f"data {self.name!r} has no file {path!r}; it has: {shown}")


def _github(repo: str, revision: str, path: str) -> str:
    return f"{_GITHUB_RAW}/{repo}/{revision}/{path}"


def _hf(repo: str, revision: str, path: str) -> str:
    return f"{_HF}/{repo}/resolve/{revision}/{path}"


# -- the entries ------------------------------------------------------------------------------------

_LOCOMO_REPO, _LOCOMO_REV = "snap-research/locomo", "3eb6f2c585f5e1699204e3c3bdf7adc5c28cb376"
_LME_REPO, _LME_REV = "xiaowu0162/longmemeval-cleaned", "98d7416c24c778c2fee6e6f3006e7a073259d48f"
_BEAM_REPO, _BEAM_REV = "mohammadtavakoli78/BEAM", "b2da22eac88bb0874c64665f13457eb99835774a"
_WMB_REPO, _WMB_REV = "wontopos/WMB-100K", "436cba847b5161c50273a68ca2847a64155ead17"
_MEME_REPO, _MEME_REV = "meme-benchmark/MEME", "03932fd33a08debf182ad01a47504024201d86f2"
_AUDIT_REPO, _AUDIT_REV = "dial481/locomo-audit", "4a45284496af16866432894dd98a9e7481fdf458"
_ZEP_REPO, _ZEP_REV = "getzep/zep-papers", "fe2238c56299d8beec6ee8a71d661beaf00949f9"
_HUNK_REPO, _HUNK_REV = "Hunk0724/LongMemEval", "9e6d29e69d35a0f59d16490d2e7ed7b86095560f"
_REALTALK_REPO, _REALTALK_REV = "danny911kr/REALTALK", "b903e06a9770bf4e5fe9018c3e132889666d3b4a"

#: BEAM per scale: the release's folder under ``chats/``, its conversations, and about how large they are
#: (the checked conversations' mean size times the count).
BEAM_SCALES = {"100k": ("100K", 20, "12 MB"), "500k": ("500K", 35, "85 MB"), "1m": ("1M", 35, "160 MB")}
_WMB_CATEGORIES = (
    "daily_life", "relationships", "work_career", "health_fitness", "travel_places", "media_taste",
    "finance_goals", "education_skills", "pets_hobbies", "beliefs_values",
)  # fmt: skip
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
_AUDIT_SETS = (
    "fc-baseline/results/gpt-4o-mini-memos/eval_results.json",
    "fc-baseline/results/gpt-4o-mini-cot/eval_results.json",
    "fc-baseline/results/gpt-4.1-mini-memos/eval_results.json",
    "fc-baseline/results/gpt-4.1-mini-cot/eval_results.json",
    "ap-baseline/v1/bs_eval_results_scored.json",
    "ap-baseline/v2/bs_eval_results_scored.json",
)
_LOCK = "recorded by the first verified fetch (lock file)"
#: REALTALK's ten chats (``data/`` of the release) with sha256 and bytes where checked here: the seven
#: public development chats against their byte-for-byte copies; the three others by the first fetch.
_REALTALK_CHATS = (
    ("Chat_1_Emi_Elise.json", "4e947998a751a1ba2c3710fc873b90fbcbc234fda7a5e4e75db2b762e0f25a36", 236_990),
    ("Chat_2_Kevin_Elise.json", "4ac6e319c206731aa9a025c93325eb1edb43686cf39473f058c87ae7deb2d62a", 228_327),
    ("Chat_3_Kevin_Paola.json", None, None),
    ("Chat_4_Emi_Paola.json", "80aa012ed6a918f5b317bd942b4d4811a158d27a6e07b7a5c6182994107a9367", 232_501),
    ("Chat_5_Nicolas_Nebraas.json",
     "32dd7c45786b1a26861dc1574a1bb698a855196fd2ae3fc0c091f3c9ab2d6d06", 466_832),
    ("Chat_6_Vanessa_Nicolas.json",
     "9d5ee072ab5a0667ef71d5644d7cd3a4c6777a1e6e2252bf306f310d982e40ac", 467_008),
    ("Chat_7_Nebraas_Vanessa.json", None, None),
    ("Chat_8_Akib_Muhhamed.json",
     "814f64ad7e8a46f0398f550fe84184e2ba495a292290b9ff96ffc95448280800", 364_402),
    ("Chat_9_Fahim_Akib.json", None, None),
    ("Chat_10_Fahim_Muhhamed.json",
     "26135a9e3482f40bea4c71de570a2d994a361848111067e60587be1dd82a0127", 283_618),
)  # fmt: skip


def _beam(scale: str) -> Dataset:
    folder, count, approx = BEAM_SCALES[scale]
    known = BEAM_KNOWN[folder]
    files = []
    for n in range(1, count + 1):
        chat, questions = known.get(n, ((None, None), (None, None)))
        for path, (digest, size) in (
            (f"{n}/chat.json", chat),
            (f"{n}/probing_questions/probing_questions.json", questions),
        ):
            files.append(
                DataFile(path, _github(_BEAM_REPO, _BEAM_REV, f"chats/{folder}/{path}"), digest, size)
            )
    checked = len(known)
    return Dataset(
        name=f"beam_{scale}",
        description=f"BEAM {folder} scale: {count} conversations (chat.json) and their probing questions",
        licence="CC BY-SA 4.0",
        source=f"https://github.com/{_BEAM_REPO}",
        revision=_BEAM_REV,
        files=tuple(files),
        hashes=f"{checked} of {count} conversations checked against whole copies; others {_LOCK}",
        approx_size=approx,
        folder=True,
    )


def _entries() -> tuple[Dataset, ...]:
    return (
        Dataset(
            name="locomo",
            description="LoCoMo locomo10.json: 10 conversations, 1,986 QA items (ACL 2024)",
            licence="CC BY-NC 4.0",
            source=f"https://github.com/{_LOCOMO_REPO}",
            revision=_LOCOMO_REV,
            files=(
                DataFile(
                    "locomo10.json",
                    _github(_LOCOMO_REPO, _LOCOMO_REV, "data/locomo10.json"),
                    "79fa87e90f04081343b8c8debecb80a9a6842b76a7aa537dc9fdf651ea698ff4",
                ),
            ),
            hashes="the released file's sha256, as the LoCoMo audit and others pin it",
            approx_size="2.8 MB",
        ),
        Dataset(
            name="longmemeval_oracle",
            description="LongMemEval oracle: 500 questions, evidence sessions only (ICLR 2025)",
            licence="MIT",
            source=f"https://huggingface.co/datasets/{_LME_REPO}",
            revision=_LME_REV,
            files=(
                DataFile(
                    "longmemeval_oracle.json",
                    _hf(_LME_REPO, _LME_REV, "longmemeval_oracle.json"),
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
                    _hf(_LME_REPO, _LME_REV, "longmemeval_s_cleaned.json"),
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
                    _hf(_LME_REPO, _LME_REV, "longmemeval_m_cleaned.json"),
                    "9d79e5524794a2e6900a3aa9cb7d9152c5a3e8319c9a87c25494ba1eacee495f",
                ),
            ),
            hashes="the file's LFS sha256 at the revision (published; not downloaded here)",
            approx_size="2.7 GB",
        ),
        _beam("100k"),
        _beam("500k"),
        _beam("1m"),
        Dataset(
            name="wmb100k",
            description="WMB-100K v2.1: all_questions.json, meta.json and the ten category turn files",
            licence="Apache-2.0",
            source=f"https://github.com/{_WMB_REPO}",
            revision=_WMB_REV,
            files=tuple(
                DataFile(f"datasets/{name}", _github(_WMB_REPO, _WMB_REV, f"datasets/{name}"))
                for name in ("all_questions.json", "meta.json", *(f"{c}.jsonl" for c in _WMB_CATEGORIES))
            ),
            hashes=_LOCK,
            approx_size="105,591 turns",
            folder=True,
        ),
        Dataset(
            name="meme_episodes",
            description="MEME released episodes: filler32k (100), filler128k (40) and nofiller",
            licence="see the dataset card at the revision",
            source=f"https://huggingface.co/datasets/{_MEME_REPO}",
            revision=_MEME_REV,
            files=(
                DataFile(
                    "meme_filler32k.json",
                    _hf(_MEME_REPO, _MEME_REV, "meme_filler32k.json"),
                    "a88d28374a002b3e5b1683fb7201d06a1ce739d2ebf94c971c37bb65cf6ebdd3",
                ),
                DataFile(
                    "meme_filler128k.json",
                    _hf(_MEME_REPO, _MEME_REV, "meme_filler128k.json"),
                    "eb861f866dde067e6c7ea6db9bdf17b83a56cdc578dcca57d9d8809dc22747fe",
                ),
                DataFile(
                    "meme_nofiller.json",
                    _hf(_MEME_REPO, _MEME_REV, "meme_nofiller.json"),
                    "1687d028cc1638986df9f58f0c3f072f614cf13d72a791541b4439fddf701636",
                ),
            ),
            hashes="the files' LFS sha256 at the revision (published; not downloaded here)",
            folder=True,
        ),
        Dataset(
            name="realtalk",
            description="REALTALK: 10 21-day human chats, 728 memory-probing questions",
            licence="none stated by the repository",
            source=f"https://github.com/{_REALTALK_REPO}",
            revision=_REALTALK_REV,
            files=tuple(
                DataFile(name, _github(_REALTALK_REPO, _REALTALK_REV, f"data/{name}"), digest, size)
                for name, digest, size in _REALTALK_CHATS
            ),
            hashes=f"7 of 10 chats checked against byte-for-byte copies; chats 3, 7 and 9 {_LOCK}",
            approx_size="3.3 MB",
            folder=True,
        ),
        Dataset(
            name="locomo_audit_errors",
            description="The LoCoMo audit's errors.json: 156 findings on LoCoMo's answer key",
            licence="CC BY-NC 4.0",
            source=f"https://github.com/{_AUDIT_REPO}",
            revision=_AUDIT_REV,
            files=(DataFile("errors.json", _github(_AUDIT_REPO, _AUDIT_REV, "errors.json")),),
            hashes=_LOCK,
            approx_size="150 KB",
        ),
        Dataset(
            name="locomo_audit_answers",
            description="The LoCoMo audit's published answer sets (full-context and adversarial, "
            "eval_results format with three judgments each); memsuite rejudge reads them",
            licence="CC BY-NC 4.0",
            source=f"https://github.com/{_AUDIT_REPO}",
            revision=_AUDIT_REV,
            files=tuple(DataFile(p, _github(_AUDIT_REPO, _AUDIT_REV, p)) for p in _AUDIT_SETS),
            hashes=_LOCK,
            folder=True,
        ),
        Dataset(
            name="locomo_zep_grades",
            description="Zep's published LoCoMo answers with gpt-4o-mini grades; memsuite rejudge reads them",
            licence="CC BY-NC-SA 4.0",
            source=f"https://github.com/{_ZEP_REPO}",
            revision=_ZEP_REV,
            files=(
                DataFile(
                    "zep_locomo_grades.json",
                    _github(
                        _ZEP_REPO,
                        _ZEP_REV,
                        "kg_architecture_agent_memory/locomo_eval/data/zep_locomo_grades.json",
                    ),
                ),
            ),
            hashes=_LOCK,
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
                    _github(_HUNK_REPO, _HUNK_REV, f"generation_logs/{log}.eval-results-gpt-4o-mini"),
                )
                for log in _HUNK_LOGS
            ),
            hashes=_LOCK,
            folder=True,
        ),
    )


#: Every entry by name.
CATALOGUE: dict[str, Dataset] = {entry.name: entry for entry in _entries()}


def get_dataset(name: str) -> Dataset:
    """The catalogue entry ``name``.

    Raises:
        ConfigError: No such entry (the message lists the names).
    """
    try:
        return CATALOGUE[name]
    except KeyError:
        raise ConfigError(f"no data named {name!r} in the catalogue; known: {', '.join(CATALOGUE)}") from None


def split_name(value: str) -> tuple[Dataset, str | None] | None:
    """``(entry, file path or None)`` when ``value`` names a catalogue entry (``NAME``) or one of its
    files (``NAME/path``); None when it does not start with a catalogue name.

    Raises:
        ConfigError: ``NAME/path`` names an entry that has no such file.
    """
    head, _, rest = value.partition("/")
    entry = CATALOGUE.get(head)
    if entry is None:
        return None
    if not rest:
        return entry, None
    return entry, entry.file(rest).path
