"""The temporal knowledge graph's model: bi-temporal fact edges between entity nodes (networkx).

Private to ``baselines`` (baselines/temporal_kg.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import networkx as nx

#: Kinds of edge: an extracted or structured fact, a dependency, or an unstructured stored note.
EDGE_KINDS = ("fact", "dependency", "note")

_ARTICLES = {"the", "a", "an", "my", "our", "your"}
_NON_WORD = re.compile(r"[^\w]+")


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def entity_key(name: str) -> str:
    """The node key of an entity name: lower-case words, punctuation and a leading article dropped."""
    words = _NON_WORD.sub(" ", name.lower()).split()
    while len(words) > 1 and words[0] in _ARTICLES:
        words = words[1:]
    return " ".join(words)


def relation_key(relation: str) -> str:
    """A relation name as snake_case (``Uses Database`` -> ``uses_database``)."""
    return "_".join(_NON_WORD.sub(" ", relation.lower()).split())


def same_entity(a: str, b: str) -> bool:
    """Whether two entity keys plausibly name one entity (equal, or one's words contain the other's).

    Used only to connect dependencies with facts, which are extracted from different sessions and
    name the entity less consistently than facts about one property do.
    """
    if a == b:
        return True
    wa, wb = set(a.split()), set(b.split())
    return bool(wa and wb) and (wa <= wb or wb <= wa)


@dataclass
class Edge:
    """A fact or a dependency between two entities."""

    id: str
    """Memory id."""
    subject: str
    """Entity key of the subject (a dependency's dependent X)."""
    relation: str
    """snake_case relation (``depends_on`` for a dependency)."""
    object: str
    """Entity key of the object (a dependency's source Y)."""
    fact: str
    """The fact as a sentence: what search and retrieve return."""
    kind: str = "fact"
    """One of :data:`EDGE_KINDS`."""
    value: str = ""
    """The object as written (a fact's value); the node key loses case and punctuation."""
    valid_at: str | None = None
    """When the fact became true in the world (ISO 8601; the session's time), if known."""
    invalid_at: str | None = None
    """When it stopped being true in the world (the replacing fact's ``valid_at``)."""
    created_at: str = ""
    """When this memory recorded it (UTC wall clock, ISO 8601)."""
    expired_at: str | None = None
    """When this memory retired it (UTC wall clock); None while it is current."""
    uncertain: str | None = None
    """Why the fact may no longer hold (a dependency's source changed, no outcome stated)."""
    if_changed: str | None = None
    """Dependency: the value X takes when Y changes (Cascade); None means unknown (Absence)."""
    derived_from: str | None = None
    """Id of the dependency whose rule produced this fact."""
    replaced_by: str | None = None
    """Id of the fact that invalidated this one."""
    session_id: str | None = None
    """Session it was extracted from."""
    history: list[dict[str, str]] = field(default_factory=list)
    """Earlier texts after direct updates: ``{"text", "until"}``."""
    metadata: dict[str, Any] = field(default_factory=dict)
    """Metadata supplied at store time."""

    @property
    def current(self) -> bool:
        """Not invalidated."""
        return self.expired_at is None


class Graph:
    """One namespace: a networkx multigraph of entities plus the edges by id."""

    def __init__(self) -> None:
        self.g = nx.MultiDiGraph()
        self.edges: dict[str, Edge] = {}

    def add(self, edge: Edge, subject_name: str, object_name: str) -> None:
        for key, name in ((edge.subject, subject_name), (edge.object, object_name)):
            if key not in self.g:
                self.g.add_node(key, name=name)
        self.g.add_edge(edge.subject, edge.object, key=edge.id)
        self.edges[edge.id] = edge

    def remove(self, edge_id: str) -> Edge:
        edge = self.edges.pop(edge_id)
        self.g.remove_edge(edge.subject, edge.object, key=edge_id)
        for node in {edge.subject, edge.object}:
            if self.g.degree(node) == 0:
                self.g.remove_node(node)
        return edge

    def name(self, key: str) -> str:
        return self.g.nodes[key]["name"] if key in self.g else key

    def incident(self, key: str) -> list[Edge]:
        """Every edge touching an entity."""
        if key not in self.g:
            return []
        ids = [k for *_, k in self.g.out_edges(key, keys=True)] + [
            k for *_, k in self.g.in_edges(key, keys=True)
        ]
        return [self.edges[i] for i in dict.fromkeys(ids)]

    def facts(self, subject: str, relation: str | None = None) -> list[Edge]:
        """Current facts of a subject (and relation), oldest first."""
        return [
            e
            for e in self.incident(subject)
            if e.kind == "fact" and e.current and e.subject == subject and relation in (None, e.relation)
        ]


def tier(edge: Edge) -> int:
    """Retrieval order of an edge: current facts and notes, dependency rules, invalidated facts."""
    if not edge.current:
        return 2
    return 1 if edge.kind == "dependency" else 0


def day(iso: str | None) -> str:
    return iso[:10] if iso else "?"
