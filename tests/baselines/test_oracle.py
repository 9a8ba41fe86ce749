"""Extraction-oracle mode of the LLM paradigms, on generated MEME episodes, with the real embedder and
real indexes and no LLM at all (a system that tried to call one would raise ConfigError)."""

from __future__ import annotations

import json

import pytest

from memsuite.baselines.gold_facts import oracle_facts, worded
from memsuite.baselines.karpathy_wiki import KarpathyWikiMemory
from memsuite.baselines.llm_extraction import FACTS_HEADER, LLMExtractionMemory
from memsuite.baselines.md_flat import MdFlatMemory
from memsuite.baselines.temporal_kg import TemporalKGMemory
from memsuite.eval.benchmarks.meme.generator import generate_episodes
from memsuite.eval.benchmarks.meme.judges.rule import _any, markers
from memsuite.eval.benchmarks.meme.matching import contains
from memsuite.memory_systems.errors import ConfigError, InvalidInputError
from memsuite.memory_systems.records import Session, Turn


def uncertainty_marker(text: str) -> str | None:
    """The first phrase of the Abs rule's uncertainty list found in ``text`` (normalised), or None."""
    return _any(text, markers()["doubt"])


@pytest.fixture(scope="module")
def episodes():
    # Six episodes cover both domains and 2-hop chains (Cas and Abs at hop 2).
    found = generate_episodes(6, seed=11)
    assert any(e.has_2hop for e in found)
    return found


def ingest(system, episode, *, phase: str | None = None) -> str:
    """Ingest the episode (only up to the before-questions when ``phase == "before"``)."""
    namespace = episode.episode_id
    phases = ("before",) if phase == "before" else ("before", "after")
    for p in phases:
        for session in episode.phase_sessions(p):
            system.ingest_session(session.to_session(), namespace=namespace)
    return namespace


def after(episode, task: str):
    return [q for q in episode.after_questions.questions if q.task == task]


def test_gold_facts_are_typed():
    episode = generate_episodes(1, seed=0)[0]
    kinds = [f.kind for s in episode.sessions for f in oracle_facts(s.to_session())]
    assert {"state", "update", "verbatim", "rule", "dependency", "change", "delete"} == set(kinds)
    rules = [f for s in episode.sessions for f in oracle_facts(s.to_session()) if f.kind == "rule"]
    assert all(f.source_name and f.value for f in rules)


def test_kind_and_source_are_inferred_without_the_generator_keys():
    session = Session(
        "s",
        "2023/03/05 (Sun) 11:24",
        (Turn("user", "x"),),
        {
            "type": "evidence",
            "gold_facts": [
                {
                    "entity": "ci",
                    "value": "Corvex",
                    "fact_text": "The CI depends on the deploy tool; if it changes, the CI will be Corvex.",
                    "notes": "Cas rule",
                },
                {"entity": "locker", "value": "", "fact_text": "Please forget my locker code.", "notes": ""},
            ],
        },
    )
    rule, delete = oracle_facts(session)
    assert (rule.kind, rule.source_name, rule.value) == ("rule", "deploy tool", "Corvex")
    assert delete.kind == "delete"


def test_oracle_needs_gold_facts(embedder):
    memory = TemporalKGMemory(embedder=embedder, oracle=True)
    with pytest.raises(InvalidInputError, match="gold facts"):
        memory.ingest_session(Session("s", "2023/03/05 (Sun) 11:24", (Turn("user", "hi"),)))
    filler = Session("f", "2023/03/05 (Sun) 11:24", (Turn("user", "hi"),), {"type": "filler"})
    assert memory.ingest_session(filler).added == 0


@pytest.mark.parametrize("cls", [TemporalKGMemory, LLMExtractionMemory, MdFlatMemory, KarpathyWikiMemory])
def test_native_mode_still_needs_the_llm(cls, embedder, episodes):
    kwargs = {"embedder": embedder} if cls in (TemporalKGMemory, LLMExtractionMemory) else {}
    session = episodes[0].sessions[episodes[0].evidence_session_indices[0]].to_session()
    with pytest.raises(ConfigError, match="needs an LLM"):
        cls(**kwargs).ingest_session(session)


def test_temporal_kg_oracle_applies_cascade_rules_and_marks_absence(embedder, episodes):
    cascades = absences = 0
    for episode in episodes:
        memory = TemporalKGMemory(embedder=embedder, oracle=True)
        namespace = ingest(memory, episode)
        for q in after(episode, "Cas"):
            old, new = q.values
            context = memory.retrieve(q.question, k=1, namespace=namespace).context
            assert contains(context, new), (q.question, context)
            # The rule's outcome is a current fact; the old value is shown only as history.
            current = [e for e in memory.edges(namespace=namespace) if e.current and e.kind == "fact"]
            assert any(e.value == new and e.derived_from for e in current)
            assert not any(e.value == old for e in current)
            cascades += 1
        for q in after(episode, "Abs"):
            context = memory.retrieve(q.question, k=1, namespace=namespace).context
            assert contains(context, q.old_value), (q.question, context)
            assert uncertainty_marker(context) == "uncertain", context
            absences += 1
        # Before the change, the same questions see the old values with no uncertainty.
        before = TemporalKGMemory(embedder=embedder, oracle=True)
        ingest(before, episode, phase="before")
        for q in after(episode, "Abs"):
            context = before.retrieve(q.question, k=1, namespace=episode.episode_id).context
            assert contains(context, q.old_value) and "[uncertain" not in context
        assert memory.usage().llm_calls == 0
    assert cascades >= 6 and absences >= 6


@pytest.mark.parametrize("cls", [LLMExtractionMemory, MdFlatMemory, KarpathyWikiMemory, TemporalKGMemory])
def test_oracle_deletion_removes_the_memory(cls, embedder, episodes):
    kwargs = {"embedder": embedder} if cls in (TemporalKGMemory, LLMExtractionMemory) else {}
    for episode in episodes:
        [question] = after(episode, "Del")
        deleted = question.old_value
        before = cls(oracle=True, **kwargs)
        namespace = ingest(before, episode, phase="before")
        assert contains(before.snapshot(namespace=namespace), deleted)
        assert contains(before.retrieve(question.question, k=3, namespace=namespace).context, deleted)

        memory = cls(oracle=True, **kwargs)
        ingest(memory, episode)
        assert not contains(memory.snapshot(namespace=namespace), deleted)
        for k in (1, 5, 50):
            assert not contains(memory.retrieve(question.question, k=k, namespace=namespace).context, deleted)
        assert not any(
            contains(h.text, deleted) for h in memory.search(question.question, k=50, namespace=namespace)
        )


def test_llm_extraction_oracle_keeps_history_of_the_deleted_memory(embedder, episodes):
    episode = episodes[0]
    memory = LLMExtractionMemory(embedder=embedder, oracle=True)
    namespace = ingest(memory, episode)
    [question] = after(episode, "Del")
    gone = [r for r in memory._history.conn.execute("SELECT memory_id, event, old_text FROM history")]
    deleted = [row for row in gone if row[1] == "DELETE"]
    assert any(contains(row[2], question.old_value) for row in deleted)
    assert memory.usage().llm_calls == 0
    # Values of one entity are UPDATEd in place (mem0 v1), not stacked: one memory per Tr entity.
    [tr] = after(episode, "Tr")
    holding = [r for r in memory.records(namespace=namespace) if contains(r.text, tr.values[-1])]
    assert len(holding) == 1


def test_karpathy_oracle_page_keeps_tracking_history(episodes):
    for episode in episodes:
        memory = KarpathyWikiMemory(oracle=True)
        namespace = ingest(memory, episode)
        [tr] = after(episode, "Tr")
        context = memory.retrieve(tr.question, k=1, namespace=namespace).context
        assert all(contains(context, v) for v in tr.values), context
        assert "ingest (oracle)" in memory.log_md(namespace=namespace)


def test_oracle_flag_survives_save_and_load(tmp_path, embedder, episodes):
    memory = TemporalKGMemory(embedder=embedder, oracle=True)
    ingest(memory, episodes[0])
    memory.save(tmp_path / "kg")
    loaded = TemporalKGMemory.load(tmp_path / "kg", embedder=embedder)
    assert loaded.oracle is True


# -- oracle modes: memory = gold facts and gold maintenance, facts = gold facts only -------------


def test_oracle_modes_are_named_and_checked(embedder):
    assert LLMExtractionMemory(oracle=True, embedder=embedder).params()["oracle"] is True
    assert LLMExtractionMemory(oracle="memory", embedder=embedder).params()["oracle"] is True
    assert LLMExtractionMemory(oracle="off", embedder=embedder).params()["oracle"] is False
    assert LLMExtractionMemory(oracle="facts", embedder=embedder).params()["oracle"] == "facts"
    with pytest.raises(ConfigError, match="oracle must be one of"):
        LLMExtractionMemory(oracle="gold", embedder=embedder)
    for cls in (MdFlatMemory, TemporalKGMemory, KarpathyWikiMemory):  # facts mode: test_oracle_facts.py
        assert cls(oracle="facts").params()["oracle"] == "facts"
        assert cls(oracle="memory").params()["oracle"] is True
        assert cls(oracle=False).params()["oracle"] is False
        with pytest.raises(ConfigError, match="oracle must be one of"):
            cls(oracle="gold")


def test_facts_mode_runs_the_systems_own_decision_step_on_gold_facts(embedder, replay_llm, episodes):
    def add_all(messages):
        listed = messages[-1]["content"].split(FACTS_HEADER, 1)[1].strip().splitlines()[0]
        return {"memory": [{"event": "ADD", "text": fact} for fact in json.loads(listed)]}

    llm = replay_llm()
    # A decision LLM that ADDs every listed fact, the deletion request included: maintenance is the
    # LLM's, not gold's, so the deleted value stays.
    llm.script["update_memory"] = [add_all] * 50
    system = LLMExtractionMemory(llm=llm, embedder=embedder, oracle="facts")
    episode = episodes[0]
    namespace = ingest(system, episode)
    assert not llm.calls_of("extract_facts")  # extraction is replaced by the gold facts ...
    assert llm.calls_of("update_memory")  # ... the decision step runs with the LLM
    gold = [f for s in episode.sessions for f in oracle_facts(s.to_session())]
    stored = system.snapshot(namespace=namespace)
    assert all(worded(f) in stored for f in gold if f.kind == "state")
    # Nothing deleted by gold id: the deleted entity's value is still stored (the LLM never deleted it).
    deleted = next(q for q in episode.after_questions.questions if q.task == "Del")
    assert contains(stored, deleted.old_value)
    # The wording is disjoint from the question templates ("What is my X?") and the fact texts ("My X is V").
    for fact in gold:
        text = worded(fact).lower()
        assert text.startswith("user") and " my " not in text and " our " not in text
        assert text != fact.text.lower()
