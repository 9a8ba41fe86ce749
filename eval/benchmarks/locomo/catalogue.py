"""LoCoMo's data: how the benchmark names it, its catalogue entries (the release, the audit's errors
and published answer sets, Zep's graded answers) and its development copy."""

from __future__ import annotations

from memsuite.eval.data.catalogue import LOCK, DataFile, Dataset, github_url
from memsuite.eval.definition import DataOption

_LOCOMO_REPO, _LOCOMO_REV = "snap-research/locomo", "3eb6f2c585f5e1699204e3c3bdf7adc5c28cb376"
_AUDIT_REPO, _AUDIT_REV = "dial481/locomo-audit", "4a45284496af16866432894dd98a9e7481fdf458"
_ZEP_REPO, _ZEP_REV = "getzep/zep-papers", "fe2238c56299d8beec6ee8a71d661beaf00949f9"
_AUDIT_SETS = (
    "fc-baseline/results/gpt-4o-mini-memos/eval_results.json",
    "fc-baseline/results/gpt-4o-mini-cot/eval_results.json",
    "fc-baseline/results/gpt-4.1-mini-memos/eval_results.json",
    "fc-baseline/results/gpt-4.1-mini-cot/eval_results.json",
    "ap-baseline/v1/bs_eval_results_scored.json",
    "ap-baseline/v2/bs_eval_results_scored.json",
)


#: The ``data`` option: default the released file; the shared dev file (7 of the 10 conversations)
#: under ``$MEMSUITE_SHARED_DATA`` when it is there.
DATA = DataOption("data", "locomo", "locomo/locomo.dev.json")

#: The catalogue entries (``memsuite data``).
CATALOGUE = (
    Dataset(
        name="locomo",
        description="LoCoMo locomo10.json: 10 conversations, 1,986 QA items (ACL 2024)",
        licence="CC BY-NC 4.0",
        source=f"https://github.com/{_LOCOMO_REPO}",
        revision=_LOCOMO_REV,
        files=(
            DataFile(
                "locomo10.json",
                github_url(_LOCOMO_REPO, _LOCOMO_REV, "data/locomo10.json"),
                "79fa87e90f04081343b8c8debecb80a9a6842b76a7aa537dc9fdf651ea698ff4",
            ),
        ),
        hashes="the released file's sha256, as the LoCoMo audit and others pin it",
        approx_size="2.8 MB",
    ),
    Dataset(
        name="locomo_audit_errors",
        description="The LoCoMo audit's errors.json: 156 findings on LoCoMo's answer key",
        licence="CC BY-NC 4.0",
        source=f"https://github.com/{_AUDIT_REPO}",
        revision=_AUDIT_REV,
        files=(DataFile("errors.json", github_url(_AUDIT_REPO, _AUDIT_REV, "errors.json")),),
        hashes=LOCK,
        approx_size="150 KB",
    ),
    Dataset(
        name="locomo_audit_answers",
        description="The LoCoMo audit's published answer sets (full-context and adversarial, "
        "eval_results format with three judgments each); memsuite rejudge reads them",
        licence="CC BY-NC 4.0",
        source=f"https://github.com/{_AUDIT_REPO}",
        revision=_AUDIT_REV,
        files=tuple(DataFile(p, github_url(_AUDIT_REPO, _AUDIT_REV, p)) for p in _AUDIT_SETS),
        hashes=LOCK,
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
                github_url(
                    _ZEP_REPO,
                    _ZEP_REV,
                    "kg_architecture_agent_memory/locomo_eval/data/zep_locomo_grades.json",
                ),
            ),
        ),
        hashes=LOCK,
    ),
)
