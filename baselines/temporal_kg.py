"""Temporal knowledge-graph memory on networkx, with dependency reasoning (docs/systems.md).

Entities are nodes; facts are edges ``subject -[relation]-> object`` carrying Graphiti's bi-temporal
fields: ``valid_at`` / ``invalid_at`` (when the fact held in the world: the session's time) and
``created_at`` / ``expired_at`` (when this memory learnt and retired it: wall clock, UTC).

Per session an LLM extracts facts, dependencies and forget requests. A new fact *contradicts* the
current edges with the same subject and the same relation but another object; those are invalidated
(soft: kept, with ``invalid_at`` and ``expired_at`` set, for history). The search for contradictions
never leaves that subject and relation: Graphiti compares a new fact with edges across the graph,
so unrelated facts can retire each other.

**Dependency edges** record "X depends on Y; if Y changes, X will be Z". When a fact about Y is
replaced, each dependency on Y is applied: with a stated outcome Z, X's current value is invalidated
and "X is Z" added (Cascade); without one, X's current facts are marked uncertain, naming the change
(Absence). Either propagates to what depends on X. MEME found no existing system doing this.

Retrieval fuses (reciprocal ranks) BM25 over the edge facts and relation names, vector similarity,
and the graph neighbourhood of the best hits. Current facts come first, then dependency rules;
invalidated edges are excluded unless ``include_invalidated``, and then come last. The context shows
a fact with its date, its earlier values and any uncertainty.

Extraction oracle (``oracle``, baselines/gold_facts.py): ``memory`` builds the extraction from the gold
facts, one subject and relation per entity, so invalidation and forgetting follow the gold entities
(the organisation-and-retrieval ceiling); ``facts`` gives the extraction call the session's gold facts
instead of the dialogue, so what is measured is whether its triples, dependencies and forget requests
name things consistently enough for the invalidation above to keep the graph current.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np

from memsuite.baselines._llm_paradigm import LLMParadigm, ingest_chunks
from memsuite.baselines._llm_support import (
    LexicalIndex,
    session_iso,
)
from memsuite.baselines._temporal_extract import (
    EXTRACT_PROMPT,
    EXTRACT_TOOL,
    Extraction,
    oracle_extraction,
    parse_extraction,
)
from memsuite.baselines._temporal_graph import (
    EDGE_KINDS,
    Edge,
    Graph,
    day,
    entity_key,
    now,
    relation_key,
    same_entity,
    tier,
)
from memsuite.baselines.gold_facts import oracle_facts
from memsuite.memory_systems.base import CONTEXT_SEPARATOR, NO_MEMORY
from memsuite.memory_systems.embedder import Embedder
from memsuite.memory_systems.errors import InvalidInputError, UnknownMemoryError
from memsuite.memory_systems.llm.protocol import ChatClient
from memsuite.memory_systems.persist import read_jsonl, write_jsonl
from memsuite.memory_systems.records import Hit, IngestReport, MemoryRecord, RetrievalResult, Session
from memsuite.memory_systems.registry import register
from memsuite.memory_systems.store import (
    check_memory_id,
    check_namespace,
    check_text,
    check_texts,
)
from memsuite.memory_systems.vector_index import VectorIndex, load_indexes, save_indexes

logger = logging.getLogger(__name__)

__all__ = [
    "EDGE_KINDS",
    "EXTRACT_PROMPT",
    "Edge",
    "TemporalKGMemory",
    "entity_key",
    "oracle_extraction",
    "relation_key",
]

#: Reciprocal-rank-fusion constant (Cormack et al. 2009; Graphiti uses the same default).
RRF_K = 60
#: Best hits whose graph neighbourhood joins the ranking.
SEED_HITS = 3


@register("temporal_kg")
class TemporalKGMemory(LLMParadigm):
    """Bi-temporal knowledge graph with scoped invalidation and dependency rules.

    The four verbs work without the LLM: ``store`` adds each text as a fact edge (structured when its
    metadata has ``subject``, ``relation`` and ``object``, else a note on its own node); ``update``
    replaces the text (the old one goes to the edge's history); ``delete`` removes the edge from the
    graph, the vector index and the lexical index. ``ingest_session`` needs the LLM.

    Args:
        llm: The internal LLM client; None allows everything but ingestion.
        embedder: The embedder; default the offline all-MiniLM-L6-v2.
        top_k: Default number of facts of :meth:`retrieve`.
        include_invalidated: Also return invalidated facts (after all current ones).
        input_tokens: Budget of session text per extraction call, in cl100k tokens.
        reply_tokens: Completion budget per call.
        protocol: "json" (JSON replies) or "tools" (a forced tool call, whose arguments endpoints
            such as llama.cpp constrain to the schema).
        oracle: ``memory`` (or True): build each session's facts, dependency rules and forget requests
            from its gold facts (``Session.metadata["gold_facts"]``, see baselines/gold_facts.py) instead
            of asking the LLM, keyed by entity name; invalidation and dependency propagation run as
            usual. No LLM needed. ``facts``: the extraction call gets the session's gold facts, worded
            apart from the question templates (``gold_facts.fact_chunks``), in place of the dialogue; its
            reply is applied as natively (invalidation by the subject and relation it names, its
            forget requests, its dependencies), so maintenance is measured. False / "off": native.
    """

    name = "temporal_kg"

    def __init__(
        self,
        *,
        llm: ChatClient | None = None,
        embedder: Embedder | None = None,
        top_k: int = 5,
        include_invalidated: bool = False,
        input_tokens: int = 900,
        reply_tokens: int = 500,
        protocol: str = "json",
        oracle: bool | str = False,
    ) -> None:
        super().__init__(
            llm=llm,
            top_k=top_k,
            protocol=protocol,
            input_tokens=input_tokens,
            reply_tokens=reply_tokens,
            oracle=oracle,
        )
        self.embedder = (embedder or Embedder()).account()  # its own view: exact usage
        self.include_invalidated = bool(include_invalidated)
        self._graphs: dict[str, Graph] = {}
        self._vectors: dict[str, VectorIndex] = {}
        self._lexical: dict[str, tuple[LexicalIndex, list[Edge]]] = {}
        self._next_id = 0

    def params(self) -> dict[str, Any]:
        return {
            "top_k": self.top_k,
            "include_invalidated": self.include_invalidated,
            "input_tokens": self.input_tokens,
            "reply_tokens": self.reply_tokens,
            "protocol": self.protocol,
            "oracle": self.oracle,
            "embedder": self.embedder.model_name,
        }

    def graph(self, *, namespace: str = "default") -> nx.MultiDiGraph:
        """The namespace's networkx graph (nodes: entity keys with ``name``; edge keys: memory ids)."""
        return self._graph(check_namespace(namespace)).g

    def edges(self, *, namespace: str = "default") -> list[Edge]:
        """Every edge of the namespace, current and invalidated, in creation order."""
        return list(self._graph(check_namespace(namespace)).edges.values())

    def _graph(self, namespace: str) -> Graph:
        return self._graphs.get(namespace) or Graph()

    # -- changes, mirrored in every index ---------------------------------------------------------

    def _add_edges(
        self, namespace: str, edges: list[tuple[Edge, str, str]], vectors: np.ndarray | None = None
    ) -> list[Edge]:
        """Add ``(edge without id, subject name, object name)`` triples; ids are assigned here."""
        graph = self._graphs.setdefault(namespace, Graph())
        if vectors is None:
            vectors = self.embedder.encode([e.fact for e, _, _ in edges])
        added = []
        for edge, subject_name, object_name in edges:
            edge.id = str(self._next_id)
            self._next_id += 1
            edge.created_at = edge.created_at or now()
            if edge.kind == "note":
                edge.subject = edge.object = f"note {edge.id}"
                subject_name = object_name = edge.subject
            graph.add(edge, subject_name, object_name)
            added.append(edge)
        index = self._vectors.get(namespace)
        if index is None:
            index = self._vectors[namespace] = VectorIndex(self.embedder.dim)
        index.add([int(e.id) for e in added], vectors)
        self._lexical.pop(namespace, None)
        return added

    def _add_one(
        self,
        namespace: str,
        edge: Edge,
        subject_name: str,
        object_name: str,
        known: dict[str, np.ndarray] | None = None,
    ) -> Edge:
        """Add one edge; ``known`` holds vectors already computed for some fact texts."""
        vector = (known or {}).get(edge.fact)
        vectors = None if vector is None else vector[None, :]
        return self._add_edges(namespace, [(edge, subject_name, object_name)], vectors)[0]

    def _remove_edge(self, namespace: str, edge_id: str) -> Edge:
        edge = self._graphs[namespace].remove(edge_id)
        self._vectors[namespace].remove(int(edge_id))
        self._lexical.pop(namespace, None)
        return edge

    def _invalidate(self, namespace: str, edge: Edge, at: str | None, by: str | None) -> None:
        edge.invalid_at = at
        edge.expired_at = now()
        edge.replaced_by = by
        self._lexical.pop(namespace, None)

    # -- the four verbs --------------------------------------------------------------------------

    def store(
        self,
        items: Sequence[str],
        *,
        namespace: str = "default",
        metadata: Sequence[dict[str, Any]] | None = None,
    ) -> list[str]:
        texts = check_texts(items)
        check_namespace(namespace)
        if metadata is not None and len(metadata) != len(texts):
            raise InvalidInputError(f"metadata has {len(metadata)} entries for {len(texts)} texts")
        edges = []
        for i, text in enumerate(texts):
            meta = dict(metadata[i]) if metadata else {}
            parts = [meta.get(key) for key in ("subject", "relation", "object")]
            if all(isinstance(p, str) and p.strip() for p in parts):
                subject, relation, value = (p.strip() for p in parts)  # type: ignore[union-attr]
                edge = Edge("", entity_key(subject), relation_key(relation), entity_key(value), text)
                edge.value, edge.metadata = value, meta
                edges.append((edge, subject, value))
            else:
                edges.append((Edge("", "", "note", "", text, kind="note", metadata=meta), "", ""))
        return [e.id for e in self._add_edges(namespace, edges)]

    def _search(self, query: str, *, k: int, namespace: str) -> list[Hit]:
        graph = self._graph(namespace)
        return [
            Hit(edge.id, edge.fact, score, self._hit_metadata(graph, edge))
            for edge, score in self._rank(query, k, namespace)
        ]

    def update(self, memory_id: str, text: str, *, namespace: str = "default") -> None:
        edge = self._get(memory_id, namespace)
        check_text(text)
        vector = self.embedder.encode([text])
        edge.history.append({"text": edge.fact, "until": now()})
        edge.fact = text
        index = self._vectors[namespace]
        index.remove(int(edge.id))
        index.add([int(edge.id)], vector)
        self._lexical.pop(namespace, None)

    def delete(self, memory_id: str, *, namespace: str = "default") -> None:
        self._get(memory_id, namespace)
        self._remove_edge(namespace, memory_id)

    def records(self, *, namespace: str = "default") -> list[MemoryRecord]:
        return [
            MemoryRecord(e.id, e.fact, namespace, e.metadata)
            for e in self.edges(namespace=namespace)
            if e.current
        ]

    def reset(self, *, namespace: str | None = None) -> None:
        if namespace is None:
            for store in (self._graphs, self._vectors, self._lexical):
                store.clear()
            return
        check_namespace(namespace)
        for store in (self._graphs, self._vectors, self._lexical):
            store.pop(namespace, None)

    def _get(self, memory_id: object, namespace: str) -> Edge:
        check_memory_id(memory_id)
        edge = self._graph(check_namespace(namespace)).edges.get(memory_id)  # type: ignore[arg-type]
        if edge is None:
            raise UnknownMemoryError(f"unknown memory id {memory_id!r} in namespace {namespace!r}")
        return edge

    # -- retrieval ---------------------------------------------------------------------------------

    def _candidates(self, namespace: str) -> tuple[LexicalIndex, list[Edge]]:
        cached = self._lexical.get(namespace)
        if cached is None:
            edges = [
                e for e in self._graph(namespace).edges.values() if e.current or self.include_invalidated
            ]
            # Graphiti's full-text index covers the relation name with the fact: "database" then
            # finds "payment service -[uses_database]-> CockroachDB" stated as "moved to CockroachDB".
            documents = [
                e.fact if e.kind == "note" else f"{e.fact} {e.relation.replace('_', ' ')}" for e in edges
            ]
            cached = self._lexical[namespace] = (LexicalIndex(documents), edges)
        return cached

    def _rank(self, query: str, k: int, namespace: str) -> list[tuple[Edge, float]]:
        """The ``k`` best edges by fused lexical, vector and neighbourhood rank; current ones first."""
        lexical, edges = self._candidates(namespace)
        if not edges:
            return []
        graph = self._graph(namespace)
        depth = max(4 * k, 20)
        position = {e.id: i for i, e in enumerate(edges)}
        lexical_ranked = [edges[i].id for i, score in lexical.top(query, depth) if score > 0]
        index = self._vectors[namespace]
        # Invalidated edges stay in the vector index (for include_invalidated): fetch past them.
        found = index.search(self.embedder.encode([query]), min(len(index), depth + len(index) - len(edges)))
        vector_ranked = [str(i) for i, _ in found if str(i) in position][:depth]
        scores: dict[str, float] = {}
        for ranking in (lexical_ranked, vector_ranked):
            for rank, edge_id in enumerate(ranking):
                scores[edge_id] = scores.get(edge_id, 0.0) + 1.0 / (RRF_K + rank + 1)
        seeds = sorted(scores, key=lambda i: (-scores[i], position[i]))[:SEED_HITS]
        neighbours: list[str] = []
        for seed in seeds:
            edge = graph.edges[seed]
            for node in (edge.subject, edge.object):
                neighbours += [e.id for e in graph.incident(node) if e.id != seed and e.id in position]
        for rank, edge_id in enumerate(dict.fromkeys(neighbours)):
            scores[edge_id] = scores.get(edge_id, 0.0) + 1.0 / (RRF_K + rank + 1)
        # Current facts first, then dependency rules (a rule's "will be" next to the fact it produced
        # invites a hedged answer), then invalidated facts.
        ranked = sorted(scores, key=lambda i: (tier(graph.edges[i]), -scores[i], position[i]))
        return [(graph.edges[i], scores[i]) for i in ranked[:k]]

    def _retrieve(self, question: str, *, k: int, namespace: str) -> RetrievalResult:
        """One hybrid search; each fact rendered with its date, earlier values and any uncertainty."""
        ranked = self._rank(question, k, namespace)
        graph = self._graph(namespace)
        hits = tuple(Hit(edge.id, self._render(graph, edge), score) for edge, score in ranked)
        context = CONTEXT_SEPARATOR.join(hit.text for hit in hits) if hits else NO_MEMORY
        return RetrievalResult(context, hits)

    def _render(self, graph: Graph, edge: Edge) -> str:
        text = edge.fact
        if not edge.current:
            return f"{text} [no longer true since {day(edge.invalid_at or edge.expired_at)}]"
        if edge.uncertain:
            text += f" [uncertain: {edge.uncertain}]"
        if edge.valid_at:
            text += f" (since {day(edge.valid_at)})"
        if edge.kind == "fact":
            earlier = [
                e
                for e in graph.incident(edge.subject)
                if e.kind == "fact"
                and not e.current
                and e.subject == edge.subject
                and e.relation == edge.relation
            ]
            if earlier:
                text += (
                    " (earlier: "
                    + "; ".join(f"{e.value or e.fact} until {day(e.invalid_at)}" for e in earlier)
                    + ")"
                )
        return text

    def _hit_metadata(self, graph: Graph, edge: Edge) -> dict[str, Any]:
        return {
            **edge.metadata,
            "kind": edge.kind,
            "subject": graph.name(edge.subject),
            "relation": edge.relation,
            "object": edge.value or graph.name(edge.object),
            "valid_at": edge.valid_at,
            "invalid_at": edge.invalid_at,
            "uncertain": edge.uncertain,
        }

    def snapshot(self, *, namespace: str = "default") -> str:
        """Current facts (with uncertainty), dependency rules, then invalidated facts with their validity."""
        graph = self._graph(check_namespace(namespace))
        sections = []
        current = [e for e in graph.edges.values() if e.current and e.kind != "dependency"]
        rules = [e for e in graph.edges.values() if e.kind == "dependency"]
        past = [e for e in graph.edges.values() if not e.current]
        if current:
            sections.append("Facts:\n" + "\n".join(f"- {self._render(graph, e)}" for e in current))
        if rules:
            sections.append("Dependencies:\n" + "\n".join(f"- {e.fact}" for e in rules))
        if past:
            sections.append(
                "No longer true:\n"
                + "\n".join(f"- {e.fact} ({day(e.valid_at)} to {day(e.invalid_at)})" for e in past)
            )
        return "\n\n".join(sections)

    # -- ingestion --------------------------------------------------------------------------------

    def _ingest(self, session: Session, namespace: str, report: IngestReport) -> None:
        """Extract facts, dependencies and forget requests; invalidate, add, and apply dependency rules."""
        for chunk in ingest_chunks(session, self.input_tokens, self.oracle_mode):
            data, error = self._ask_session(EXTRACT_TOOL, EXTRACT_PROMPT, session, chunk)
            extraction = parse_extraction(data)
            if extraction is None:
                logger.info("%s: extraction failed (%s)", self.name, error or f"bad reply {data!r:.200}")
                report.failures += 1
                continue
            report.failures += extraction.invalid
            self._apply_extraction(extraction, session, namespace, report)

    def _ingest_oracle(self, session: Session, namespace: str, report: IngestReport) -> None:
        """Apply the extraction the gold facts describe (what a perfect extractor would return)."""
        extraction = oracle_extraction(oracle_facts(session))
        if extraction.facts or extraction.dependencies or extraction.forget:
            self._apply_extraction(extraction, session, namespace, report)

    def _apply_extraction(
        self, extraction: Extraction, session: Session, namespace: str, report: IngestReport
    ) -> None:
        """Apply one chunk's extraction: forget, record dependencies, add facts, propagate changes."""
        valid_at = session_iso(session.timestamp)
        graph = self._graphs.setdefault(namespace, Graph())
        for item in extraction.forget:
            subject, relation = entity_key(item["subject"]), item.get("relation")
            for edge in list(graph.edges.values()):
                if edge.kind == "fact" and edge.subject == subject and relation in (None, edge.relation):
                    self._remove_edge(namespace, edge.id)
                    report.deleted += 1
        for item in extraction.dependencies:
            self._add_dependency(item, namespace, session, report)
        changes: list[tuple[str, str, str]] = []  # (subject key, old values, new value)
        texts = [item["fact"] for item in extraction.facts]
        known = dict(zip(texts, self.embedder.encode(texts), strict=True)) if texts else {}  # one batch
        for item in extraction.facts:
            change = self._add_fact(item, namespace, valid_at, session, report, known)
            if change is not None:
                changes.append(change)
        visited: set[str] = set()
        for subject, old, new in changes:
            self._propagate(
                namespace,
                subject,
                f"{graph.name(subject)} changed from {old} to {new}",
                valid_at,
                session,
                report,
                visited,
                new_value=True,
            )

    def _add_dependency(
        self, item: dict[str, Any], namespace: str, session: Session, report: IngestReport
    ) -> None:
        graph = self._graphs[namespace]
        x_name, y_name, outcome = item["dependent"], item["source"], item.get("if_source_changes")
        x, y = entity_key(x_name), entity_key(y_name)
        text = f"{x_name} depends on {y_name}" + (
            f"; if {y_name} changes, {x_name} will be {outcome}." if outcome else "."
        )
        for edge in graph.edges.values():
            if edge.kind == "dependency" and edge.subject == x and edge.object == y:
                if outcome and edge.if_changed != outcome:  # the rule was restated with a new outcome
                    edge.if_changed = outcome
                    self.update(edge.id, text, namespace=namespace)
                    report.updated += 1
                return
        edge = Edge(
            "", x, "depends_on", y, text, kind="dependency", if_changed=outcome, session_id=session.session_id
        )
        edge.value = y_name
        if item.get("relation"):
            edge.metadata["relation"] = relation_key(item["relation"])
        self._add_one(namespace, edge, x_name, y_name)
        report.added += 1

    def _add_fact(
        self,
        item: dict[str, Any],
        namespace: str,
        valid_at: str | None,
        session: Session,
        report: IngestReport,
        known: dict[str, np.ndarray],
    ) -> tuple[str, str, str] | None:
        """Add one fact, invalidating what it contradicts; returns the change it made, if any."""
        graph = self._graphs[namespace]
        subject, relation, value = entity_key(item["subject"]), relation_key(item["relation"]), item["object"]
        same = graph.facts(subject, relation)
        for edge in same:
            if edge.object == entity_key(value):  # already known; restating it settles any doubt
                edge.uncertain = None
                return None
        at = item.get("valid_at") if isinstance(item.get("valid_at"), str) else valid_at
        new = Edge(
            "",
            subject,
            relation,
            entity_key(value),
            item["fact"],
            value=value,
            valid_at=at,
            session_id=session.session_id,
        )
        self._add_one(namespace, new, item["subject"], value, known)
        report.added += 1
        for edge in same:  # contradictions: same subject and relation only, never graph-wide
            self._invalidate(namespace, edge, at, new.id)
            report.updated += 1
        if not same:
            return None
        return subject, " / ".join(e.value or graph.name(e.object) for e in same), value

    def _propagate(
        self,
        namespace: str,
        source: str,
        reason: str,
        valid_at: str | None,
        session: Session,
        report: IngestReport,
        visited: set[str],
        *,
        new_value: bool,
    ) -> None:
        """Apply every dependency on ``source``: its rule (Cascade) or uncertainty (Absence).

        ``new_value`` is False when ``source`` itself only became uncertain: then no rule can be
        applied (it is unknown whether the source changed) and dependents become uncertain too.
        """
        graph = self._graphs[namespace]
        rules = [
            e
            for e in graph.edges.values()
            if e.kind == "dependency" and e.id not in visited and same_entity(e.object, source)
        ]
        for rule in rules:
            visited.add(rule.id)
            dependent = rule.subject
            targets = [e for key in self._subjects_like(graph, dependent) for e in graph.facts(key)]
            relation = rule.metadata.get("relation") or (
                targets[0].relation if len({e.relation for e in targets}) == 1 else None
            )
            scoped = [e for e in targets if relation in (None, e.relation)]
            name = graph.name(dependent)
            if new_value and rule.if_changed:
                outcome = rule.if_changed
                if any(e.object == entity_key(outcome) for e in scoped):
                    continue  # the rule's outcome already holds
                fact = f"{name} is {outcome} (because {reason})."
                new = Edge(
                    "",
                    dependent,
                    relation or "is",
                    entity_key(outcome),
                    fact,
                    value=outcome,
                    valid_at=valid_at,
                    derived_from=rule.id,
                    session_id=session.session_id,
                )
                self._add_one(namespace, new, name, outcome)
                report.added += 1
                for edge in scoped:
                    self._invalidate(namespace, edge, valid_at, new.id)
                    report.updated += 1
                old = " / ".join(e.value for e in scoped) or "unknown"
                self._propagate(
                    namespace,
                    dependent,
                    f"{name} changed from {old} to {outcome}",
                    valid_at,
                    session,
                    report,
                    visited,
                    new_value=True,
                )
            else:
                note = f"{reason}, and {name} depends on it"
                for edge in scoped:
                    edge.uncertain = note
                    report.updated += 1
                self._lexical.pop(namespace, None)
                self._propagate(
                    namespace,
                    dependent,
                    f"{name} may have changed",
                    valid_at,
                    session,
                    report,
                    visited,
                    new_value=False,
                )

    @staticmethod
    def _subjects_like(graph: Graph, key: str) -> list[str]:
        if key in graph.g:
            return [key]
        return [node for node in graph.g.nodes if same_entity(node, key)]

    # -- persistence -------------------------------------------------------------------------------

    def _save_state(self, folder: Path) -> None:
        rows: list[dict[str, Any]] = [{"next_id": self._next_id}]
        for namespace, graph in self._graphs.items():
            rows += [{"namespace": namespace, **asdict(e)} for e in graph.edges.values()]
        write_jsonl(folder / "edges.jsonl", rows)
        write_jsonl(
            folder / "nodes.jsonl",
            [
                {"namespace": namespace, "key": key, "name": data["name"]}
                for namespace, graph in self._graphs.items()
                for key, data in graph.g.nodes(data=True)
            ],
        )
        save_indexes(folder, self._vectors)

    @classmethod
    def _load_state(cls, folder: Path, params: dict[str, Any], **kwargs: Any) -> TemporalKGMemory:
        keys = ("top_k", "include_invalidated", "input_tokens", "reply_tokens", "protocol", "oracle")
        settings = {k: params[k] for k in keys if k in params}
        settings.update({k: v for k, v in kwargs.items() if k in settings})
        system = cls(llm=kwargs.get("llm"), embedder=kwargs.get("embedder"), **settings)
        if system.embedder.model_name != params["embedder"]:
            raise InvalidInputError(
                f"{folder} was built with embedder {params['embedder']!r}, not {system.embedder.model_name!r}"
            )
        names = {(r["namespace"], r["key"]): r["name"] for r in read_jsonl(folder / "nodes.jsonl")}
        rows = read_jsonl(folder / "edges.jsonl")
        system._next_id = int(next(rows)["next_id"])
        for row in rows:
            namespace = row.pop("namespace")
            edge = Edge(**row)
            graph = system._graphs.setdefault(namespace, Graph())
            graph.add(edge, names[(namespace, edge.subject)], names[(namespace, edge.object)])
        system._vectors = load_indexes(folder, system.embedder.dim)
        return system
