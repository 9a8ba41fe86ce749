"""MEME generator phrasing families: dev, dev2, dev3 and dev4 (the retired first, second and third held-out
families) and heldout load; an unknown family is refused; each is deterministic; and every non-dev family
keeps the facts' structure (a rule states its value, a deletion never restates the deleted value). Structural
checks only: no test here looks at the held-out family's wording."""

from __future__ import annotations

import copy
import hashlib
import json

import pytest

from memsuite.eval.benchmarks.meme.generator import dialogue, generate_episodes
from memsuite.eval.benchmarks.meme.generator.dialogue import _DEV, PHRASINGS, templates
from memsuite.eval.benchmarks.meme.generator.tables import load_table
from memsuite.eval.cli.main import build_parser
from memsuite.memory_systems.errors import ConfigError

#: Families written blind to the rules: the retired third held-out family and the current one.
BLIND = ("dev4", "heldout")


@pytest.fixture(scope="module")
def heldout_episodes():
    """Twelve held-out episodes, six per domain."""
    return generate_episodes(12, seed=31, filler="none", phrasing="heldout")


@pytest.fixture(scope="module", params=BLIND)
def blind_episodes(request):
    """(family, twelve of its episodes, six per domain) for each family written blind to the rules."""
    return request.param, generate_episodes(12, seed=31, filler="none", phrasing=request.param)


def _digest(episodes) -> str:
    """Short hash of the episodes' content, the family's label left out (a renamed family keeps it)."""
    dicts = copy.deepcopy([e.to_dict() for e in episodes])  # to_dict shares the episode's generator dict
    for d in dicts:
        d["generator"].pop("phrasing", None)
    text = json.dumps(dicts, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@pytest.mark.parametrize("family", PHRASINGS)
def test_every_family_loads_with_every_dev_list(family):
    table = templates(family)
    assert set(table) == set(_DEV) | {"value_paraphrases"}
    assert all(table[k] for k in _DEV)
    assert [e.to_dict() for e in generate_episodes(2, seed=9, phrasing=family)] == [
        e.to_dict() for e in generate_episodes(2, seed=9, phrasing=family)
    ]


def test_families_are_dev_dev2_dev3_dev4_heldout_and_the_cli_offers_them_all():
    assert PHRASINGS == ("dev", "dev2", "dev3", "dev4", "heldout")
    args = build_parser().parse_args(["generate", "meme", "--phrasing", "dev4", "--out", "x.json"])
    assert args.phrasing == "dev4"
    for family in PHRASINGS:
        assert build_parser().parse_args(["generate", "meme", "--phrasing", family, "--out", "x"])


def test_an_unknown_family_is_refused_naming_the_choices():
    expected = r"unknown MEME phrasing 'heldout2'; expected one of dev, dev2, dev3, dev4, heldout"
    with pytest.raises(ConfigError, match=expected):
        generate_episodes(1, seed=0, phrasing="heldout2")
    with pytest.raises(ConfigError, match="unknown MEME phrasing"):
        templates("filler_phrases")  # a data table that is not a dialogue family


def test_a_family_table_missing_a_list_is_refused_naming_its_file(monkeypatch):
    table = {k: v for k, v in load_table("dialogue_heldout").items() if k != "rule_ack"}
    table["delete"] = ()
    monkeypatch.setattr(dialogue, "load_table", lambda name: table)
    templates.cache_clear()
    try:
        with pytest.raises(ConfigError, match=r"dialogue_dev2\.json: missing or empty.*'rule_ack', 'delete'"):
            templates("dev2")
    finally:
        templates.cache_clear()  # the patched table must not outlive this test


def test_the_families_differ_in_wording_only():
    runs = {f: generate_episodes(2, seed=5, phrasing=f) for f in PHRASINGS}
    texts = {
        f: [t.content for e in eps for s in e.sessions for t in s.conversation] for f, eps in runs.items()
    }
    assert len({tuple(t) for t in texts.values()}) == len(PHRASINGS)
    for family, episodes in runs.items():
        assert [e.tasks for e in episodes] == [e.tasks for e in runs["dev"]], family
        assert [e.after_questions for e in episodes] == [e.after_questions for e in runs["dev"]], family
    assert all(e.to_dict()["generator"]["phrasing"] == "dev2" for e in runs["dev2"])
    assert all(e.to_dict()["generator"]["phrasing"] == "dev3" for e in runs["dev3"])
    assert all(e.to_dict()["generator"]["phrasing"] == "dev4" for e in runs["dev4"])
    assert "phrasing" not in runs["dev"][0].to_dict()["generator"]  # dev output stays byte-identical


def test_dev2_gives_the_episodes_the_first_held_out_family_gave():
    # Hash computed on main before the rename, from `generate_episodes(2, seed=3, phrasing="heldout")`:
    # the retired family's figure stays reproducible under its new name.
    assert _digest(generate_episodes(2, seed=3, phrasing="dev2")) == "c0dffbef6e3b564d"


def test_dev3_gives_the_episodes_the_second_held_out_family_gave():
    # Hash computed on main before the rename, from `generate_episodes(2, seed=3, phrasing="heldout")`:
    # the second retired family's figure stays reproducible under its new name.
    assert _digest(generate_episodes(2, seed=3, phrasing="dev3")) == "06e2296e05792538"


def test_dev4_gives_the_episodes_the_third_held_out_family_gave():
    # Hash pinned on main before the rename, from `generate_episodes(2, seed=3, phrasing="heldout")`:
    # the third retired family's figure stays reproducible under its new name.
    assert _digest(generate_episodes(2, seed=3, phrasing="dev4")) == "6f5aa7766c461a37"


def test_heldout_is_pinned_to_the_fourth_held_out_family():
    # The family measured once must not drift: any edit to its table changes this hash.
    assert _digest(generate_episodes(2, seed=3, phrasing="heldout")) == "6d1a5653d17143c7"


def test_heldout_episodes_are_deterministic_and_seed_dependent(heldout_episodes):
    again = generate_episodes(12, seed=31, filler="none", phrasing="heldout")
    assert [e.to_dict() for e in again] == [e.to_dict() for e in heldout_episodes]
    other = generate_episodes(12, seed=32, filler="none", phrasing="heldout")
    assert _digest(other) != _digest(heldout_episodes)
    assert all(e.to_dict()["generator"]["phrasing"] == "heldout" for e in heldout_episodes)


def _conveying_turns(episodes, kind):
    """(gold fact, the user turn that conveys it, the episode) for every fact of ``kind``."""
    for episode in episodes:
        for i in episode.evidence_session_indices:
            session = episode.sessions[i]
            for fact in session.gold_facts:
                if fact.to_dict().get("kind") == kind:
                    turn = session.conversation[fact.conveyed_in_turn]
                    assert turn.role == "user"
                    yield fact, turn.content, episode


def test_every_blind_family_rule_turn_states_the_rule_value(blind_episodes):
    family, episodes = blind_episodes
    para = templates(family)["value_paraphrases"]
    rules = list(_conveying_turns(episodes, "rule"))
    assert len(rules) >= 12
    for fact, text, _ in rules:
        assert fact.value and (fact.value in text or para.get(fact.value, fact.value) in text), (fact, text)


def test_no_blind_family_delete_turn_restates_the_deleted_value(blind_episodes):
    family, episodes = blind_episodes
    para = templates(family)["value_paraphrases"]
    deletes = list(_conveying_turns(episodes, "delete"))
    assert len(deletes) == len(episodes)
    for fact, text, episode in deletes:
        stated = {
            f.value
            for i in episode.evidence_session_indices
            for f in episode.sessions[i].gold_facts
            if f.entity == fact.entity and f.value
        }
        assert stated, fact  # the deleted fact was stated before
        session = next(s for s in episode.sessions if fact in s.gold_facts)
        # Neither the request nor the acknowledgement restates the value, in any wording.
        exchange = text + "\n" + session.conversation[fact.conveyed_in_turn + 1].content
        for value in stated:
            assert value not in exchange and para.get(value, value) not in exchange, (value, exchange)


@pytest.mark.parametrize("family", BLIND)
def test_blind_family_paraphrases_are_of_real_values_and_keep_their_numbers(family):
    from memsuite.eval.benchmarks.meme.generator.domains import DOMAINS

    values = {v for d in DOMAINS.values() for e in d.entities for v in e.pool}
    para = load_table(f"dialogue_{family}")["value_paraphrases"]
    assert len(para) >= 40
    for value, paraphrase in para.items():
        assert value in values and paraphrase != value, value
        numbers = sorted(w for w in value.replace(":", " :").split() if any(c.isdigit() for c in w))
        assert all(n in paraphrase for n in numbers), (value, paraphrase)


@pytest.mark.parametrize("family", [f for f in PHRASINGS if f != "dev"])
def test_every_family_template_carries_the_slots_its_fact_kind_needs(family):
    t = templates(family)
    for text in t["rule"]:
        assert all(s in text for s in ("{name}", "{src}", "{value}")), text
    for text in t["dependency"]:
        assert "{name}" in text and "{src}" in text and "{value}" not in text, text
    for text in t["change"]:
        assert "{value}" in text and "{src}" not in text, text  # a change never names a dependent
    for text in t["update"]:
        assert "{value}" in text and "{old}" in text, text
    for text in t["verbatim"]:
        assert text.endswith(":\n{value}") and text.count("{value}") == 1, text
    for text in t["delete"] + t["delete_ack"]:
        assert "{value}" not in text and "{old}" not in text, text
    for kind in ("state", "update", "rule", "dependency", "change", "delete", "verbatim"):
        assert len(t[kind]) >= 3, kind


@pytest.mark.parametrize("family", BLIND)
def test_a_blind_family_offers_enough_forms_per_kind(family):
    t = templates(family)
    for kind in ("state", "update", "verbatim", "rule", "dependency", "change", "delete"):
        assert len(set(t[kind])) >= 5, kind
    for kind in _DEV:
        assert len(set(t[kind])) >= 3, kind


def test_the_heldout_family_offers_at_least_six_user_forms_and_four_replies_per_kind():
    t = templates("heldout")
    for kind in ("state", "update", "verbatim", "rule", "dependency", "change", "delete"):
        assert len(set(t[kind])) >= 6, kind
    for kind in set(_DEV) - {"state", "update", "verbatim", "rule", "dependency", "change", "delete"}:
        assert len(set(t[kind])) >= 4, kind


def test_the_heldout_family_repeats_no_form_of_an_earlier_family():
    heldout = templates("heldout")
    for family in PHRASINGS[:-1]:
        earlier = templates(family)
        for kind in _DEV:
            assert not set(heldout[kind]) & set(earlier[kind]), (family, kind)
