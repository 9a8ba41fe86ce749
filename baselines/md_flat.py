"""MD-flat: a markdown file of dated one-line memories maintained by an LLM agent (docs/systems.md).

The system keeps one ``memory.md`` of dated one-line entries (``[2023/03/05] Team uses a paired
on-call rotation.``). Ingestion is a tool-calling loop of at most ``max_rounds`` (5) LLM calls whose
operations read, append, replace and delete lines. With ``whole_file=True`` retrieval hands back the
file, or its most relevant lines when it exceeds ``context_tokens`` (MEME's setting); by default it
returns the ``k`` most relevant entries, as the memory contract's ``retrieve(k)`` expects.

The agent talks to the LLM in one of two transports (``protocol``): a forced call of one tool whose
arguments are a list of operations ("tools"), or the same object as a JSON reply ("json", for
endpoints without tool support; the default, as the offline llama.cpp server supports it best).

Extraction oracle (``oracle``, baselines/gold_facts.py): ``memory`` makes the gold edits without an LLM
(the organisation-and-retrieval ceiling); ``facts`` gives the agent the session's gold facts instead
of the dialogue, so what is measured is its own upkeep of the file (replacing, deleting) on perfect input.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date
from functools import partial
from pathlib import Path
from typing import Any

from memsuite.baselines._llm_paradigm import LLMParadigm, ingest_chunks
from memsuite.baselines._llm_support import (
    ActionTool,
    LexicalIndex,
    op_int,
    op_text,
    run_action_loop,
    session_day,
    transport_note,
)
from memsuite.baselines._wiki_tools import norm, relevant_first, within_budget
from memsuite.baselines.gold_facts import oracle_facts
from memsuite.memory_systems.base import NO_MEMORY
from memsuite.memory_systems.errors import UnknownMemoryError
from memsuite.memory_systems.llm.protocol import ChatClient
from memsuite.memory_systems.persist import write_jsonl
from memsuite.memory_systems.records import Hit, IngestReport, MemoryRecord, RetrievalResult, Session
from memsuite.memory_systems.registry import register
from memsuite.memory_systems.store import (
    RecordStore,
    check_k,
    check_namespace,
)
from memsuite.memory_systems.tokens import count_tokens, fits_in_tokens

# --------------------------------------------------------------------------------------------------
# Prompt and tool
# --------------------------------------------------------------------------------------------------

MD_FLAT_PROMPT = """\
You maintain a user's long-term memory: a markdown file with one dated fact per line, like
[2023/03/05] Team uses a paired on-call rotation.
Update the file from the new session. Append facts worth keeping; when a fact changed, replace its \
line with the new value; delete lines the user asked to forget. One fact per line; keep names, \
numbers and values exact; do not add facts the file already has.
Operations: {"op": "append", "text": T}, {"op": "replace", "line": N, "text": T}, \
{"op": "delete", "line": N}, {"op": "read"} (shows the whole file). N is a line number as shown.
Set done to false only when you need to see the result of a read."""

MD_FLAT_TOOL = ActionTool(
    name="edit_memory",
    description="Apply operations to memory.md",
    op_schema={
        "type": "object",
        "properties": {
            "op": {"type": "string", "enum": ["append", "replace", "delete", "read"]},
            "line": {"type": "integer"},
            "text": {"type": "string"},
        },
        "required": ["op"],
    },
)

_DATED = re.compile(r"^\[\d{4}[/-]\d{1,2}[/-]\d{1,2}\]")


def _file_line(text: str) -> str:
    """An entry as a line of memory.md (a multi-line entry continues on indented lines)."""
    return text.replace("\n", "\n  ")


def _numbered(records: Sequence[MemoryRecord], positions: Sequence[int]) -> str:
    """The entries at ``positions`` (0-based) as ``N: text`` lines, N 1-based, one line per entry."""
    return "\n".join(f"{p + 1}: {records[p].text.replace(chr(10), ' / ')}" for p in positions)


@register("md_flat")
class MdFlatMemory(LLMParadigm):
    """One ``memory.md`` of dated one-line entries, edited by an LLM in a tool loop.

    The four verbs work without the LLM: ``store`` appends entries as given, ``search`` ranks entries
    with BM25. ``ingest_session`` needs the LLM.

    Args:
        llm: The internal LLM client; None allows everything but ingestion.
        top_k: Default number of entries of :meth:`retrieve` when ``whole_file`` is False.
        whole_file: Retrieve the whole file (MEME's MD-flat), or its most relevant lines when it is
            longer than ``context_tokens``; ``k`` is then ignored.
        context_tokens: Budget of the retrieved file, cl100k tokens.
        protocol: "json" (JSON replies) or "tools" (a forced tool call per round).
        max_rounds: Most LLM calls per session chunk.
        input_tokens: Budget of session text per chunk (a longer session is ingested in chunks).
        view_tokens: Budget of the file shown to the model (the lines most related to the session
            when the file is longer).
        reply_tokens: Completion budget per call.
        oracle: ``memory`` (or True): no LLM call at ingestion; each gold fact of the session
            (``Session.metadata["gold_facts"]``, see baselines/gold_facts.py) becomes the edit a perfect
            agent following the prompt would make: a value replaces the entity's value line (or is
            appended), a rule or dependency is appended, a deletion request deletes the entity's lines.
            ``facts``: the agent loop gets the session's gold facts, worded apart from the question
            templates (``gold_facts.fact_chunks``), in place of the dialogue; every append, replace and
            delete is still the LLM's, so the file's maintenance is measured. False / "off": native.
    """

    name = "md_flat"

    def __init__(
        self,
        *,
        llm: ChatClient | None = None,
        top_k: int = 5,
        whole_file: bool = False,
        context_tokens: int = 3000,
        protocol: str = "json",
        max_rounds: int = 5,
        input_tokens: int = 700,
        view_tokens: int = 500,
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
        self.whole_file = bool(whole_file)
        self.context_tokens = check_k(context_tokens)
        self.max_rounds = check_k(max_rounds)
        self.view_tokens = check_k(view_tokens)
        self._entries = RecordStore()
        self._lexical: dict[str, LexicalIndex] = {}

    def params(self) -> dict[str, Any]:
        return {
            "top_k": self.top_k,
            "whole_file": self.whole_file,
            "context_tokens": self.context_tokens,
            "protocol": self.protocol,
            "max_rounds": self.max_rounds,
            "input_tokens": self.input_tokens,
            "view_tokens": self.view_tokens,
            "reply_tokens": self.reply_tokens,
            "oracle": self.oracle,
        }

    def memory_md(self, *, namespace: str = "default") -> str:
        """The namespace's ``memory.md``."""
        return "\n".join(_file_line(r.text) for r in self._entries.list(namespace))

    # -- the four verbs --------------------------------------------------------------------------

    def store(
        self,
        items: Sequence[str],
        *,
        namespace: str = "default",
        metadata: Sequence[dict[str, Any]] | None = None,
    ) -> list[str]:
        added = self._entries.add(items, namespace, metadata)
        self._lexical.pop(namespace, None)
        return [r.id for r in added]

    def _search(self, query: str, *, k: int, namespace: str) -> list[Hit]:
        records = self._entries.list(namespace)
        return [
            Hit(records[i].id, records[i].text, score, records[i].metadata)
            for i, score in self._index(namespace, records).top(query, k)
        ]

    def _retrieve(self, question: str, *, k: int, namespace: str) -> RetrievalResult:
        if not self.whole_file:
            return super()._retrieve(question, k=k, namespace=namespace)
        records = self._entries.list(namespace)
        if not records:
            return RetrievalResult(NO_MEMORY)
        text = self.memory_md(namespace=namespace)
        if fits_in_tokens(text, self.context_tokens):
            return RetrievalResult(text)
        # Too long: the most relevant lines that fit, shown in file order.
        order = relevant_first(self._index(namespace, records), question)
        chosen = within_budget(order, [count_tokens(r.text) for r in records], self.context_tokens)
        return RetrievalResult("\n".join(_file_line(records[i].text) for i in sorted(chosen)))

    def update(self, memory_id: str, text: str, *, namespace: str = "default") -> None:
        self._entries.replace(memory_id, text, namespace)
        self._lexical.pop(namespace, None)

    def delete(self, memory_id: str, *, namespace: str = "default") -> None:
        self._entries.remove(memory_id, namespace)
        self._lexical.pop(namespace, None)

    def records(self, *, namespace: str = "default") -> list[MemoryRecord]:
        return self._entries.list(namespace)

    def snapshot(self, *, namespace: str = "default") -> str:
        return self.memory_md(namespace=namespace)

    def reset(self, *, namespace: str | None = None) -> None:
        if namespace is None:
            self._lexical.clear()
        else:
            self._lexical.pop(check_namespace(namespace), None)
        self._entries.clear(namespace)

    def _index(self, namespace: str, records: list[MemoryRecord]) -> LexicalIndex:
        index = self._lexical.get(namespace)
        if index is None:
            index = self._lexical[namespace] = LexicalIndex([r.text for r in records])
        return index

    # -- ingestion --------------------------------------------------------------------------------

    def _ingest(self, session: Session, namespace: str, report: IngestReport) -> None:
        """Let the LLM edit ``memory.md`` from the session, at most ``max_rounds`` calls per chunk."""
        day = session_day(session.timestamp)
        system_prompt = f"{MD_FLAT_PROMPT}\n{transport_note(self.protocol, MD_FLAT_TOOL.name)}"
        for chunk in ingest_chunks(session, self.input_tokens, self.oracle_mode):
            outcome = run_action_loop(
                self._llm,
                tool=MD_FLAT_TOOL,
                system_prompt=system_prompt,
                user_prompt=self._task(chunk, session, day, namespace),
                execute=partial(self._execute, namespace=namespace, day=day, report=report),
                protocol=self.protocol,
                max_rounds=self.max_rounds,
                max_tokens=self.reply_tokens,
            )
            report.failures += outcome.failures

    def _ingest_oracle(self, session: Session, namespace: str, report: IngestReport) -> None:
        """Edit ``memory.md`` as the gold facts call for (see the ``oracle`` argument)."""
        day = session_day(session.timestamp)
        for fact in oracle_facts(session):
            mine = [
                r for r in self._entries.list(namespace) if (r.metadata or {}).get("entity") == fact.entity
            ]
            if fact.kind == "delete":
                for record in mine:
                    self._entries.remove(record.id, namespace)
                    report.deleted += 1
                continue
            entry = self._dated(fact.text, day)
            current = [r for r in mine if r.metadata.get("kind") == "value"] if fact.sets_value else []
            if current:
                self._entries.replace(current[-1].id, entry, namespace)
                report.updated += 1
            else:
                kind = "value" if fact.sets_value else fact.kind
                self._entries.add([entry], namespace, [{"entity": fact.entity, "kind": kind}])
                report.added += 1
        self._lexical.pop(namespace, None)

    def _view(self, namespace: str, query: str | None) -> str:
        """The numbered file within ``view_tokens``: all of it, or the lines most related to ``query``."""
        records = self._entries.list(namespace)
        if not records:
            return "(memory.md is empty)"
        full = _numbered(records, range(len(records)))
        if fits_in_tokens(full, self.view_tokens):
            return full
        order = relevant_first(self._index(namespace, records), query or "")
        costs = [count_tokens(r.text) + 2 for r in records]  # + the line number
        chosen = within_budget(order, costs, self.view_tokens)
        shown = _numbered(records, sorted(chosen))
        return f"(showing {len(chosen)} of {len(records)} lines)\n{shown}"

    def _task(self, chunk: str, session: Session, day: date | None, namespace: str) -> str:
        when = day.strftime("%Y/%m/%d") if day else session.timestamp
        return f"Session date: {when}\n\nmemory.md:\n{self._view(namespace, chunk)}\n\nNew session:\n{chunk}"

    def _dated(self, text: str, day: date | None) -> str:
        text = " ".join(text.split())  # an entry is one line
        if _DATED.match(text) or day is None:
            return text
        return f"[{day.strftime('%Y/%m/%d')}] {text}"

    def _execute(
        self, ops: list[Any], *, namespace: str, day: date | None, report: IngestReport
    ) -> tuple[str, int]:
        """Run one round's operations; line numbers refer to the file as it was when the round began."""
        ids = [r.id for r in self._entries.list(namespace)]
        results: list[str] = []
        invalid = 0
        read = False
        for n, op in enumerate(ops, 1):
            outcome = self._apply(op, ids, namespace, day, report) if isinstance(op, dict) else None
            if outcome == "read":
                read, outcome = True, "ok"
            if outcome is None:
                invalid += 1
                outcome = f"error: unusable operation {op!r:.120}"
            results.append(f"{n}. {outcome}")
        self._lexical.pop(namespace, None)
        if read:
            results.append(f"memory.md now:\n{self._view(namespace, None)}")
        return "\n".join(results) or "no operations", invalid

    def _apply(
        self, op: dict[str, Any], ids: list[str], namespace: str, day: date | None, report: IngestReport
    ) -> str | None:
        """Apply one operation; a short result, "read", or None when the operation is unusable."""
        kind = str(op.get("op", "")).strip().lower()
        if kind == "read":
            return "read"
        if kind == "append":
            text = op_text(op, "text")
            if text is None:
                return None
            entry = self._dated(text, day)
            if any(norm(r.text) == norm(entry) for r in self._entries.list(namespace)):
                return "already there"
            self._entries.add([entry], namespace)
            report.added += 1
            return f"appended as line {len(self._entries.list(namespace))}"
        line = op_int(op, "line")
        if kind not in ("replace", "delete") or line is None or not 1 <= line <= len(ids):
            return None
        try:
            if kind == "delete":
                self._entries.remove(ids[line - 1], namespace)
                report.deleted += 1
                return f"deleted line {line}"
            text = op_text(op, "text")
            if text is None:
                return None
            self._entries.replace(ids[line - 1], self._dated(text, day), namespace)
            report.updated += 1
            return f"replaced line {line}"
        except UnknownMemoryError:  # deleted earlier in the same round
            return None

    # -- persistence -------------------------------------------------------------------------------

    def _save_state(self, folder: Path) -> None:
        self._entries.dump(folder / "records.jsonl")
        # The files themselves, for people reading a saved store; records.jsonl is what load reads.
        rows = []
        for n, namespace in enumerate(self._entries.namespaces()):
            (folder / f"memory-{n}.md").write_text(
                self.memory_md(namespace=namespace) + "\n", encoding="utf-8"
            )
            rows.append({"namespace": namespace, "file": f"memory-{n}.md"})
        write_jsonl(folder / "files.jsonl", rows)

    @classmethod
    def _load_state(cls, folder: Path, params: dict[str, Any], **kwargs: Any) -> MdFlatMemory:
        settings = {**params, **{k: v for k, v in kwargs.items() if k in params}}
        system = cls(llm=kwargs.get("llm"), **settings)
        system._entries = RecordStore.load(folder / "records.jsonl")
        return system
