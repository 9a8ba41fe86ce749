"""The development copies of real data that tests read, named by ``@pytest.mark.shared_data(NAME, ...)``,
and why a test cannot run where they are absent (tests/conftest.py skips it, or fails it under CI)."""

from __future__ import annotations

from pathlib import Path

#: Each name a marker may give: the development copy under $MEMSUITE_SHARED_DATA, and the catalogue
#: entries (``memsuite data fetch``) that hold its full release.
SHARED_COPIES: dict[str, tuple[str, tuple[str, ...]]] = {
    "locomo": ("locomo/locomo.dev.json", ("locomo",)),
    "longmemeval": ("longmemeval", ("longmemeval_oracle", "longmemeval_s")),
    "beam": ("beam", ("beam_100k", "beam_500k", "beam_1m")),
    "realtalk": ("realtalk", ("realtalk",)),
    "lifebench": ("lifebench", ("lifebench",)),
    "wmb100k": ("wmb100k", ("wmb100k",)),
    "locomo_audit": ("published/locomo/audit", ("locomo_audit_errors", "locomo_audit_answers")),
    "locomo_zep_grades": ("published/locomo/zep_locomo_grades.dev.json", ("locomo_zep_grades",)),
    "longmemeval_published": ("published/longmemeval", ("longmemeval_published",)),
}


def missing_shared_data(root: Path, names: list[str]) -> str | None:
    """Why the development copies ``names`` cannot be read under ``root`` (which, and how to get them);
    None when all are there.

    Raises:
        KeyError: A name that is not in :data:`SHARED_COPIES`.
    """
    unknown = [n for n in names if n not in SHARED_COPIES]
    if unknown:
        raise KeyError(f"shared_data marker names {unknown}; known: {', '.join(SHARED_COPIES)}")
    missing = [n for n in names if not (root / SHARED_COPIES[n][0]).exists()]
    if not missing:
        return None
    copies = ", ".join(f"{n} ($MEMSUITE_SHARED_DATA/{SHARED_COPIES[n][0]})" for n in missing)
    fetch = ", ".join(f"`memsuite data fetch {e}`" for n in missing for e in SHARED_COPIES[n][1])
    plural = "ies" if len(missing) > 1 else "y"
    return (
        f"needs the development cop{plural} of {copies}, not found under {root}: set MEMSUITE_SHARED_DATA "
        f"to the folder of development copies (a user gets the full release with {fetch})"
    )
