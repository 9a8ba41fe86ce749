"""WMB-100K's data: how the benchmark names it, its catalogue entry and its development copy."""

from __future__ import annotations

from memsuite.eval.data.catalogue import LOCK, DataFile, Dataset, github_url
from memsuite.eval.definition import DataOption

_WMB_REPO, _WMB_REV = "wontopos/WMB-100K", "436cba847b5161c50273a68ca2847a64155ead17"
_WMB_CATEGORIES = (
    "daily_life", "relationships", "work_career", "health_fitness", "travel_places", "media_taste",
    "finance_goals", "education_skills", "pets_hobbies", "beliefs_values",
)  # fmt: skip

#: The ``data_dir`` option: default the fetched release; the shared dev sample under
#: ``$MEMSUITE_SHARED_DATA`` when it is there.
DATA = DataOption("data_dir", "wmb100k", "wmb100k", folder=True)

#: The catalogue entries (``memsuite data``).
CATALOGUE = (
    Dataset(
        name="wmb100k",
        description="WMB-100K v2.1: all_questions.json, meta.json and the ten category turn files",
        licence="Apache-2.0",
        source=f"https://github.com/{_WMB_REPO}",
        revision=_WMB_REV,
        files=tuple(
            DataFile(f"datasets/{name}", github_url(_WMB_REPO, _WMB_REV, f"datasets/{name}"))
            for name in ("all_questions.json", "meta.json", *(f"{c}.jsonl" for c in _WMB_CATEGORIES))
        ),
        hashes=LOCK,
        approx_size="105,591 turns",
        folder=True,
    ),
)
