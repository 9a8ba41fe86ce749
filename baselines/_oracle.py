"""Extraction oracle: an evidence session's gold facts in place of an LLM's extraction.

Private to ``baselines``. With ``oracle=True`` the LLM paradigms (llm_extraction, temporal_kg, md_flat,
karpathy_wiki) do not call their LLM at ingestion: each turns the gold facts of a session into the
operations its own extraction would have produced, so that its organisation, maintenance and
retrieval are measured apart from the extractor LLM (eval/diagnostics.py compares the two).

Gold facts come from ``Session.metadata["gold_facts"]`` as the MEME protocol passes them
(:meth:`eval.benchmarks.meme.schema.EpisodeSession.to_session`). memsuite's generator writes each
fact's ``kind`` (state, update, verbatim, rule, dependency, change, delete), ``name`` and, for rules and
dependencies, ``source`` / ``source_name``; for episodes without them (released files) the kind is
read from ``notes`` and ``fact_text`` and the upstream entity from the "depends on ..." clause.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from memory_systems.errors import InvalidInputError
from memory_systems.records import Session

#: Fact kinds, as the generator names them (eval/benchmarks/meme/generator/dialogue.py).
KINDS = ("state", "update", "verbatim", "rule", "dependency", "change", "delete")

_DEPENDS = re.compile(r"depends on (?:(?:my|our|the|your)\s+)?(?P<src>[^;.]+)", re.IGNORECASE)


@dataclass(frozen=True)
class OracleFact:
    """One gold fact, typed for the systems' oracle ingestion."""

    kind: str
    """One of :data:`KINDS`."""
    entity: str
    """Entity id the fact is about (a rule's or dependency's dependent)."""
    name: str
    """Display name of the entity ("car insurer")."""
    value: str
    """The value (state/update/verbatim/change), the declared outcome (rule); empty otherwise."""
    text: str
    """The fact as one sentence."""
    source: str | None = None
    """Rule/dependency: id of the upstream entity (None when only its name is known)."""
    source_name: str | None = None
    """Rule/dependency: display name of the upstream entity."""

    @property
    def sets_value(self) -> bool:
        """Whether the fact states the entity's value (now)."""
        return self.kind in ("state", "update", "verbatim", "change")


def _kind(fact: dict[str, Any]) -> str:
    kind = fact.get("kind")
    if kind in KINDS:
        return kind
    notes, text = str(fact.get("notes") or "").lower(), str(fact.get("fact_text") or "").lower()
    value = str(fact.get("value") or "")
    if "depends on" in text or "rule" in notes or "dependency" in notes:
        return "rule" if value else "dependency"
    if not value and ("forget" in text or "delet" in notes or "forget" in notes):
        return "delete"
    if "root change" in notes:
        return "change"
    if "changed from" in text or "update" in notes:
        return "update"
    return "verbatim" if "verbatim" in notes else "state"


def oracle_facts(session: Session) -> list[OracleFact]:
    """The session's gold facts as :class:`OracleFact` (empty for a filler session).

    Raises:
        InvalidInputError: The session carries no gold facts and is not marked as filler (oracle
            mode needs benchmark sessions with gold facts, such as MEME's).
    """
    metadata = session.metadata or {}
    raw = metadata.get("gold_facts")
    if raw is None:
        if metadata.get("type") == "filler":
            return []
        raise InvalidInputError(
            f"oracle mode needs gold facts in session {session.session_id!r} (metadata['gold_facts'], as "
            "the MEME protocol passes them); build the system with oracle=False for other data"
        )
    out = []
    for fact in raw:
        kind = _kind(fact)
        entity = str(fact["entity"])
        text = str(fact.get("fact_text") or f"{entity} is {fact.get('value', '')}.")
        source, source_name = fact.get("source"), fact.get("source_name")
        if kind in ("rule", "dependency") and not source_name:
            match = _DEPENDS.search(text)
            source_name = match["src"].strip() if match else None
        out.append(
            OracleFact(
                kind=kind,
                entity=entity,
                name=str(fact.get("name") or entity.replace("_", " ")),
                value=str(fact.get("value") or ""),
                text=text,
                source=source,
                source_name=source_name or (source.replace("_", " ") if source else None),
            )
        )
    return out
