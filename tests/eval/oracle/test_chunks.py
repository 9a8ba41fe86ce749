"""What a library's chunk states (eval/oracle/chunks.py), the rule the chunk-reading oracle kinds share
(cognee, Hindsight, A-MEM's notes): a session held whole states every gold fact it has, a part of one
the facts whose value it shows (multi-line values included) and, on its first chunk, the facts no turn
words as their value; a chunk of no session is refused."""

from __future__ import annotations

import pytest

from memsuite.baselines.gold_facts import OracleFact
from memsuite.eval.benchmarks.dynamicmem.oracle_gold import unit_gold as dynamicmem_gold
from memsuite.eval.benchmarks.dynamicmem.protocol import DynamicMemBenchmark
from memsuite.eval.benchmarks.meme.oracle_gold import unit_gold as meme_gold
from memsuite.eval.benchmarks.meme.protocol import MemeBenchmark
from memsuite.eval.oracle.chunks import facts_of_chunk, states
from memsuite.eval.oracle.gold import SessionGold, UnitGold, normalise
from memsuite.eval.oracle.kinds import Unservable

RECIPE = "Plum loaf (card #12)\n- 3 eggs, 180 g spelt flour\n-  70 g dark sugar"


def fact(name: str, value: str) -> OracleFact:
    return OracleFact("verbatim", name.replace(" ", "_"), name, value, f"My {name} is {value}.")


@pytest.fixture()
def unit():
    recipe, insurer = fact("recipe card", RECIPE), fact("car insurer", "Halvard Mutual")
    unnamed = fact("gym", "the one by the river")  # stated in other words than its value
    turns = ("here is the card: " + normalise(RECIPE), "and my insurer is halvard mutual now", "ok")
    return UnitGold("u1", (SessionGold("s1", "2024-01-01", turns, (recipe, insurer, unnamed)),), ())


def test_a_multi_line_value_is_found_in_the_normalised_text():
    assert states(fact("recipe card", RECIPE), normalise(f"user: the card\n\n{RECIPE}\nthanks"))
    assert not states(fact("recipe card", RECIPE), normalise("user: the card is lost"))


def test_a_session_held_whole_states_all_of_its_facts(unit):
    whole = "\n".join(f"user: {turn}" for turn in unit.sessions[0].turns)
    assert facts_of_chunk(unit, whole, "hindsight") == list(unit.sessions[0].facts)


def test_a_part_of_a_session_states_the_facts_whose_value_it_shows(unit):
    # The gym fact is in no turn in so many words: the chunk holding the first turn states it.
    part = f"user: {unit.sessions[0].turns[0]}"
    assert [f.name for f in facts_of_chunk(unit, part, "cognee")] == ["recipe card", "gym"]
    later = f"user: {unit.sessions[0].turns[1]}"
    assert [f.name for f in facts_of_chunk(unit, later, "cognee")] == ["car insurer"]
    inside = "my insurer is halvard mutual"  # a chunk cut from inside one turn
    assert [f.name for f in facts_of_chunk(unit, inside, "cognee")] == ["car insurer"]


def test_a_chunk_of_no_session_is_refused_naming_the_library(unit):
    with pytest.raises(Unservable, match=r"hindsight: the chunk .* is from no session of unit 'u1'"):
        facts_of_chunk(unit, "user: something else entirely", "hindsight")


def test_every_generated_meme_session_states_all_of_its_facts_as_a_library_writes_it():
    # The episodes of the oracle ceilings (seed 0), multi-line verbatim values (a recipe card, an
    # error log) among them: a session sent whole, as Hindsight and cognee send a MEME session.
    benchmark = MemeBenchmark(episodes=10, filler="none", seed=0)
    multi_line = 0
    for unit_id in benchmark.units():
        gold = meme_gold(benchmark, unit_id)
        episode = benchmark.episodes[unit_id]
        for phase in ("before", "after"):
            for source in episode.phase_sessions(phase):
                text = "\n".join(f"{t.role}: {t.content}" for t in source.conversation if t.content.strip())
                (session,) = [s for s in gold.sessions if s.session_id == source.session_id]
                assert facts_of_chunk(gold, text, "hindsight") == list(dict.fromkeys(session.facts))
                for turn in source.conversation:  # one turn, as A-MEM writes a note
                    shown = [f for f in session.facts if "\n" in f.value and f.value in turn.content]
                    multi_line += len(shown)
                    assert all(states(f, normalise(turn.content)) for f in shown)
    assert multi_line >= 2


def test_a_dynamicmem_day_states_its_facts_though_its_turns_are_raw_events():
    benchmark = DynamicMemBenchmark(users=1, months=2, seed=0, activity=0.5, ingest="session")
    gold = dynamicmem_gold(benchmark, benchmark.units()[0])
    days = [s for s in gold.sessions if s.facts]
    assert days
    hidden = 0
    for session in days:
        text = "\n".join(f"user: {turn}" for turn in session.turns)
        assert facts_of_chunk(gold, text, "hindsight") == list(dict.fromkeys(session.facts))
        hidden += sum(not states(f, normalise(text)) for f in session.facts)
        # Cut in two at a turn, as a library chunks a long day: together the halves state every fact.
        middle = len(session.turns) // 2
        halves = [session.turns[:middle], session.turns[middle:]] if middle else [session.turns]
        stated = [f for half in halves for f in facts_of_chunk(gold, "\n".join(half), "hindsight")]
        assert set(stated) == set(session.facts)
    assert hidden  # values in memsuite's words, not the events': a value-in-text rule would drop them
