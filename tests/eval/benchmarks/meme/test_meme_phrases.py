"""Phrase recognisers (eval/benchmarks/meme/phrases.py + data/phrases.json), scoped to the entity.

Every phrasing here is one memsuite's generator does not write: its deletion turns say "forget",
"delete it from your memory", "erase"; its change turns "changed -- it's X now", "switched ... from";
its dependencies "depends on". Released sessions and LLM memories word these freely.
"""

from __future__ import annotations

import json

import pytest

from eval.benchmarks.meme import phrases
from eval.benchmarks.meme.phrases import (
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
    assert sentences_about("A. B about gym. C.", ["gym"]) == ["B about gym."]


def test_phrase_file_is_checked(tmp_path):
    bad = tmp_path / "phrases.json"
    bad.write_text(json.dumps({"deletion": ["forget"]}), encoding="utf-8")
    with pytest.raises(ValueError, match=r"phrases\.json.*'change'"):
        phrases.phrase_lists(bad)
    with pytest.raises(ValueError, match="unknown phrase list"):
        phrase_in("nonsense", "x")
    assert set(phrases.phrase_lists()) == set(phrases.KINDS)
