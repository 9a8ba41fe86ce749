"""Registry: built-ins via entry points, clear errors, resources by signature, third-party factories."""

from __future__ import annotations

import pytest

from memsuite.memory_systems import registry
from memsuite.memory_systems.errors import ConfigError


def test_builtins_registered():
    assert {"bm25", "dense"} <= set(registry.system_names())


def test_unknown_name_suggests_and_lists():
    with pytest.raises(ConfigError, match=r"did you mean 'bm25'.*known: .*dense"):
        registry.get_system("bm26")


def test_duplicate_name_fails():
    with pytest.raises(ConfigError, match="registered twice"):
        registry.register("bm25")(lambda: None)


def test_resources_passed_only_when_accepted_and_instance_tagged():
    system = registry.get_system("bm25", resources={"embedder": object()}, top_k=3)
    assert system.top_k == 3
    assert system.registry_name == "bm25" and system.registry_args == {"top_k": 3}
