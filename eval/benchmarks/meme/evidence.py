"""What a MEME question needs, and whether a text holds it: the LLM-free evidence rules, on any wording.

Two readers share these rules: the protocol's ``evidence`` verdict on the retrieved context (does the
context handed to the answer LLM hold what the question needs?) and the failure-stage attribution
(:mod:`memsuite.eval.benchmarks.meme.diagnostics`), which also applies :func:`holds_state` to the memory
snapshot at question time. They hold on released episodes and LLM-written memories, not only on
memsuite's generator wording: values are found by :func:`memsuite.eval.benchmarks.meme.matching.value_present`
(verbatim, phrase, or the token rule for descriptive values) and statements by
:mod:`memsuite.eval.benchmarks.meme.phrases`. ``values`` are the needed values of :func:`needed_values`
(Abs/Del: the old / deleted value, which :func:`memsuite.eval.benchmarks.meme.release.old_value_of` gives for
both layouts); the upstream change is :func:`memsuite.eval.benchmarks.meme.release.upstream_change` (from
``root_change``, else from the gold facts after the before-probe).

Evidence in a retrieved context, per task (before-questions: the expected value), following the
paper's authors' reading of "retrieved":

======  ===========================================================================================
ER      the verbatim value
Agg     every value
Tr      every value
Cas     the change event reached the context, and the new value (the applied fact or the rule that
        declares it)
Abs     the change event reached the context, and a sentence about the entity (or holding its old
        value) states its dependency (a dependency phrase, or it also names the upstream entity) or
        a doubt about it; the stated dependency alone is not enough
Del     the deletion request reached the context (even if the old value is also there), or there is
        no trace of the deleted value
======  ===========================================================================================

"The change event reached the context": the root's new value is there, or a sentence naming the root
(or holding its old or new value) states a change (not a rule or a hypothetical). Without a known
change only the second part is required.

The state in a memory snapshot (:func:`holds_state`) is stricter: Del needs the deleted value gone
(a memory that still holds it was not maintained, request or not), and Abs needs the old value kept
along with the stated dependency or doubt.
"""

from __future__ import annotations

from collections.abc import Sequence

from memsuite.eval.benchmarks.meme import phrases
from memsuite.eval.benchmarks.meme.matching import missing_values, value_present
from memsuite.eval.benchmarks.meme.release import UpstreamChange


def needed_values(
    task: str, phase: str, gold: str, values: Sequence[str], old_value: str | None
) -> list[str]:
    """The values a question needs, per the module's table (the old/deleted value for Abs and Del).

    ``old_value``: :func:`memsuite.eval.benchmarks.meme.release.old_value_of` (right for both layouts).
    """
    if phase == "before" or task in ("ER", "Cas"):
        return [str(gold)]
    if task in ("Abs", "Del"):
        old = old_value or next(iter(values or []), None)
        return [old] if old else []
    return [v for v in values if v] or [v.strip() for v in str(gold).split(",")]


def _change_parts(change: str | UpstreamChange | None, root_names: Sequence[str]) -> tuple[str | None, list]:
    """(new value, keys that name the root) of a change given as its new value or in full."""
    if change is None:
        return None, []
    if isinstance(change, str):
        return change or None, [*root_names]
    keys = [*root_names]
    if change.entity:
        keys.append(change.entity.replace("_", " "))
    if change.old:
        keys.append(change.old)
    return change.new or None, keys


def change_reached(context: str, change: str | UpstreamChange | None, root_names: Sequence[str] = ()) -> bool:
    """Whether the upstream change reached ``context``: its new value, or a change stated on the root.

    Args:
        context: The text.
        change: The root's new value, or the full
        :class:`~memsuite.eval.benchmarks.meme.release.UpstreamChange`
            (whose entity id and old value also scope the change phrases).
        root_names: Display names of the root entity.
    """
    new, keys = _change_parts(change, root_names)
    if new is None:
        return True
    return value_present(context, new) or phrases.change_stated(context, [*keys, new]) is not None


def _about(values: Sequence[str], names: Sequence[str]) -> list[str]:
    return [*names, *values[:1]]


def _stated_link(text: str, keys: Sequence[str], related: Sequence[str]) -> str | None:
    """A sentence stating the entity's dependency (or naming its upstream entity) or a doubt about it."""
    return phrases.dependency_stated(text, keys, related) or phrases.uncertainty_stated(text, keys)


def holds_state(
    text: str,
    *,
    task: str,
    phase: str,
    values: Sequence[str],
    names: Sequence[str] = (),
    upstream: Sequence[str] = (),
) -> tuple[bool, str]:
    """Whether a memory ``text`` holds the state the question needs, with a reason (strict for Del).

    ``upstream``: names (and values) of the root and of what the entity depends on, for a dependency
    stated by naming it.
    """
    if phase == "after" and task == "Del":
        leaked = [v for v in values if value_present(text, v)]
        return not leaked, f"deleted value still there: {leaked}" if leaked else "deleted value gone"
    missing = missing_values(text, values)
    if missing:
        return False, f"missing {missing}"
    if phase == "after" and task == "Abs" and _stated_link(text, _about(values, names), upstream) is None:
        return False, "old value without a stated dependency or uncertainty"
    return True, "holds the needed state"


def context_holds_evidence(
    context: str,
    *,
    task: str,
    phase: str,
    values: Sequence[str],
    names: Sequence[str] = (),
    change: str | UpstreamChange | None = None,
    root_names: Sequence[str] = (),
    upstream: Sequence[str] = (),
) -> tuple[bool, str]:
    """Whether a retrieved context holds what the question needs (the module's table), with a reason.

    Args:
        context: The context handed to the answer LLM.
        task: Short task code.
        phase: ``before`` or ``after``.
        values: The needed values (Abs/Del: the old / deleted value first).
        names: Display names of the question's entities.
        change: The upstream change (its new value, or in full); None when unknown.
        root_names: Display names of the root entity (scope the change phrases).
        upstream: Display names of what the entity depends on, directly or through others (a
            sentence naming the entity and one of them, or the root, states the dependency).
    """
    if phase == "before" or task in ("ER", "Agg", "Tr"):
        missing = missing_values(context, values)
        return not missing, f"missing {missing}" if missing else "all present"
    if task == "Del":
        if phrases.deletion_requested(context, _about(values, names)) is not None:
            return True, "deletion request retrieved"
        leaked = [v for v in values if value_present(context, v)]
        if leaked:
            return False, f"deleted value there without the deletion request: {leaked}"
        return True, "no trace of the deleted value"
    if task == "Cas":
        missing = missing_values(context, values)
        if missing:
            return False, f"missing {missing}"
    elif task == "Abs":
        new, root_keys = _change_parts(change, root_names)
        related = [*root_keys, *([new] if new else []), *upstream]
        if _stated_link(context, _about(values, names), related) is None:
            return False, "no stated dependency or uncertainty on the entity"
    else:
        raise ValueError(f"unknown MEME task {task!r}")
    if not change_reached(context, change, root_names):
        return False, "upstream change missing"
    return True, "change and " + ("new value" if task == "Cas" else "stated dependency") + " retrieved"
