"""The LLM-free evidence rules of MEME (eval/benchmarks/meme/evidence.py), task by task."""

from __future__ import annotations

import pytest

from memsuite.eval.benchmarks.meme.evidence import context_holds_evidence, holds_state, needed_values
from memsuite.eval.benchmarks.meme.protocol import evidence_verdict
from memsuite.eval.benchmarks.meme.report import meme_undefined_tasks
from memsuite.eval.benchmarks.meme.schema import DELETION_GOLD, Question
from memsuite.eval.protocol import Row

RULE = "My mechanic depends on my car; if my car changes, my mechanic will be Gearwell Garage."
CHANGE = "My car changed from Dunmore Glide to Kestrel Compact 4."
ABS_DEP = "My car insurer is Safelane Insurance.\nMy car insurer depends on my car."


def _check(context, task, values, *, names=(), change=None, phase="after"):
    return context_holds_evidence(context, task=task, phase=phase, values=values, names=names, change=change)


def test_needed_values_per_task():
    assert needed_values("ER", "after", "pw-1!", ["pw-1!"], None) == ["pw-1!"]
    assert needed_values("Tr", "after", "a, b, c", [], None) == ["a", "b", "c"]
    assert needed_values("Agg", "after", "x", ["a", "b"], None) == ["a", "b"]
    assert needed_values("Cas", "after", "Gearwell Garage", ["Torque", "Gearwell Garage"], "Torque") == [
        "Gearwell Garage"
    ]
    assert needed_values("Del", "after", DELETION_GOLD, ["Mon-Fri"], "Mon-Fri") == ["Mon-Fri"]
    assert needed_values("Del", "before", "Mon-Fri", ["Mon-Fri"], "Mon-Fri") == ["Mon-Fri"]


def test_cascade_needs_the_new_value_and_the_upstream_change():
    assert _check(f"{RULE}\n{CHANGE}", "Cas", ["Gearwell Garage"], change="Kestrel Compact 4")[0]
    held, reason = _check(RULE, "Cas", ["Gearwell Garage"], change="Kestrel Compact 4")
    assert not held and "upstream change" in reason
    assert _check(RULE, "Cas", ["Gearwell Garage"])[0]  # no recorded change: the rule alone
    assert not _check(CHANGE, "Cas", ["Gearwell Garage"], change="Kestrel Compact 4")[0]


def test_absence_needs_the_stated_dependency_and_the_change():
    names = ("car insurer",)
    good = f"{ABS_DEP}\n{CHANGE}"
    assert _check(good, "Abs", ["Safelane Insurance"], names=names, change="Kestrel Compact 4")[0]
    no_dependency = f"My car insurer is Safelane Insurance.\n{CHANGE}"
    held, reason = _check(
        no_dependency, "Abs", ["Safelane Insurance"], names=names, change="Kestrel Compact 4"
    )
    assert not held and "dependency" in reason
    assert not _check(ABS_DEP, "Abs", ["Safelane Insurance"], names=names, change="Kestrel Compact 4")[0]


def test_deletion_request_or_absence_is_the_evidence():
    names = ("work schedule",)
    stated = "User: My work schedule is Mon-Fri 08:20-16:35."
    request = "User: Please forget my work schedule -- delete it from your memory."
    assert _check(f"{stated}\n{request}", "Del", ["Mon-Fri 08:20-16:35"], names=names) == (
        True,
        "deletion request retrieved",
    )
    assert _check("User: I like tea.", "Del", ["Mon-Fri 08:20-16:35"], names=names)[0]
    assert not _check(stated, "Del", ["Mon-Fri 08:20-16:35"], names=names)[0]
    # "forgetting" is not a request to forget.
    chatter = "User: I keep forgetting to tell you about my work schedule."
    assert not _check(f"{stated}\n{chatter}", "Del", ["Mon-Fri 08:20-16:35"], names=names)[0]


def test_a_snapshot_holding_the_request_and_the_value_is_not_maintained():
    text = "My work schedule is Mon-Fri.\nPlease forget my work schedule."
    held, reason = holds_state(text, task="Del", phase="after", values=["Mon-Fri"], names=["work schedule"])
    assert not held and "still there" in reason


@pytest.mark.parametrize("phase", ["before", "after"])
def test_verdict_shape(phase):
    q = Question("ER", "What is my Wi-Fi password?", "pw-1!", ("wifi",), ["pw-1!"])
    assert evidence_verdict(q, phase, "the password is PW-1!") == {
        "correct": True,
        "reason": "all present",
        "judge": "evidence",
    }


def test_runs_without_a_del_rule_still_print_n_a():
    """Rows written before Del had an evidence rule carry None: the report marks the task undefined."""

    def row(task, correct):
        verdict = {"evidence": {"correct": correct, "reason": "", "judge": "evidence"}}
        meta = {"task": task, "phase": "after"}
        return Row("bm25", "meme", "ep", f"after-{task}", "q", "g", "c", None, verdict, metadata=meta)

    assert meme_undefined_tasks([row("Del", None), row("ER", True)], "evidence") == {"Del"}
