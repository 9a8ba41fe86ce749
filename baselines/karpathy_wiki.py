"""The Karpathy wiki: entity and concept pages maintained by an LLM agent (docs/systems.md).

The system keeps raw sessions immutable (``raw/<session>.md``, never rewritten or retrieved)
and lets the LLM maintain entity and concept pages that link each other as ``[[Title]]``. An
``index.md`` (one line per page: link and summary) is generated from the pages and read first, and
an append-only ``log.md`` records every change as ``## [YYYY-MM-DD] action | Title``. Ingestion shows
the model the index, the pages most related to the session, and the session; its operations read,
write, append to and delete pages. A query shows the model the index, opens the pages it names,
follows their links, and returns the pages read (at most ``k``; relevance search fills the rest).

The agent talks to the LLM in one of two transports (``protocol``): a forced call of one tool whose
arguments are a list of operations ("tools"), or the same object as a JSON reply ("json", for
endpoints without tool support; the default, as the offline llama.cpp server supports it best).

Extraction oracle (``oracle``, baselines/gold_facts.py): ``memory`` writes entity pages from the gold
facts without an LLM (the organisation-and-retrieval ceiling); ``facts`` gives the agent the session's
gold facts instead of the dialogue, so what is measured is its own upkeep of the pages on perfect input.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import date
from functools import partial
from pathlib import Path
from typing import Any

from memsuite.baselines._llm_paradigm import LLMParadigm
from memsuite.baselines._llm_support import (
    ActionTool,
    LexicalIndex,
    ask_structured,
    clip_tokens,
    function_tool,
    op_text,
    run_action_loop,
    session_chunks,
    session_day,
    transport_note,
)
from memsuite.baselines._wiki_tools import norm, relevant_first, today, within_budget
from memsuite.baselines.gold_facts import OracleFact, fact_chunks, oracle_facts
from memsuite.memory_systems.base import CONTEXT_SEPARATOR, NO_MEMORY
from memsuite.memory_systems.errors import InvalidInputError, UnknownMemoryError
from memsuite.memory_systems.llm.protocol import ChatClient
from memsuite.memory_systems.persist import read_jsonl, write_jsonl
from memsuite.memory_systems.records import Hit, IngestReport, MemoryRecord, RetrievalResult, Session
from memsuite.memory_systems.registry import register
from memsuite.memory_systems.store import (
    check_k,
    check_memory_id,
    check_namespace,
    check_text,
    check_texts,
)
from memsuite.memory_systems.tokens import count_tokens, fits_in_tokens

# --------------------------------------------------------------------------------------------------
# Prompts and tools
# --------------------------------------------------------------------------------------------------

WIKI_INGEST_PROMPT = """\
You maintain a personal wiki in markdown, built from conversation sessions. Pages are about one \
entity (person, project, system, place, thing) or one concept. Page content is short factual \
bullet points with exact names, numbers and values; link related pages as [[Title]]. When a value \
changes, write the new value and keep the old one marked as earlier, with its date.
Update the wiki from the new session: write or extend the pages it touches.
Operations: {"op": "write", "title": T, "summary": S, "content": C} creates or replaces a page \
(give its full content); {"op": "append", "title": T, "text": X} adds lines to a page; \
{"op": "read", "title": T}; {"op": "delete", "title": T}.
Set done to false only when you need to see the result of a read."""

WIKI_QUERY_PROMPT = """\
You find answers in a personal wiki. Given its index and a question, name the pages to read, most \
useful first, at most {k}.
{reply}"""

WIKI_TOOL = ActionTool(
    name="edit_wiki",
    description="Apply operations to the wiki's pages",
    op_schema={
        "type": "object",
        "properties": {
            "op": {"type": "string", "enum": ["write", "append", "read", "delete"]},
            "title": {"type": "string"},
            "summary": {"type": "string"},
            "content": {"type": "string"},
            "text": {"type": "string"},
        },
        "required": ["op", "title"],
    },
)

WIKI_QUERY_TOOL = function_tool(
    "open_pages", "Open wiki pages by title", {"pages": {"type": "array", "items": {"type": "string"}}}
)

_LINK = re.compile(r"\[\[([^\[\]]+)\]\]")
_WORD = re.compile(r"[\w'-]+")
#: Words of an automatic page title (a page stored directly has no title of its own).
AUTO_TITLE_WORDS = 6
#: Longest summary line in index.md, in characters.
SUMMARY_CHARS = 100


@dataclass
class Page:
    """One wiki page."""

    id: str
    """Memory id."""
    title: str
    """Unique within its namespace (case-insensitively); what ``[[links]]`` name."""
    text: str
    """The page's markdown content."""
    summary: str | None = None
    """One line for index.md; None derives it from the content."""
    auto_title: bool = False
    """The title was derived from the content (a page stored directly); it follows content updates."""
    metadata: dict[str, Any] | None = None
    """Metadata supplied at store time."""

    def index_line(self) -> str:
        summary = self.summary or self.text.strip().splitlines()[0]
        summary = summary.lstrip("-* ").strip()
        if len(summary) > SUMMARY_CHARS:
            summary = summary[: SUMMARY_CHARS - 1].rstrip() + "…"
        return f"- [[{self.title}]] — {summary}"

    def links(self) -> list[str]:
        return [m.strip() for m in _LINK.findall(self.text)]


#: Between an entity page's head (title, ``Current: <value>``) and its dated history.
HISTORY = "\n\nHistory:\n"


def page_title(name: str) -> str:
    """An entity page's title: its display name with a capital first letter."""
    name = _clean_title(name)
    return name[:1].upper() + name[1:]


def title_key(title: str) -> str:
    """How two page titles are compared: lower-cased, whitespace collapsed."""
    return norm(title)


def gold_page(title: str, current: str | None, fact: OracleFact, day: str) -> str:
    """An entity page after one more gold fact, as the ``oracle: memory`` mode writes it.

    Args:
        title: The page's title (:func:`page_title` of the fact's entity).
        current: The page's text so far; None for a new page.
        fact: The gold fact (not a deletion).
        day: The session's ISO date, written on the fact's history line.

    Returns:
        ``# Title`` (and ``Current: <value>`` for a fact stating a value; an older head is kept
        otherwise), then the dated history with the fact's line added (a rule or dependency links the
        source's page).
    """
    line = f"- [{day}] {fact.text}"
    if fact.kind in ("rule", "dependency") and fact.source_name:
        line += f" See [[{page_title(fact.source_name)}]]."
    head, history = f"# {title}", ""
    if current is not None and HISTORY in current:
        head, history = current.split(HISTORY, 1)
    if fact.sets_value:  # the page's current value is replaced; its history keeps them all
        head = f"# {title}\nCurrent: {fact.value}"
    return f"{head}{HISTORY}{history}\n{line}" if history else f"{head}{HISTORY}{line}"


def page_summary(text: str) -> str | None:
    """What index.md shows for an entity page: its ``Current: <value>`` line, or None."""
    head = text.split(HISTORY, 1)[0]
    return head.split("\n", 1)[1] if "\n" in head else None


def _auto_title(text: str) -> str:
    words = _WORD.findall(text)[:AUTO_TITLE_WORDS]
    return " ".join(words) or "Untitled"


def _clean_title(title: str) -> str:
    return " ".join(title.strip().strip("[]#").split())


@register("karpathy_wiki")
class KarpathyWikiMemory(LLMParadigm):
    """An LLM-maintained wiki of entity and concept pages, with index.md, log.md and raw sources.

    The four verbs work without the LLM: ``store`` creates one page per item (titled by its first
    words), ``search`` ranks pages with BM25 over title and content. ``ingest_session`` needs the
    LLM; ``retrieve`` asks it which pages to open and falls back to search without one.

    Args:
        llm: The internal LLM client.
        top_k: Default number of pages of :meth:`retrieve`.
        protocol: "json" (JSON replies) or "tools" (forced tool calls).
        max_rounds: Most LLM calls per session chunk during ingestion.
        input_tokens: Budget of session text per chunk.
        index_tokens: Budget of index.md shown to the model (the most related lines when longer).
        pages_tokens: Budget of the existing pages shown with a session.
        reply_tokens: Completion budget per call.
        oracle: ``memory`` (or True): no LLM call at ingestion; each gold fact of the session
            (``Session.metadata["gold_facts"]``, see baselines/gold_facts.py) updates its entity's page
            (see ``_ingest_oracle``). ``facts``: the agent loop gets the session's gold facts, worded
            apart from the question templates (``gold_facts.fact_chunks``), in place of the dialogue;
            every write, append and delete is still the LLM's, so the wiki's maintenance is measured.
            The raw source is the session either way. False / "off": native.
    """

    name = "karpathy_wiki"

    def __init__(
        self,
        *,
        llm: ChatClient | None = None,
        top_k: int = 5,
        protocol: str = "json",
        max_rounds: int = 5,
        input_tokens: int = 500,
        index_tokens: int = 250,
        pages_tokens: int = 250,
        reply_tokens: int = 400,
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
        self.max_rounds = check_k(max_rounds)
        self.index_tokens = check_k(index_tokens)
        self.pages_tokens = check_k(pages_tokens)
        self._pages: dict[str, dict[str, Page]] = {}
        self._raw: dict[str, list[dict[str, str]]] = {}
        self._log: dict[str, list[str]] = {}
        self._next_id = 0
        self._lexical: dict[str, LexicalIndex] = {}

    def params(self) -> dict[str, Any]:
        return {
            "top_k": self.top_k,
            "protocol": self.protocol,
            "max_rounds": self.max_rounds,
            "input_tokens": self.input_tokens,
            "index_tokens": self.index_tokens,
            "pages_tokens": self.pages_tokens,
            "reply_tokens": self.reply_tokens,
            "oracle": self.oracle,
        }

    # -- the wiki's files --------------------------------------------------------------------------

    def index_md(self, *, namespace: str = "default") -> str:
        """``index.md``: one line per page, ``- [[Title]] — summary``."""
        lines = [page.index_line() for page in self._bucket(namespace).values()]
        return "\n".join(["# Index", *lines])

    def log_md(self, *, namespace: str = "default") -> str:
        """``log.md``: append-only, one ``## [YYYY-MM-DD] action | Title`` heading per change."""
        return "\n".join(["# Log", *self._log.get(check_namespace(namespace), [])])

    def raw_sources(self, *, namespace: str = "default") -> dict[str, str]:
        """The immutable raw sessions, ``raw/<session>.md`` -> text."""
        return {r["name"]: r["text"] for r in self._raw.get(check_namespace(namespace), [])}

    def pages(self, *, namespace: str = "default") -> list[Page]:
        """The namespace's pages in creation order."""
        return list(self._bucket(namespace).values())

    def _bucket(self, namespace: str) -> dict[str, Page]:
        return self._pages.get(check_namespace(namespace), {})

    def _log_entry(
        self, namespace: str, day: date | None, action: str, title: str, lines: Sequence[str] = ()
    ) -> None:
        heading = f"## [{(day or today()).isoformat()}] {action} | {title}"
        self._log.setdefault(namespace, []).extend([heading, *lines])

    def _find(self, namespace: str, title: str) -> Page | None:
        wanted = norm(_clean_title(title))
        return next((p for p in self._bucket(namespace).values() if norm(p.title) == wanted), None)

    def _unique_title(self, namespace: str, title: str, own_id: str | None = None) -> str:
        candidate, n = title, 1
        while (page := self._find(namespace, candidate)) is not None and page.id != own_id:
            n += 1
            candidate = f"{title} ({n})"
        return candidate

    def _new_page(self, namespace: str, title: str | None, text: str, **fields: Any) -> Page:
        auto = title is None
        page = Page(
            str(self._next_id),
            self._unique_title(namespace, title or _auto_title(text)),
            text,
            auto_title=auto,
            **fields,
        )
        self._next_id += 1
        self._pages.setdefault(namespace, {})[page.id] = page
        self._lexical.pop(namespace, None)
        return page

    def _get(self, memory_id: object, namespace: str) -> Page:
        check_memory_id(memory_id)
        page = self._bucket(namespace).get(memory_id)  # type: ignore[arg-type]
        if page is None:
            raise UnknownMemoryError(f"unknown memory id {memory_id!r} in namespace {namespace!r}")
        return page

    def _set_text(self, page: Page, namespace: str, text: str, summary: str | None = None) -> None:
        page.text, page.summary = text, summary
        if page.auto_title:  # a title made of the old words would keep the old value visible
            page.title = self._unique_title(namespace, _auto_title(text), own_id=page.id)
        self._lexical.pop(namespace, None)

    def _drop(self, page: Page, namespace: str) -> None:
        del self._pages[namespace][page.id]
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
        pages = [
            self._new_page(namespace, None, text, metadata=dict(metadata[i]) if metadata else {})
            for i, text in enumerate(texts)
        ]
        # Direct verbs log the page by id: a title made of the text could outlive a later delete.
        for page in pages:
            self._log_entry(namespace, None, "store", f"page {page.id}")
        return [p.id for p in pages]

    def _search(self, query: str, *, k: int, namespace: str) -> list[Hit]:
        pages = self.pages(namespace=namespace)
        index = self._lexical.get(namespace)
        if index is None:
            index = self._lexical[namespace] = LexicalIndex([f"{p.title}\n{p.text}" for p in pages])
        return [
            Hit(pages[i].id, pages[i].text, score, {**(pages[i].metadata or {}), "title": pages[i].title})
            for i, score in index.top(query, k)
        ]

    def update(self, memory_id: str, text: str, *, namespace: str = "default") -> None:
        page = self._get(memory_id, namespace)
        check_text(text)
        self._set_text(page, namespace, text)
        self._log_entry(namespace, None, "update", f"page {page.id}")

    def delete(self, memory_id: str, *, namespace: str = "default") -> None:
        page = self._get(memory_id, namespace)
        self._drop(page, namespace)
        self._log_entry(namespace, None, "delete", f"page {page.id}")

    def records(self, *, namespace: str = "default") -> list[MemoryRecord]:
        return [
            MemoryRecord(p.id, p.text, namespace, p.metadata or {}) for p in self.pages(namespace=namespace)
        ]

    def snapshot(self, *, namespace: str = "default") -> str:
        """index.md followed by every page (raw sources and log.md are kept but not part of it)."""
        pages = self.pages(namespace=namespace)
        if not pages:
            return ""
        return "\n\n".join([self.index_md(namespace=namespace), *(f"## {p.title}\n{p.text}" for p in pages)])

    def reset(self, *, namespace: str | None = None) -> None:
        if namespace is None:
            for store in (self._pages, self._raw, self._log, self._lexical):
                store.clear()
            return
        check_namespace(namespace)
        for store in (self._pages, self._raw, self._log, self._lexical):
            store.pop(namespace, None)

    # -- retrieval ---------------------------------------------------------------------------------

    def _retrieve(self, question: str, *, k: int, namespace: str) -> RetrievalResult:
        """Read index.md, open the pages the LLM names, follow their links; return the pages read.

        At most ``k`` pages; when the model names fewer (or fails, or there is no LLM) the best search
        hits fill the rest. One LLM call (phase "retrieve").
        """
        if not self._bucket(namespace):
            return RetrievalResult(NO_MEMORY)
        read: dict[str, Page] = {}
        if self._llm.client is not None:
            for title in self._ask_pages(question, k, namespace):
                page = self._find(namespace, title)
                if page is not None:
                    read.setdefault(page.id, page)
            for page in list(read.values()):  # one hop along [[links]] from the chosen pages
                for title in page.links():
                    linked = self._find(namespace, title)
                    if linked is not None:
                        read.setdefault(linked.id, linked)
        pages = list(read.values())[:k]
        for hit in self._search(question, k=k, namespace=namespace) if len(pages) < k else []:
            if hit.id not in read and len(pages) < k:
                pages.append(self._bucket(namespace)[hit.id])
        hits = tuple(Hit(p.id, p.text, 1.0 / (rank + 1)) for rank, p in enumerate(pages))
        context = CONTEXT_SEPARATOR.join(p.text for p in pages) if pages else NO_MEMORY
        return RetrievalResult(context, hits)

    def _index_view(self, namespace: str, query: str) -> str:
        """index.md within ``index_tokens``: whole, or the lines most related to ``query``."""
        full = self.index_md(namespace=namespace)
        if fits_in_tokens(full, self.index_tokens):
            return full
        lines = [p.index_line() for p in self.pages(namespace=namespace)]
        order = relevant_first(LexicalIndex(lines), query)
        chosen = within_budget(order, [count_tokens(line) + 1 for line in lines], self.index_tokens - 8)
        return "\n".join(
            [f"# Index (showing {len(chosen)} of {len(lines)} pages)", *(lines[i] for i in sorted(chosen))]
        )

    def _ask_pages(self, question: str, k: int, namespace: str) -> list[str]:
        reply = (
            f'Call {WIKI_QUERY_TOOL["function"]["name"]} with {{"pages": ["Title", ...]}}.'
            if self.protocol == "tools"
            else 'Reply with JSON only: {"pages": ["Title", ...]}.'
        )
        payload, _ = ask_structured(
            self._llm,
            WIKI_QUERY_TOOL,
            WIKI_QUERY_PROMPT.format(k=k, reply=reply),
            f"index.md:\n{self._index_view(namespace, question)}\n\nQuestion: {question}",
            protocol=self.protocol,
            phase="retrieve",
            max_tokens=min(self.reply_tokens, 40 * k + 20),
        )
        titles = payload.get("pages") if isinstance(payload, dict) else payload
        if not isinstance(titles, list):
            return []
        return [_clean_title(t) for t in titles if isinstance(t, str) and t.strip()]

    # -- ingestion --------------------------------------------------------------------------------

    def _ingest(self, session: Session, namespace: str, report: IngestReport) -> None:
        """Keep the session as a raw source and let the LLM update the pages it touches."""
        day = session_day(session.timestamp)
        system_prompt = f"{WIKI_INGEST_PROMPT}\n{transport_note(self.protocol, WIKI_TOOL.name)}"
        dialogue = session_chunks(session, self.input_tokens)
        # oracle: facts -- the agent reads the worded gold facts; the raw source stays the session.
        chunks = dialogue if self.oracle_mode == "off" else fact_chunks(session, self.input_tokens)
        source = self._keep_raw(session, namespace, dialogue)
        touched: dict[str, str] = {}  # title -> what happened, for the log
        for chunk in chunks:
            outcome = run_action_loop(
                self._llm,
                tool=WIKI_TOOL,
                system_prompt=system_prompt,
                user_prompt=self._task(chunk, session, day, namespace, source),
                execute=partial(self._execute, namespace=namespace, report=report, touched=touched),
                protocol=self.protocol,
                max_rounds=self.max_rounds,
                max_tokens=self.reply_tokens,
            )
            report.failures += outcome.failures
        lines = [f"- source: {source}", *(f"- {what} [[{title}]]" for title, what in touched.items())]
        action = "ingest" if self.oracle_mode == "off" else "ingest (oracle: facts)"
        self._log_entry(namespace, day, action, f"session {session.session_id}", lines)

    def _ingest_oracle(self, session: Session, namespace: str, report: IngestReport) -> None:
        """Update entity pages as the gold facts call for (see the ``oracle`` argument).

        A page per entity: ``# Title``, ``Current: <value>``, then a dated history of its facts; a
        rule or dependency is added to the dependent's history with a ``[[link]]`` to the source's
        page; a deletion request deletes the page. The raw session is kept and the log written as in
        the native ingestion.
        """
        day = session_day(session.timestamp)
        source = self._keep_raw(session, namespace, session_chunks(session, self.input_tokens))
        touched: dict[str, str] = {}
        for fact in oracle_facts(session):
            title = page_title(fact.name)
            page = self._find(namespace, title)
            if fact.kind == "delete":
                if page is not None:
                    self._drop(page, namespace)
                    report.deleted += 1
                    touched[page.title] = "deleted"
                continue
            text = gold_page(title, page.text if page else None, fact, (day or today()).isoformat())
            summary = page_summary(text)
            if page is None:
                self._new_page(namespace, title, text, summary=summary)
                report.added += 1
                touched.setdefault(title, "created")
            else:
                self._set_text(page, namespace, text, summary)
                report.updated += 1
                touched.setdefault(page.title, "updated")
        lines = [f"- source: {source}", *(f"- {what} [[{title}]]" for title, what in touched.items())]
        self._log_entry(namespace, day, "ingest (oracle)", f"session {session.session_id}", lines)

    def _keep_raw(self, session: Session, namespace: str, chunks: list[str]) -> str:
        raw = self._raw.setdefault(namespace, [])
        names = {r["name"] for r in raw}
        name, n = f"raw/{session.session_id}.md", 1
        while name in names:  # a source is never overwritten
            n += 1
            name = f"raw/{session.session_id}-{n}.md"
        raw.append({"name": name, "timestamp": session.timestamp, "text": "\n".join(chunks)})
        return name

    def _task(self, chunk: str, session: Session, day: date | None, namespace: str, source: str) -> str:
        shown, used = [], 0
        for hit in self.search(chunk, k=5, namespace=namespace) if self._bucket(namespace) else []:
            page = self._bucket(namespace)[hit.id]
            text = f"## {page.title}\n{clip_tokens(page.text, self.pages_tokens)}"
            tokens = count_tokens(text)
            if used + tokens > self.pages_tokens:
                break
            shown.append(text)
            used += tokens
        pages = "\n\n".join(shown) or "(none yet)"
        when = day.isoformat() if day else session.timestamp
        return (
            f"Session date: {when}\n\nindex.md:\n{self._index_view(namespace, chunk)}\n\n"
            f"Pages related to the session:\n{pages}\n\nNew session ({source}):\n{chunk}"
        )

    def _execute(
        self, ops: list[Any], *, namespace: str, report: IngestReport, touched: dict[str, str]
    ) -> tuple[str, int]:
        results, invalid = [], 0
        for n, op in enumerate(ops, 1):
            outcome = self._apply(op, namespace, report, touched) if isinstance(op, dict) else None
            if outcome is None:
                invalid += 1
                outcome = f"error: unusable operation {op!r:.120}"
            results.append(f"{n}. {outcome}")
        return "\n".join(results) or "no operations", invalid

    def _apply(
        self, op: dict[str, Any], namespace: str, report: IngestReport, touched: dict[str, str]
    ) -> str | None:
        """Apply one operation; the result shown to the model, or None when it is unusable."""
        kind = str(op.get("op", "")).strip().lower()
        title = _clean_title(op_text(op, "title") or "")
        if not title:
            return None
        page = self._find(namespace, title)
        if kind == "read":
            return f"## {page.title}\n{clip_tokens(page.text, self.pages_tokens)}" if page else "no such page"
        if kind == "delete":
            if page is None:
                return None
            self._drop(page, namespace)
            report.deleted += 1
            touched[page.title] = "deleted"
            return f"deleted {page.title}"
        text = op_text(op, "content" if kind == "write" else "text")
        if kind not in ("write", "append") or text is None:
            return None
        summary = op_text(op, "summary")
        if page is None:
            page = self._new_page(namespace, title, text, summary=summary)
            report.added += 1
            touched.setdefault(page.title, "created")
            return f"created {page.title}"
        new_text = text if kind == "write" else f"{page.text.rstrip()}\n{text}"
        self._set_text(page, namespace, new_text, summary if summary else page.summary)
        report.updated += 1
        touched.setdefault(page.title, "updated")
        return f"updated {page.title}"

    # -- persistence -------------------------------------------------------------------------------

    def _save_state(self, folder: Path) -> None:
        rows: list[dict[str, Any]] = [{"next_id": self._next_id}]
        rows += [
            {"namespace": ns, **asdict(p)} for ns, bucket in self._pages.items() for p in bucket.values()
        ]
        write_jsonl(folder / "pages.jsonl", rows)
        write_jsonl(
            folder / "raw.jsonl", [{"namespace": ns, **r} for ns, raw in self._raw.items() for r in raw]
        )
        write_jsonl(
            folder / "log.jsonl", [{"namespace": ns, "lines": lines} for ns, lines in self._log.items()]
        )

    @classmethod
    def _load_state(cls, folder: Path, params: dict[str, Any], **kwargs: Any) -> KarpathyWikiMemory:
        settings = {**params, **{k: v for k, v in kwargs.items() if k in params}}
        system = cls(llm=kwargs.get("llm"), **settings)
        rows = read_jsonl(folder / "pages.jsonl")
        system._next_id = int(next(rows)["next_id"])
        for row in rows:
            namespace = row.pop("namespace")
            system._pages.setdefault(namespace, {})[row["id"]] = Page(**row)
        for row in read_jsonl(folder / "raw.jsonl"):
            system._raw.setdefault(row.pop("namespace"), []).append(row)
        for row in read_jsonl(folder / "log.jsonl"):
            system._log[row["namespace"]] = list(row["lines"])
        return system
