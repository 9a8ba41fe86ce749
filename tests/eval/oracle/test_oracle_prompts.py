"""The oracle's prompt knowledge is declared in one place: a module of ``eval/oracle/prompts`` per
memsuite system module that calls an LLM, named like it, serving it, and listed in ``FAMILIES``."""

from __future__ import annotations

import inspect
import pkgutil

import pytest

from memsuite.eval.oracle import prompts
from memsuite.eval.oracle.kinds import OwnPrompt, check_kinds
from memsuite.eval.oracle.prompts import FAMILIES, all_kinds, libraries_of
from memsuite.memory_systems.registry import get_factory, system_names


def _llm_system_modules() -> set[str]:
    """Modules of memsuite's registered systems that take an LLM (a third party's are not ours to list)."""
    factories = [get_factory(name) for name in system_names()]
    return {
        f.__module__
        for f in factories
        if f.__module__.startswith("memsuite.") and "llm" in inspect.signature(f).parameters
    }


def test_every_system_that_calls_an_llm_has_its_prompts_declared():
    served = {system.__name__ for family in FAMILIES for system in family.systems}
    assert _llm_system_modules() <= served, sorted(_llm_system_modules() - served)


def test_each_prompts_module_is_named_after_the_system_module_it_serves_and_is_listed():
    names = {m.name for m in pkgutil.iter_modules(prompts.__path__)}
    listed = {family: name for name in names if (family := getattr(getattr(prompts, name), "FAMILY", None))}
    assert set(listed) == set(FAMILIES), "a prompts module whose FAMILY is not in FAMILIES"
    for family, name in listed.items():
        assert all(system.__name__.rsplit(".", 1)[1] == name for system in family.systems), name


def test_kind_names_are_unique_and_own_prompts_hold_their_markers():
    names = [kind.name for kind in all_kinds()]
    assert len(names) == len(set(names))
    check_kinds([kind for kind in all_kinds() if kind.library is None], [])


def test_a_run_checks_the_pins_of_the_libraries_its_systems_use():
    assert libraries_of(["memsuite.baselines.adapters.langmem"]) == ["langmem", "trustcall"]
    assert libraries_of(["memsuite.baselines.md_flat", "memsuite.baselines.bm25"]) == []


def test_an_own_prompt_reference_names_a_constant_that_exists():
    from memsuite.baselines import md_flat

    assert str(OwnPrompt(md_flat, "MD_FLAT_PROMPT")) == "memsuite.baselines.md_flat:MD_FLAT_PROMPT"
    with pytest.raises(TypeError, match="no prompt constant"):
        OwnPrompt(md_flat, "NO_SUCH_PROMPT")
