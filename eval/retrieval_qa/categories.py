"""The question categories LoCoMo numbered and REALTALK reuses (its release scores them with the same
per-category rules), named as the released evaluation code names them (snap-research/LoCoMo
``task_eval/evaluation_stats.py``, ``CATEGORY_MAPPING``): 1 multi-hop, 2 temporal, 3 open-domain,
4 single-hop, 5 adversarial."""

from __future__ import annotations

#: Category number -> name (module docstring).
CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
#: Column order of the published comparisons (mem0 arXiv 2504.19413 Table 1); adversarial last.
CATEGORY_ORDER = (4, 1, 3, 2, 5)
#: The category of questions the conversation cannot answer (:mod:`.adversarial`).
ADVERSARIAL = 5
