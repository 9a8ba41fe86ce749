"""A session's gold facts, typed and worded: what every oracle builds from.

Gold facts come from ``Session.metadata["gold_facts"]`` as the MEME protocol passes them
(``EpisodeSession.to_session`` in eval/benchmarks/meme/schema.py). memsuite's generator writes each
fact's ``kind`` (state, update, verbatim, rule, dependency, change, delete), ``name`` and, for rules and
dependencies, ``source`` / ``source_name``; for episodes without them (released files) the kind is
read from ``notes`` and ``fact_text`` and the upstream entity from the "depends on ..." clause.

Two readers share these records and their wording:

- the LLM paradigms' ``oracle`` modes (:mod:`memsuite.baselines._llm_paradigm`): ``memory`` turns the
  facts into the paradigm's own operations with no LLM call; ``facts`` gives the paradigm's ingestion
  LLM the facts, worded by :func:`worded` (:func:`fact_chunks`), in place of the dialogue;
- the gold-backed oracle endpoint (``memsuite.eval.oracle``), which replies to a system's real LLM
  calls with the same facts (the benchmarks' gold readers build its records from :func:`oracle_facts`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from memsuite.baselines._llm_support import clip_tokens
from memsuite.memory_systems.chunking import session_header
from memsuite.memory_systems.errors import InvalidInputError
from memsuite.memory_systems.records import Session
from memsuite.memory_systems.tokens import count_tokens_batch

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


#: ``facts`` wording: third person, a label and a colon, no "my"/"is" -- disjoint from the question
#: templates ("What is my X?") and from the generator's fact texts ("My X is V.").
_WORDED = {
    "state": "User's {name}: {value}",
    "verbatim": "User's {name} (exact text):\n{value}",
    "update": "User's {name} was switched to {value}",
    "change": "User's {name} was switched to {value}",
    "rule": "User's {name} is tied to the user's {src}; after a switch of the {src}, "
    "the {name} becomes {value}",
    "dependency": "User's {name} is tied to the user's {src}",
    "delete": "User asked that everything about their {name} be forgotten",
}


def worded(fact: OracleFact) -> str:
    """The fact as an extractor would list it, in the ``facts`` mode's wording (see :data:`_WORDED`)."""
    return _WORDED[fact.kind].format(name=fact.name, value=fact.value, src=fact.source_name or "")


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


#: Heads the worded facts in the text a system's ingestion LLM gets (:func:`fact_chunks`).
FACTS_HEADING = "Facts from this session:"


def fact_chunks(session: Session, max_tokens: int) -> list[str]:
    """The session's gold facts, worded, as the text an ingestion LLM gets in place of the dialogue.

    Each chunk is the session header (:func:`memsuite.memory_systems.chunking.session_header`),
    :data:`FACTS_HEADING` and one ``- <worded fact>`` item per fact (a multi-line verbatim value goes on
    indented lines), packed within ``max_tokens`` cl100k tokens as the dialogue's chunks are; a single
    overlong fact is clipped, as an overlong turn is. Empty for a filler session.

    Raises:
        InvalidInputError: The session carries no gold facts (see :func:`oracle_facts`).
    """
    items = ["- " + worded(f).replace("\n", "\n  ") for f in oracle_facts(session)]
    if not items:
        return []
    head = [session_header(session), FACTS_HEADING]
    head_tokens = sum(count_tokens_batch(head))
    chunks: list[str] = []
    current: list[str] = []
    used = head_tokens
    for item, tokens in zip(items, count_tokens_batch(items), strict=True):
        if current and used + tokens > max_tokens:
            chunks.append("\n".join([*head, *current]))
            current, used = [], head_tokens
        current.append(item)
        used += tokens
    chunks.append("\n".join([*head, *current]))
    return [clip_tokens(chunk, max_tokens) for chunk in chunks]
