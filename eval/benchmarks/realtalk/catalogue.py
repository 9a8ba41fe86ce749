"""REALTALK's data: how the benchmark names it, its catalogue entry (the release's ten chats at a
pinned commit) and its development copy."""

from __future__ import annotations

from memsuite.eval.data.catalogue import LOCK, DataFile, Dataset, github_url
from memsuite.eval.definition import DataOption

_REALTALK_REPO, _REALTALK_REV = "danny911kr/REALTALK", "b903e06a9770bf4e5fe9018c3e132889666d3b4a"
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

#: The ``data`` option: default the release's chats; the shared development folder (the seven public
#: chats) under ``$MEMSUITE_SHARED_DATA`` when it is there.
DATA = DataOption("data", "realtalk", "realtalk", folder=True)

#: The catalogue entries (``memsuite data``).
CATALOGUE = (
    Dataset(
        name="realtalk",
        description="REALTALK: 10 21-day human chats, 728 memory-probing questions",
        licence="none stated by the repository",
        source=f"https://github.com/{_REALTALK_REPO}",
        revision=_REALTALK_REV,
        files=tuple(
            DataFile(name, github_url(_REALTALK_REPO, _REALTALK_REV, f"data/{name}"), digest, size)
            for name, digest, size in _REALTALK_CHATS
        ),
        hashes=f"7 of 10 chats checked against byte-for-byte copies; chats 3, 7 and 9 {LOCK}",
        approx_size="3.3 MB",
        folder=True,
    ),
)
