"""MEME's data: how the benchmark names it and its catalogue entry (the released episodes); without a
``data`` option it generates its episodes."""

from __future__ import annotations

from memsuite.eval.data.catalogue import DataFile, Dataset, hf_url
from memsuite.eval.definition import DataOption

_MEME_REPO, _MEME_REV = "meme-benchmark/MEME", "03932fd33a08debf182ad01a47504024201d86f2"

#: The ``data`` option: a released episode file; absent, the episodes are generated.
DATA = DataOption("data", None)

#: The catalogue entries (``memsuite data``).
CATALOGUE = (
    Dataset(
        name="meme_episodes",
        description="MEME released episodes: filler32k (100), filler128k (40) and nofiller",
        licence="see the dataset card at the revision",
        source=f"https://huggingface.co/datasets/{_MEME_REPO}",
        revision=_MEME_REV,
        files=(
            DataFile(
                "meme_filler32k.json",
                hf_url(_MEME_REPO, _MEME_REV, "meme_filler32k.json"),
                "a88d28374a002b3e5b1683fb7201d06a1ce739d2ebf94c971c37bb65cf6ebdd3",
            ),
            DataFile(
                "meme_filler128k.json",
                hf_url(_MEME_REPO, _MEME_REV, "meme_filler128k.json"),
                "eb861f866dde067e6c7ea6db9bdf17b83a56cdc578dcca57d9d8809dc22747fe",
            ),
            DataFile(
                "meme_nofiller.json",
                hf_url(_MEME_REPO, _MEME_REV, "meme_nofiller.json"),
                "1687d028cc1638986df9f58f0c3f072f614cf13d72a791541b4439fddf701636",
            ),
        ),
        hashes="the files' LFS sha256 at the revision (published; not downloaded here)",
        folder=True,
    ),
)
