"""The native LLM paradigms' prompts, served from gold: what their ``oracle: memory`` mode does, as replies.

``llm_extraction``, ``temporal_kg``, ``md_flat`` and ``karpathy_wiki`` with ``oracle: memory`` turn a
session's gold facts into their own operations without calling their LLM (baselines/_oracle.py). Here
the same facts reach them through their real LLM calls instead, so their own prompts, views, parsing
and bookkeeping run too:

- ``llm_extraction.extract``: the session's gold fact sentences (``{"facts": [...]}``);
  ``llm_extraction.decide``: per new fact, UPDATE the entity's value memory among the memories shown
  (ADD when none is shown), ADD a rule or dependency, DELETE every shown memory of an entity the user
  asked to forget (``NONE`` for a fact already stored);
- ``temporal_kg.extract``: the gold extraction
  (:func:`memsuite.baselines._temporal_extract.oracle_extraction`);
- ``md_flat.edit``: replace the entity's value line among the lines shown (append when none is shown),
  append rules and dependencies, delete the lines of a forgotten entity, in one round;
- ``karpathy_wiki.ingest``: each entity's page as the memory mode writes it (``Current: <value>`` over a
  dated history), reading first a page the index lists but the prompt does not show whole;
  ``karpathy_wiki.pages``: at query time, the pages of the question's gold entities that the index
  shows.

A session is found in a prompt by its chunk header (``[Session: <timestamp>]``) and its turns; its facts
are replied on the chunk holding its first turn (a later chunk of the same session, and filler, give
nothing). A memory, line or page is tied to a gold entity by its text (a gold fact's sentence, or its
``facts``-mode wording), so what the prompt does not show a perfect model cannot edit either: the loss
is the paradigm's own view's. Markers are pinned to the prompt constants in baselines/ (checked at
start-up by :func:`memsuite.eval.oracle.kinds.check_own_prompts`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from memsuite.baselines._oracle import OracleFact, worded
from memsuite.baselines._temporal_extract import oracle_extraction
from memsuite.baselines._wiki_tools import norm
from memsuite.baselines.karpathy_wiki import _HISTORY, _page_title
from memsuite.eval.oracle.gold import SessionGold, UnitGold, normalise
from memsuite.eval.oracle.kinds import OracleRequest, PromptKind, Unservable

_HEADER = re.compile(r"\[Session: (?P<timestamp>[^\]\n]+)\]")
_CLIPPED = " […]"
#: Characters of a turn that identify it when the chunker clipped the rest.
_TURN_PREFIX = 60
_NUMBERED = re.compile(r"^(?P<n>\d+): (?P<text>.*)$")
_DATED = re.compile(r"^\[\d{4}[/-]\d{1,2}[/-]\d{1,2}\]\s*")
_INDEX_LINE = re.compile(r"^- \[\[(?P<title>[^\[\]]+)\]\]")
_PAGE_HEAD = re.compile(r"^(?:\d+\. )?## (?P<title>.+)$", re.M)
_RESULT = re.compile(r"^\d+\. ")
_CONTINUE = "Reply with more ops"
_SESSION_DATE = re.compile(r"^Session date: (?P<day>.+)$", re.M)


# -- finding the session and the facts a prompt is about --------------------------------------------


def _holds(flat: str, turn: str) -> bool:
    return bool(turn) and (turn in flat or (len(turn) > _TURN_PREFIX and turn[:_TURN_PREFIX] in flat))


def chunk_session(unit: UnitGold, text: str) -> tuple[SessionGold, bool]:
    """The session a prompt's chunk comes from, and whether the chunk holds its first turn.

    The chunk header names the session's timestamp; among the sessions with it, the one most of
    whose turns the chunk holds (a turn the chunker clipped is found by its start). A chunk holding
    none of them (a session's last chunk can be only the assistant's reply, which gold does not keep)
    is the one session its header names, and not that session's first chunk.

    Raises:
        Unservable: No session of the unit is in the text.
    """
    flat = normalise(text)
    stamps = {normalise(m["timestamp"]) for m in _HEADER.finditer(text)}
    best, best_found = None, 0
    named = [s for s in unit.sessions if normalise(s.timestamp) in stamps]
    for session in named if stamps else unit.sessions:
        found = sum(1 for turn in session.turns if _holds(flat, turn))
        if found > best_found:
            best, best_found = session, found
    if best is None and len(named) == 1:
        return named[0], False
    if best is None:
        raise Unservable(f"the prompt's session is no session of unit {unit.unit_id!r}")
    return best, _holds(flat, best.turns[0])


def session_facts(request: OracleRequest, text: str) -> tuple[OracleFact, ...]:
    """The gold facts to reply for the chunk in ``text``: its session's, on the session's first chunk."""
    session, first = chunk_session(request.need_unit(), text)
    return session.facts if first else ()


def fact_index(unit: UnitGold) -> dict[str, OracleFact]:
    """Every gold fact of the unit by its normalised sentence and its ``facts``-mode wording."""
    out: dict[str, OracleFact] = {}
    for session in unit.sessions:
        for fact in session.facts:
            out[normalise(fact.text)] = fact
            out[normalise(worded(fact))] = fact
    return out


def fact_of(index: dict[str, OracleFact], text: str) -> OracleFact | None:
    """The gold fact a stored text states (a text clipped for display by its start), or None."""
    flat = normalise(text)
    if flat in index:
        return index[flat]
    if flat.endswith(_CLIPPED.strip()):
        head = flat[: -len(_CLIPPED.strip())].rstrip()
        return next((fact for key, fact in index.items() if head and key.startswith(head)), None)
    return None


def _section(text: str, start: str, end: str | None) -> str:
    at = text.find(start)
    if at < 0:
        raise Unservable(f"prompt without its {start.strip()!r} section")
    at += len(start)
    stop = text.find(end, at) if end else -1
    return text[at:] if stop < 0 else text[at:stop]


# -- llm_extraction --------------------------------------------------------------------------------


def extraction_reply(request: OracleRequest) -> dict[str, Any]:
    return {"facts": [fact.text for fact in session_facts(request, request.text("user"))]}


def _json_after(text: str, header: str) -> Any:
    section = _section(text, header + "\n", "\n\n")
    try:
        return json.loads(section)
    except ValueError as exc:
        raise Unservable(f"llm_extraction decision prompt: {header} is not JSON") from exc


def decision_reply(request: OracleRequest) -> dict[str, Any]:
    from memsuite.baselines.llm_extraction import FACTS_HEADER, MEMORIES_HEADER

    text = request.text("user")
    memories, facts = _json_after(text, MEMORIES_HEADER), _json_after(text, FACTS_HEADER)
    index = fact_index(request.need_unit())
    shown = [
        (str(m.get("id")), str(m.get("text") or ""), fact_of(index, str(m.get("text") or "")))
        for m in memories
    ]
    decisions: list[dict[str, Any]] = []
    deleted: set[str] = set()
    # entity -> the decision that now holds its value (an UPDATE of a shown memory, or an ADD)
    holder: dict[str, dict[str, Any]] = {}
    for fact_text in facts:
        fact = fact_of(index, str(fact_text))
        if fact is None:
            raise Unservable(f"llm_extraction decision: {str(fact_text)[:80]!r} is no gold fact of the unit")
        mine = [(i, t) for i, t, f in shown if f is not None and f.entity == fact.entity and i not in deleted]
        if fact.kind == "delete":
            for memory_id, _ in mine:
                decisions.append({"id": memory_id, "event": "DELETE"})
                deleted.add(memory_id)
            holder.pop(fact.entity, None)
            decisions = [d for d in decisions if d.get("entity") != fact.entity or d["event"] == "DELETE"]
            continue
        if any(normalise(t) == normalise(fact.text) for _, t in mine):
            continue  # already stored as it is: NONE
        if fact.sets_value and fact.entity in holder:
            holder[fact.entity]["text"] = fact.text  # a second value in one call: the later one holds
            continue
        values = [(i, t) for i, t, f in shown if f is not None and f.entity == fact.entity and f.sets_value]
        values = [(i, t) for i, t in values if i not in deleted]
        if fact.sets_value and values:
            memory_id, old = values[-1]
            decision = {"id": memory_id, "text": fact.text, "event": "UPDATE", "old_memory": old}
        else:
            decision = {"text": fact.text, "event": "ADD"}
        decision["entity"] = fact.entity
        decisions.append(decision)
        if fact.sets_value:
            holder[fact.entity] = decision
    return {"memory": [{k: v for k, v in d.items() if k != "entity"} for d in decisions]}


# -- temporal_kg -----------------------------------------------------------------------------------


def temporal_reply(request: OracleRequest) -> dict[str, Any]:
    extraction = oracle_extraction(list(session_facts(request, request.text("user"))))
    return {"facts": extraction.facts, "dependencies": extraction.dependencies, "forget": extraction.forget}


# -- md_flat ---------------------------------------------------------------------------------------


def _later_round(request: OracleRequest) -> bool:
    return any(m.get("role") in ("assistant", "tool") for m in request.messages)


def md_flat_reply(request: OracleRequest) -> dict[str, Any]:
    if _later_round(request):
        return {"ops": [], "done": True}  # every edit was sent in the first round
    text = request.text("user")
    view = _section(text, "memory.md:\n", "\n\nNew session:\n")
    facts = session_facts(request, _section(text, "\n\nNew session:\n", None))
    index = fact_index(request.need_unit())
    lines: list[tuple[int, OracleFact | None]] = []
    for line in view.splitlines():
        match = _NUMBERED.match(line)
        if match:
            lines.append((int(match["n"]), fact_of(index, _DATED.sub("", match["text"]))))
    replaced: dict[int, str] = {}
    removed: set[int] = set()
    appended: list[tuple[str, str]] = []  # (entity, text)
    for fact in facts:
        mine = [n for n, f in lines if f is not None and f.entity == fact.entity and n not in removed]
        if fact.kind == "delete":
            removed.update(mine)
            appended = [(e, t) for e, t in appended if e != fact.entity]
            continue
        values = [n for n, f in lines if f is not None and f.entity == fact.entity and f.sets_value]
        values = [n for n in values if n not in removed]
        pending = [i for i, (e, _) in enumerate(appended) if e == fact.entity]
        if fact.sets_value and values:
            replaced[values[-1]] = fact.text
        elif fact.sets_value and pending:
            appended[pending[-1]] = (fact.entity, fact.text)
        else:
            appended.append((fact.entity, fact.text))
    ops: list[dict[str, Any]] = [
        {"op": "replace", "line": n, "text": t} for n, t in sorted(replaced.items()) if n not in removed
    ]
    ops += [{"op": "delete", "line": n} for n in sorted(removed)]
    ops += [{"op": "append", "text": t} for _, t in appended]
    return {"ops": ops, "done": True}


# -- karpathy_wiki ---------------------------------------------------------------------------------


def _pages_in(text: str) -> tuple[dict[str, str], set[str]]:
    """``## Title`` blocks of a prompt section or of read results (``1. ## Title``): norm(title) -> the
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
        key = norm(head["title"])
        if body.endswith(_CLIPPED):
            body = body.rsplit("\n", 1)[0] if "\n" in body else ""
            clipped.add(key)
        pages[key] = body
    return pages, clipped


def _index_titles(view: str) -> dict[str, str]:
    """norm(title) -> title of every page index.md's view lists."""
    found = (_INDEX_LINE.match(line) for line in view.splitlines())
    return {norm(m["title"]): m["title"].strip() for m in found if m}


def _new_page_text(title: str, current: str | None, fact: OracleFact, day: str) -> str:
    """A page after one more gold fact, as ``karpathy_wiki``'s memory mode writes it."""
    line = f"- [{day}] {fact.text}"
    if fact.kind in ("rule", "dependency") and fact.source_name:
        line += f" See [[{_page_title(fact.source_name)}]]."
    has_history = current is not None and _HISTORY in current
    head, history = current.split(_HISTORY, 1) if has_history else (f"# {title}", "")  # type: ignore[union-attr]
    if fact.sets_value:
        head = f"# {title}\nCurrent: {fact.value}"
    return f"{head}{_HISTORY}{history}\n{line}" if history else f"{head}{_HISTORY}{line}"


def wiki_ingest_reply(request: OracleRequest) -> dict[str, Any]:
    # The first user message is the task; later ones (and tool messages) carry read results.
    first_text = str(next((m.get("content") for m in request.messages if m.get("role") == "user"), ""))
    later = _later_round(request)
    facts = session_facts(request, _section(first_text, "\n\nNew session (", None))
    index_view = _index_titles(_section(first_text, "index.md:\n", "\n\nPages related to the session:\n"))
    shown, clipped = _pages_in(_section(first_text, "Pages related to the session:\n", "\n\nNew session ("))
    if later:
        for message in request.messages[2:]:
            if message.get("role") in ("user", "tool"):
                read, _ = _pages_in(str(message.get("content") or ""))
                shown.update(read)
    titles = {norm(_page_title(f.name)) for f in facts}
    unread = [
        index_view[key]
        for key in sorted(titles)
        if key in index_view and (key not in shown or key in clipped)
    ]
    if unread and not later:
        return {"ops": [{"op": "read", "title": title} for title in unread], "done": False}
    day_match = _SESSION_DATE.search(first_text)
    day = day_match["day"].strip() if day_match else ""
    pages: dict[str, str | None] = {}  # norm(title) -> the page after this session (None: deleted)
    names: dict[str, str] = {}
    for fact in facts:
        title = _page_title(fact.name)
        key = norm(title)
        names.setdefault(key, index_view.get(key, title))
        if fact.kind == "delete":
            if key in pages or key in index_view:
                pages[key] = None
            continue
        current = pages[key] if key in pages else shown.get(key)
        pages[key] = _new_page_text(names[key], current, fact, day)
    ops: list[dict[str, Any]] = []
    for key, text in pages.items():
        if text is None:
            if key in index_view:
                ops.append({"op": "delete", "title": names[key]})
            continue
        head = text.split(_HISTORY, 1)[0]
        op = {"op": "write", "title": names[key], "content": text}
        if "\n" in head:
            op["summary"] = head.split("\n", 1)[1]  # "Current: <value>" in index.md, as the memory mode
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
    view = _index_titles(_section(text, "index.md:\n", "\n\nQuestion: "))
    question = _section(text, "\n\nQuestion: ", None).strip()
    names = _names(unit)
    pages = []
    for entity in _question_entities(unit, question):
        key = norm(_page_title(names.get(entity, entity.replace("_", " "))))
        if key in view:
            pages.append(view[key])
    return {"pages": pages}


_BASE = "memsuite.baselines"
KINDS = (
    PromptKind(
        name="llm_extraction.extract",
        markers=(
            "You pick out facts worth remembering from a conversation between a user and an assistant.",
            'Reply with JSON only: {"facts": ["...", "..."]}',
        ),
        reply=extraction_reply,
        prompts=(f"{_BASE}.llm_extraction:EXTRACT_PROMPT",),
    ),
    PromptKind(
        name="llm_extraction.decide",
        markers=(
            "You keep a memory store up to date. You get existing memories (each with an id) and new facts.",
            "Existing memories (JSON):",
            "New facts (JSON):",
        ),
        reply=decision_reply,
        prompts=(
            f"{_BASE}.llm_extraction:UPDATE_PROMPT",
            f"{_BASE}.llm_extraction:MEMORIES_HEADER",
            f"{_BASE}.llm_extraction:FACTS_HEADER",
        ),
    ),
    PromptKind(
        name="temporal_kg.extract",
        markers=(
            "You turn a conversation session into knowledge-graph facts.",
            '"dependencies": [{"dependent": X, "source": Y, "if_source_changes": Z}]',
        ),
        reply=temporal_reply,
        prompts=(f"{_BASE}._temporal_extract:EXTRACT_PROMPT",),
    ),
    PromptKind(
        name="md_flat.edit",
        markers=(
            "You maintain a user's long-term memory: a markdown file with one dated fact per line",
            '{"op": "replace", "line": N, "text": T}',
        ),
        reply=md_flat_reply,
        prompts=(f"{_BASE}.md_flat:MD_FLAT_PROMPT",),
    ),
    PromptKind(
        name="karpathy_wiki.ingest",
        markers=(
            "You maintain a personal wiki in markdown, built from conversation sessions.",
            '{"op": "write", "title": T, "summary": S, "content": C}',
        ),
        reply=wiki_ingest_reply,
        prompts=(f"{_BASE}.karpathy_wiki:WIKI_INGEST_PROMPT",),
    ),
    PromptKind(
        name="karpathy_wiki.pages",
        markers=(
            "You find answers in a personal wiki. Given its index and a question, name the pages to read",
        ),
        reply=wiki_pages_reply,
        prompts=(f"{_BASE}.karpathy_wiki:WIKI_QUERY_PROMPT",),
    ),
)
