"""``karpathy_wiki``'s LLM calls, served from gold (the paradigm's ``oracle: memory`` mode, as replies).

- ``karpathy_wiki.ingest``: each entity's page as the memory mode writes it
  (:func:`memsuite.baselines.karpathy_wiki.gold_page`: ``Current: <value>`` over a dated history),
  reading first a page the index lists but the prompt does not show whole;
- ``karpathy_wiki.pages``: at query time, the pages of the question's gold entities that the index
  shows.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from memsuite.baselines import karpathy_wiki as paradigm
from memsuite.eval.oracle.chunks import CLIPPED, later_round, section, session_facts
from memsuite.eval.oracle.gold import UnitGold, normalise
from memsuite.eval.oracle.kinds import OracleRequest, OwnPrompt, PromptFamily, PromptKind, Unservable

_INDEX_LINE = re.compile(r"^- \[\[(?P<title>[^\[\]]+)\]\]")
_PAGE_HEAD = re.compile(r"^(?:\d+\. )?## (?P<title>.+)$", re.M)
_RESULT = re.compile(r"^\d+\. ")
_CONTINUE = "Reply with more ops"
_SESSION_DATE = re.compile(r"^Session date: (?P<day>.+)$", re.M)


def _pages_in(text: str) -> tuple[dict[str, str], set[str]]:
    """``## Title`` blocks of a prompt section or of read results (``1. ## Title``): title key -> the
    page's text as shown, and the titles shown clipped (of which only the whole lines are kept)."""
    pages: dict[str, str] = {}
    clipped: set[str] = set()
    heads = list(_PAGE_HEAD.finditer(text))
    for i, head in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        lines = []
        for line in text[head.end() + 1 : end].split("\n"):
            if _RESULT.match(line) or line.startswith(_CONTINUE):
                break  # the next operation's result, or the loop's closing line
            lines.append(line)
        body = "\n".join(lines).rstrip()
        key = paradigm.title_key(head["title"])
        if body.endswith(CLIPPED):
            body = body.rsplit("\n", 1)[0] if "\n" in body else ""
            clipped.add(key)
        pages[key] = body
    return pages, clipped


def _index_titles(view: str) -> dict[str, str]:
    """Title key -> title of every page index.md's view lists."""
    found = (_INDEX_LINE.match(line) for line in view.splitlines())
    return {paradigm.title_key(m["title"]): m["title"].strip() for m in found if m}


def wiki_ingest_reply(request: OracleRequest) -> dict[str, Any]:
    # The first user message is the task; later ones (and tool messages) carry read results.
    first_text = str(next((m.get("content") for m in request.messages if m.get("role") == "user"), ""))
    later = later_round(request)
    facts = session_facts(request, section(first_text, "\n\nNew session (", None))
    index_view = _index_titles(section(first_text, "index.md:\n", "\n\nPages related to the session:\n"))
    shown, clipped = _pages_in(section(first_text, "Pages related to the session:\n", "\n\nNew session ("))
    if later:
        for message in request.messages[2:]:
            if message.get("role") in ("user", "tool"):
                read, _ = _pages_in(str(message.get("content") or ""))
                shown.update(read)
    titles = {paradigm.title_key(paradigm.page_title(f.name)) for f in facts}
    unread = [
        index_view[key]
        for key in sorted(titles)
        if key in index_view and (key not in shown or key in clipped)
    ]
    if unread and not later:
        return {"ops": [{"op": "read", "title": title} for title in unread], "done": False}
    day_match = _SESSION_DATE.search(first_text)
    day = day_match["day"].strip() if day_match else ""
    pages: dict[str, str | None] = {}  # title key -> the page after this session (None: deleted)
    names: dict[str, str] = {}
    for fact in facts:
        title = paradigm.page_title(fact.name)
        key = paradigm.title_key(title)
        names.setdefault(key, index_view.get(key, title))
        if fact.kind == "delete":
            if key in pages or key in index_view:
                pages[key] = None
            continue
        current = pages[key] if key in pages else shown.get(key)
        pages[key] = paradigm.gold_page(names[key], current, fact, day)
    ops: list[dict[str, Any]] = []
    for key, text in pages.items():
        if text is None:
            if key in index_view:
                ops.append({"op": "delete", "title": names[key]})
            continue
        op = {"op": "write", "title": names[key], "content": text}
        summary = paradigm.page_summary(text)
        if summary is not None:
            op["summary"] = summary  # "Current: <value>" in index.md, as the memory mode
        ops.append(op)
    return {"ops": ops, "done": True}


def _names(unit: UnitGold) -> dict[str, str]:
    return {fact.entity: fact.name for session in unit.sessions for fact in session.facts}


def _question_entities(unit: UnitGold, question: str) -> Iterable[str]:
    wanted = normalise(question)
    matches = [q for q in unit.questions if q.question == wanted]
    if not matches:
        raise Unservable(
            f"karpathy_wiki page choice: question {question[:80]!r} is not asked in unit {unit.unit_id!r}"
        )
    return dict.fromkeys(entity for q in matches for entity in q.entities)


def wiki_pages_reply(request: OracleRequest) -> dict[str, Any]:
    text = request.text("user")
    unit = request.need_unit()
    view = _index_titles(section(text, "index.md:\n", "\n\nQuestion: "))
    question = section(text, "\n\nQuestion: ", None).strip()
    names = _names(unit)
    pages = []
    for entity in _question_entities(unit, question):
        key = paradigm.title_key(paradigm.page_title(names.get(entity, entity.replace("_", " "))))
        if key in view:
            pages.append(view[key])
    return {"pages": pages}


KINDS = (
    PromptKind(
        name="karpathy_wiki.ingest",
        markers=(
            "You maintain a personal wiki in markdown, built from conversation sessions.",
            '{"op": "write", "title": T, "summary": S, "content": C}',
        ),
        reply=wiki_ingest_reply,
        prompts=(OwnPrompt(paradigm, "WIKI_INGEST_PROMPT"),),
    ),
    PromptKind(
        name="karpathy_wiki.pages",
        markers=(
            "You find answers in a personal wiki. Given its index and a question, name the pages to read",
        ),
        reply=wiki_pages_reply,
        prompts=(OwnPrompt(paradigm, "WIKI_QUERY_PROMPT"),),
    ),
)
FAMILY = PromptFamily(systems=(paradigm,), kinds=KINDS)
