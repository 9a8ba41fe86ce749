"""Every prompt the oracle endpoint recognises, declared per system module.

The rule: a module here for each module of ``baselines`` whose systems call an LLM, with the same name
(``baselines/adapters/mem0ai.py`` -> ``mem0ai``, ``baselines/md_flat.py`` -> ``md_flat``), declaring
``KINDS`` (its prompt kinds, :class:`~memsuite.eval.oracle.kinds.PromptKind`) and ``FAMILY`` (those
kinds and the system module they serve, :class:`~memsuite.eval.oracle.kinds.PromptFamily`); a
third-party library's kinds are pinned to its version and source files, memsuite's own to its prompt
constants (:class:`~memsuite.eval.oracle.kinds.OwnPrompt`). :data:`FAMILIES` lists them all.

- ``mem0ai``, ``graphiti``, ``langmem``, ``llamaindex_memory``, ``amem``, ``cognee``, ``hindsight``: the
  library adapters' calls.
- ``llm_extraction``, ``temporal_kg``, ``md_flat``, ``karpathy_wiki``: the native LLM paradigms' calls.
- ``answers``: the benchmarks' answer prompts and the preflight ping (memsuite's driver sends them).
"""

from __future__ import annotations

from collections.abc import Iterable

from memsuite.eval.oracle.kinds import PromptFamily, PromptKind
from memsuite.eval.oracle.prompts import (
    amem,
    answers,
    cognee,
    graphiti,
    hindsight,
    karpathy_wiki,
    langmem,
    llamaindex_memory,
    llm_extraction,
    md_flat,
    mem0ai,
    temporal_kg,
)

#: Every family the oracle serves, most specific first (a request goes to the first kind it matches).
FAMILIES: tuple[PromptFamily, ...] = (
    mem0ai.FAMILY,
    graphiti.FAMILY,
    langmem.FAMILY,
    llamaindex_memory.FAMILY,
    amem.FAMILY,
    cognee.FAMILY,
    hindsight.FAMILY,
    llm_extraction.FAMILY,
    temporal_kg.FAMILY,
    md_flat.FAMILY,
    karpathy_wiki.FAMILY,
    answers.FAMILY,
)


def all_kinds() -> tuple[PromptKind, ...]:
    """Every prompt kind the oracle serves, most specific first."""
    return tuple(kind for family in FAMILIES for kind in family.kinds)


def libraries_of(modules: Iterable[str]) -> list[str]:
    """The distributions whose prompts systems of the named modules send (their pins are checked)."""
    wanted = set(modules)
    return sorted(
        {
            library
            for family in FAMILIES
            if any(family.serves(module) for module in wanted)
            for library in family.libraries
        }
    )
