"""The worked example memory system of docs/extending.md: registered through its entry point and usable."""

from __future__ import annotations

import extending_example

from memsuite.eval.cli.main import main
from memsuite.memory_systems import get_system, system_names


def test_the_example_is_registered_through_its_entry_point():
    assert extending_example.example_entry_points() == {
        "word_overlap": "word_overlap_memory:WordOverlapMemory"
    }
    assert "word_overlap" in system_names()


def test_memsuite_systems_lists_the_example(capsys):
    assert main(["systems"]) == 0
    assert "word_overlap" in capsys.readouterr().out


def test_the_example_ranks_by_shared_words_and_round_trips(tmp_path):
    memory = get_system("word_overlap")
    ids = memory.store(["The staging database runs on port 6642.", "Lunch is at noon on Fridays."])
    hits = memory.search("which port does the staging database use?", k=1)
    assert [h.id for h in hits] == [ids[0]]
    assert memory.retrieve("lunch on Fridays", k=1).context == "Lunch is at noon on Fridays."
    memory.save(tmp_path / "store")
    loaded = type(memory).load(tmp_path / "store")
    assert loaded.search("staging port", k=2) == memory.search("staging port", k=2)


def test_the_page_shows_exactly_one_module_and_its_entry_point():
    assert len(extending_example.page_blocks("python")) == 1
    assert len(extending_example.page_blocks("toml")) == 1
