"""What the four native LLM paradigms share (llm_extraction, temporal_kg, md_flat, karpathy_wiki): the
accounted LLM, the transport, the prompt budgets, the oracle modes, and the opening of
``ingest_session``, so each paradigm's module holds only its paradigm.

Private to ``baselines``; nothing here is promised.
"""

from __future__ import annotations

import time
from abc import abstractmethod
from typing import Any, ClassVar

from memsuite.baselines._llm_support import (
    LLMAccount,
    ask_structured,
    check_protocol,
    session_chunks,
    session_day,
    system_usage,
)
from memsuite.baselines.gold_facts import fact_chunks
from memsuite.memory_systems.base import MemorySystem
from memsuite.memory_systems.errors import ConfigError
from memsuite.memory_systems.llm.protocol import ChatClient
from memsuite.memory_systems.records import IngestReport, Session, Usage
from memsuite.memory_systems.store import check_k, check_namespace, check_session

#: Oracle modes (a system's ``oracle`` argument): off; ``memory``, gold facts *and* gold maintenance
#: (values replaced and deletions applied by gold entity id, so the maintained stage is given, not
#: measured: the organisation-and-retrieval ceiling); ``facts``, gold facts only, worded apart from the
#: question templates (:func:`memsuite.baselines.gold_facts.worded`), entering the paradigm's own
#: maintenance: its ingestion LLM gets them where it would get the dialogue or its own extraction, and
#: its decisions are applied as in native ingestion.
MODES = ("off", "memory", "facts")


def oracle_mode(value: Any, system: str, *, supported: tuple[str, ...] = ("off", "memory")) -> str:
    """The oracle mode named by a system's ``oracle`` argument (False/None: off, True: memory).

    Raises:
        ConfigError: Not a mode, or one ``system`` does not support.
    """
    mode = value if isinstance(value, str) else {False: "off", None: "off", True: "memory"}.get(value)
    if mode not in MODES:
        raise ConfigError(
            f"{system}: oracle must be one of {', '.join(MODES)} (or true/false), got {value!r}"
        )
    if mode not in supported:
        raise ConfigError(f"{system}: oracle: {mode} is not supported (supported: {', '.join(supported)})")
    return mode


def oracle_param(mode: str) -> bool | str:
    """A mode as ``params()["oracle"]`` records it: False, True (gold memory, as earlier runs' rows and
    configs have it) or "facts"."""
    return {"off": False, "memory": True}.get(mode, mode)


def ingest_chunks(session: Session, max_tokens: int, mode: str) -> list[str]:
    """What an ingestion LLM reads of a session: its dialogue's chunks, or (``facts`` mode) the chunks
    of its worded gold facts (:func:`memsuite.baselines.gold_facts.fact_chunks`)."""
    return fact_chunks(session, max_tokens) if mode == "facts" else session_chunks(session, max_tokens)


class LLMParadigm(MemorySystem):
    """A memory whose ingestion is an LLM's work on each session (or, in an oracle mode, the gold's).

    Args:
        llm: The internal LLM; None for a system used without ingestion (or in ``oracle: memory``).
        top_k: Hits of ``search`` / ``retrieve`` when no ``k`` is given.
        protocol: ``json`` (a JSON reply) or ``tools`` (a forced tool call).
        input_tokens: Session text per ingestion call (a longer session takes several calls).
        reply_tokens: The completion budget of an ingestion call.
        oracle: ``off`` / False, ``memory`` / True (the gold facts applied with no LLM call), or
            ``facts`` (the LLM reads the worded gold facts), among the paradigm's :attr:`oracle_modes`.
    """

    oracle_modes: ClassVar[tuple[str, ...]] = MODES
    """The oracle modes the paradigm supports."""

    def __init__(
        self,
        *,
        llm: ChatClient | None,
        top_k: int,
        protocol: str,
        input_tokens: int,
        reply_tokens: int,
        oracle: bool | str,
    ) -> None:
        super().__init__(top_k=top_k)
        self.protocol = check_protocol(protocol)
        self.oracle_mode = oracle_mode(oracle, self.name, supported=self.oracle_modes)
        self.oracle = oracle_param(self.oracle_mode)
        self.input_tokens = check_k(input_tokens)
        self.reply_tokens = check_k(reply_tokens)
        self._llm = LLMAccount(llm, self.name)

    def ingest_session(self, session: Session, *, namespace: str = "default") -> IngestReport:
        """Ingest one session: the paradigm's LLM work on it, or (``oracle: memory``) what the gold facts
        call for. Failed calls, malformed replies and unusable items are counted in ``failures``.

        Raises:
            InvalidInputError: ``session`` is not a Session, a bad namespace, or (an oracle mode) a
                session without gold facts.
            ConfigError: The system has no LLM (outside ``oracle: memory``).
        """
        check_session(session)
        check_namespace(namespace)
        if self.oracle_mode != "memory":
            self._llm.require("ingest_session")
        report = IngestReport(session.session_id)
        started = time.perf_counter()
        with self.timed("ingest"):
            if self.oracle_mode == "memory":
                self._ingest_oracle(session, namespace, report)
            else:
                self._ingest(session, namespace, report)
        report.wall_s = time.perf_counter() - started
        return report

    def _ask_session(self, tool: Any, prompt: str, session: Session, chunk: str) -> tuple[Any, str | None]:
        """One structured ingestion call on a chunk of ``session``, its date first (a fact says when it
        held); the reply's data and, when the call or its parsing failed, why."""
        day = session_day(session.timestamp)
        return ask_structured(
            self._llm,
            tool,
            prompt,
            f"Session date: {day.isoformat() if day else session.timestamp}\n\n{chunk}",
            protocol=self.protocol,
            phase="ingest",
            max_tokens=self.reply_tokens,
        )

    @abstractmethod
    def _ingest(self, session: Session, namespace: str, report: IngestReport) -> None:
        """The paradigm's LLM work on one checked session, counted in ``report``."""

    @abstractmethod
    def _ingest_oracle(self, session: Session, namespace: str, report: IngestReport) -> None:
        """What the session's gold facts call for, with no LLM call, counted in ``report``."""

    def usage(self) -> Usage:
        embedder = getattr(self, "embedder", None)
        return system_usage(self._llm.usage(), embedder.usage if embedder else None, self._usage.wall_s)
