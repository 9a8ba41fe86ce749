"""Phrase recognisers (eval/benchmarks/meme/phrases.py + data/phrases.json), scoped to the entity.

Every phrasing here is one memsuite's generator does not write: its deletion turns say "forget",
"delete it from your memory", "erase"; its change turns "changed -- it's X now", "switched ... from";
its dependencies "depends on". Released sessions and LLM memories word these freely.
"""

from __future__ import annotations

import json

import pytest

from memsuite.eval.benchmarks.meme import phrases
from memsuite.eval.benchmarks.meme.phrases import (
    change_stated,
    deletion_requested,
    dependency_stated,
    phrase_in,
    sentences_about,
    uncertainty_stated,
)


@pytest.mark.parametrize(
    "sentence",
    [
        "Actually, please drop that from memory.",
        "Don't hang on to it -- scrap it.",
        "I no longer want you to remember the staging URL.",
        "User asked to remove the staging URL.",
        "Staging URL: deletion request received on 3 May.",
        "Staging URL removed at the user's request.",
        "DELETED per user request (was stage.quillmarsh.dev/beta)",
        "Please stop remembering my locker code.",
    ],
)
def test_deletion_requests_in_any_person_and_form(sentence):
    assert phrase_in("deletion", sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "I keep forgetting to water the plants.",
        "The staging URL is stage.quillmarsh.dev/beta.",
        "We keep the staging URL in the team vault.",
    ],
)
def test_no_deletion_request(sentence):
    assert phrase_in("deletion", sentence) is None


@pytest.mark.parametrize(
    "sentence",
    [
        "Lead changed to Dana Park.",
        "Redis was swapped for Memcached last sprint.",
        "The team migrated the CI to Buildkite.",
        "We replaced Jenkins with Buildkite.",
        "The gateway now uses mTLS.",
        "Health status went from mild asthma to high blood pressure.",
        "Home base moved to Orinthal Park.",
        "The linter has become Ruffle 3.",
    ],
)
def test_change_events_verbs_and_nouns(sentence):
    assert phrase_in("change", sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        # Stated rules and hypotheticals are not changes.
        "If the cloud provider changes, the secrets manager switches to Hushvault.",
        "Medication would be switched to Thrynexol should the condition change.",
        "Whenever the region is updated, the CDN follows.",
        "The secrets manager is Cipherbox.",
    ],
)
def test_rules_and_plain_statements_are_not_change_events(sentence):
    assert phrase_in("change", sentence) is None


@pytest.mark.parametrize(
    "sentence",
    [
        "The dashboard relies on the metrics backend.",
        "Our rollout cadence is derived from the release train.",
        "The mobile app is built on the shared SDK.",
        "The on-call rota is driven by the sprint calendar.",
        "Medication switches to Thrynexol if the health condition changes.",
    ],
)
def test_dependency_statements(sentence):
    assert phrase_in("dependency", sentence)


def test_uncertainty_markers():
    assert phrase_in("uncertainty", "Commute time: TBD after the move.")
    assert phrase_in("uncertainty", "The insurer may have changed since the car did.")
    assert phrase_in("uncertainty", "The insurer is Safelane.") is None


def test_recognisers_fire_only_on_sentences_about_the_entity():
    text = (
        "My staging URL is stage.quillmarsh.dev/beta. Our build cache is Stashly.\n"
        "User asked to remove the build cache."
    )
    assert deletion_requested(text, ["build cache"]) == "User asked to remove the build cache."
    assert deletion_requested(text, ["staging URL"]) is None
    # A value instead of a name scopes it too, and a pronoun reaches back one sentence.
    refer = "The staging URL is stage.quillmarsh.dev/beta. Please drop that from memory."
    assert deletion_requested(refer, ["stage.quillmarsh.dev/beta"]) == "Please drop that from memory."
    assert deletion_requested("Unrelated chat. Please drop that from memory.", ["staging URL"]) is None


def test_change_on_the_root_but_not_its_rule():
    rule = "Secrets manager depends on the cloud provider; if the cloud provider changes, Hushvault."
    assert change_stated(rule, ["cloud provider"]) is None
    memory = f"{rule}\nCloud provider was swapped for Stratavane."
    assert change_stated(memory, ["cloud provider"]) == "Cloud provider was swapped for Stratavane."
    assert change_stated("Lead changed to Dana Park.", ["team lead", "Dana Park"])


def test_dependency_and_uncertainty_scoped():
    text = "Commute duration relies on where I live.\nGym: Ironleaf."
    assert dependency_stated(text, ["commute duration"])
    assert dependency_stated(text, ["gym"]) is None
    assert uncertainty_stated("Commute duration: unclear since the move.", ["commute duration"])
    long = "Some five unrelated words here. B about gym. More unrelated words follow right here."
    assert sentences_about(long, ["gym"]) == ["B about gym."]


def test_an_elliptical_sentence_leans_on_its_neighbour_in_the_same_line():
    # "Purged." names nothing; beside a sentence that names the entity it is about that entity.
    assert deletion_requested("Purged. Nothing about the locker code is kept.", ["locker code"]) == "Purged."
    assert deletion_requested("The locker code? Gone, wiped.", ["locker code"]) == "Gone, wiped."
    # ...but only in the same line, and a longer sentence never borrows its neighbour's scope.
    assert deletion_requested("The locker code is 4471.\nPurged.", ["locker code"]) is None
    text = "Our build cache is Stashly. Please forget the staging URL entirely."
    assert deletion_requested(text, ["build cache"]) is None


@pytest.mark.parametrize(
    "sentence",
    [
        "The landlord was struck from the records.",  # irregular past of "strike ... from"
        "She got rid of that note.",  # "get rid of"
        "The team scrapped the old entry.",  # doubled consonant
        "User's locker code wiped on request.",
    ],
)
def test_phrase_words_match_their_inflections(sentence):
    assert phrase_in("deletion", sentence)


def test_inflections_rule():
    assert set(phrases.inflections("wipe")) >= {"wipes", "wiped", "wiping"}
    assert "buried" in phrases.inflections("bury") and "scrapped" in phrases.inflections("scrap")
    assert phrases.inflections("is") == ["is"]  # function words stay as they are
    # A verb of the irregular table gets exactly its listed forms ("forgetting" is rarely a request).
    table = {"forget": ("forgot", "forgotten")}
    assert phrases.inflections("forget", table) == ["forget", "forgot", "forgotten"]


@pytest.mark.parametrize(
    "sentence",
    [
        "Should the cloud provider be replaced at some point, we'd go with Hushvault.",
        "The region could move to eu-west one day.",
        "The backup plan is Stratavane, in case the provider is swapped out.",
        # Temporal conditionals and imperatives about a future change.
        "Once the region is different, the CDN moves to Edgewick.",
        "The day the office is different, move the commute over to the ferry.",
        "Any time the runtime gets changed, the build tool ought to go to Forgewright.",
        # "for now" is a hedge on the present value, not a change ("now at" is no change phrase).
        "As for the neighbourhood, that's Marrowgate, for now at least.",
    ],
)
def test_modal_and_hypothetical_sentences_are_not_change_events(sentence):
    assert phrase_in("change", sentence) is None


def test_passive_deletion_requests_and_consequence_links():
    assert phrase_in("deletion", "User asked that their locker code no longer be stored.")
    assert phrase_in("dependency", "That one's really a consequence of the build tool.")
    assert phrase_in("dependency", "Guess what got picked for our issue tracker.") is None


def test_a_pronoun_links_within_its_line_only():
    # "That one" refers back to the entity named in the same turn, and names the upstream entity.
    turn = "About our artifact format. That one just goes along with our build tool."
    said = phrases.linked(turn, ["artifact format"], ["build tool"])
    assert said == "That one just goes along with our build tool."
    # Across turns the pronoun is someone else's: no link.
    turns = "Assistant: Your artifact format is Tarnpack.\nUser: Next: our build tool -- it's Brickle."
    assert phrases.linked(turns, ["artifact format"], ["build tool"]) is None


def test_a_sentence_naming_the_entity_and_its_upstream_states_a_link():
    # No dependency phrase: naming both is how MEME dialogue and memories state the link.
    said = "Our monitoring agent and our container orchestrator go hand in hand."
    assert dependency_stated(said, ["monitoring agent"], ["container orchestrator"]) == said
    assert dependency_stated(said, ["monitoring agent"]) is None  # without the upstream names
    # Two sentences, one entity each: no link. "car" inside "car insurer" is the entity itself.
    apart = "Our monitoring agent is Vigilark. Our container orchestrator is Podmarshal."
    assert dependency_stated(apart, ["monitoring agent"], ["container orchestrator"]) is None
    assert dependency_stated("My car insurer is Safelane.", ["car insurer"], ["car"]) is None


def test_phrase_file_is_checked(tmp_path):
    bad = tmp_path / "phrases.json"
    bad.write_text(json.dumps({"deletion": ["forget"]}), encoding="utf-8")
    with pytest.raises(ValueError, match=r"phrases\.json.*'change'"):
        phrases.phrase_lists(bad)
    with pytest.raises(ValueError, match="unknown phrase list"):
        phrase_in("nonsense", "x")
    table = tmp_path / "irregular.json"
    lists = {kind: ["x"] for kind in phrases.KINDS}
    table.write_text(json.dumps({**lists, "irregular_verbs": {"strike": "struck"}}), encoding="utf-8")
    with pytest.raises(ValueError, match=r"irregular\.json.*'irregular_verbs'"):
        phrases.phrase_lists(table)
    assert set(phrases.phrase_lists()) == set(phrases.KINDS)


@pytest.mark.parametrize(
    "sentence",
    [
        "No need to keep it on file.",
        "I no longer retain your work schedule.",
        "Please don't hang onto my locker code.",
        "The user withdrew consent for the locker code to be kept.",
        "Redact the locker code from your records.",
    ],
)
def test_a_negated_retention_verb_is_a_deletion_request(sentence):
    assert phrase_in("deletion", sentence)


def test_a_settled_doubt_is_neither_doubt_nor_change():
    assert phrase_in("uncertainty", "Right, my phone is no longer undecided.") is None
    assert phrase_in("change", "Right, my phone is no longer undecided.") is None
    assert phrase_in("uncertainty", "You know how the piano teacher was up in the air?") is None
    assert phrase_in("uncertainty", "The piano teacher is up in the air again.") == "up in the air"
