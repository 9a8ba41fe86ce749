"""Evidence rules on any wording (eval/benchmarks/meme/evidence.py), per task, YES and NO cases.

Contexts are worded the way released sessions and LLM memories are, not as memsuite's generator
writes them (it states every label verbatim and says "depends on" / "forget" / "changed").
"""

from __future__ import annotations

import pytest

from memsuite.eval.benchmarks.meme import evidence
from memsuite.eval.benchmarks.meme.evidence import change_reached, context_holds_evidence, holds_state
from memsuite.eval.benchmarks.meme.release import UpstreamChange

CHANGE = UpstreamChange("health_condition", "mild asthma", "chronic migraine")


def check(context, task, values, *, names=(), change=None, phase="after", root_names=()):
    return context_holds_evidence(
        context, task=task, phase=phase, values=values, names=names, change=change, root_names=root_names
    )


def test_cascade_needs_the_change_event_and_the_new_value():
    rule = "- medication switches to Quenzamol if the health condition changes"
    applied = "- medication: Quenzamol"
    event = "- health condition updated (was mild asthma)"
    assert check(f"{rule}\n{event}", "Cas", ["Quenzamol"], change=CHANGE)[0]
    assert check(f"{applied}\n- health condition: chronic migraine", "Cas", ["Quenzamol"], change=CHANGE)[0]
    held, reason = check(rule, "Cas", ["Quenzamol"], change=CHANGE)  # the rule alone is not the change
    assert not held and "upstream change" in reason
    held, reason = check(event, "Cas", ["Quenzamol"], change=CHANGE)
    assert not held and "missing" in reason
    assert check(rule, "Cas", ["Quenzamol"])[0]  # change unknown: the new value suffices


def test_absence_needs_the_change_event_and_the_stated_dependency():
    names = ("sleep pattern",)
    dependency = "Sleep pattern relies on the health condition."
    event = "Health condition was swapped for chronic migraine."
    assert check(f"{dependency}\n{event}", "Abs", ["early riser"], names=names, change=CHANGE)[0]
    held, reason = check(event, "Abs", ["early riser"], names=names, change=CHANGE)
    assert not held and "dependency" in reason
    held, reason = check(dependency, "Abs", ["early riser"], names=names, change=CHANGE)
    assert not held and "upstream change" in reason
    # A doubt stated on the entity counts like the dependency; the old value itself is not required.
    doubt = "Sleep pattern: unclear since the diagnosis was revised."
    assert check(f"{doubt}\n{event}", "Abs", ["early riser"], names=names, change=CHANGE)[0]


def test_change_event_by_phrase_or_by_the_new_value():
    assert change_reached("The health condition was replaced by a new diagnosis.", CHANGE)
    assert change_reached("Diagnosis: chronic migraine.", CHANGE)
    assert change_reached("Diagnosis changed", "chronic migraine", root_names=["diagnosis"])
    assert not change_reached("If the health condition changes, switch meds.", CHANGE)
    assert not change_reached("The gym changed to Ironleaf.", CHANGE)
    assert change_reached("anything", None)


def test_deletion_request_counts_even_with_the_old_value_there():
    names = ("staging URL",)
    value = ["stage.quillmarsh.dev/beta"]
    stored = "The staging URL is stage.quillmarsh.dev/beta."
    assert check(f"{stored}\nUser asked to remove the staging URL.", "Del", value, names=names) == (
        True,
        "deletion request retrieved",
    )
    assert check("DELETED per user request (was stage.quillmarsh.dev/beta)", "Del", value, names=names)[0]
    assert check(f"{stored} Please drop that from memory.", "Del", value, names=names)[0]
    nothing = check("Nothing relevant here.", "Del", value, names=names)
    assert nothing == (True, "no trace of the deleted value")
    held, reason = check(stored, "Del", value, names=names)
    assert not held and "without the deletion request" in reason
    # A request about another entity does not count.
    held, _ = check(f"{stored}\nUser asked to remove the build cache.", "Del", value, names=names)
    assert not held


def test_retrieval_tasks_use_tolerant_matching():
    value = ["rotating weekly (lead + backup)"]
    assert check("We rotate weekly, with a lead and a backup.", "ER", value, phase="before")[0]
    assert not check("We rotate monthly.", "ER", value, phase="before")[0]
    assert check("Stack: postgresql 14, redis 7", "Agg", ["PostgreSQL 14", "Redis 7"])[0]
    held, reason = check("Stack: PostgreSQL 15, Redis 7", "Agg", ["PostgreSQL 14", "Redis 7"])
    assert not held and "PostgreSQL 14" in reason


def test_snapshot_state_is_strict_for_deletion_and_absence():
    names = ("sleep pattern",)
    assert not holds_state(
        "staging: stage.quillmarsh.dev/beta (user asked to remove it)",
        task="Del",
        phase="after",
        values=["stage.quillmarsh.dev/beta"],
    )[0]
    assert holds_state("nothing", task="Del", phase="after", values=["stage.quillmarsh.dev/beta"])[0]
    kept = "Sleep pattern: early riser; it is contingent on the health condition."
    assert holds_state(kept, task="Abs", phase="after", values=["early riser"], names=names)[0]
    assert not holds_state(
        "Sleep pattern: early riser", task="Abs", phase="after", values=["early riser"], names=names
    )[0]
    assert not holds_state(
        "Sleep pattern relies on health.", task="Abs", phase="after", values=["early riser"], names=names
    )[0]


@pytest.mark.parametrize(
    ("context", "task", "values", "names", "change"),
    [
        (
            "My mechanic depends on my car; if my car changes, my mechanic will be Gearwell Garage.\n"
            "My car changed from Dunmore Glide to Kestrel Compact 4.",
            "Cas",
            ["Gearwell Garage"],
            (),
            "Kestrel Compact 4",
        ),
        (
            "My mechanic depends on my car; if my car changes, my mechanic will be Gearwell Garage.",
            "Cas",
            ["Gearwell Garage"],
            (),
            "Kestrel Compact 4",
        ),
        (
            "My car insurer is Safelane Insurance.\nMy car insurer depends on my car.\n"
            "My car changed from Dunmore Glide to Kestrel Compact 4.",
            "Abs",
            ["Safelane Insurance"],
            ("car insurer",),
            "Kestrel Compact 4",
        ),
        (
            "My car insurer is Safelane Insurance.\nMy car changed from Dunmore Glide to Kestrel Compact 4.",
            "Abs",
            ["Safelane Insurance"],
            ("car insurer",),
            "Kestrel Compact 4",
        ),
        (
            "User: My work schedule is Mon-Fri 08:20-16:35.\n"
            "User: Please forget my work schedule -- delete it from your memory.",
            "Del",
            ["Mon-Fri 08:20-16:35"],
            ("work schedule",),
            None,
        ),
        (
            "User: My work schedule is Mon-Fri 08:20-16:35.",
            "Del",
            ["Mon-Fri 08:20-16:35"],
            ("work schedule",),
            None,
        ),
    ],
)
def test_agrees_with_the_current_rules_on_generator_wording(context, task, values, names, change):
    new = check(context, task, values, names=names, change=change)[0]
    old = evidence.context_holds_evidence(
        context, task=task, phase="after", values=values, names=names, change=change
    )[0]
    assert new == old


def test_a_memory_line_naming_the_entity_and_its_upstream_keeps_the_abs_state():
    # The link is stated by naming both (row metadata "upstream" carries the names), not by a phrase.
    line = "Car insurer Safelane sits alongside the car."
    args = {"task": "Abs", "phase": "after", "values": ["Safelane"], "names": ["car insurer"]}
    assert holds_state(line, **args, upstream=["car", "Dunmore Glide"])[0]
    assert not holds_state(line, **args)[0]
