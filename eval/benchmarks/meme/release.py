"""Facts of a MEME episode that hold for released files as well as for memsuite's generator.

Released episodes differ from generated ones in ways that matter to the judges:

- ``root_change`` may be absent. The upstream change then shows only as a gold fact, in an evidence
  session after the before-probe (after ``before_questions.position_after_session``), on the root
  entity, with its new value. :func:`upstream_change` derives it from there.
- A Cascade after-question's ``entity_values`` holds the *new* value (memsuite writes ``[old, new]``),
  so "the first value" is not the old one. The old value is the before-question's answer on the same
  entity, or the entity's earlier gold fact (:func:`old_value_of`).
- Absence and Deletion ``entity_values`` hold the old / deleted value in both layouts.

What the public release looks like (dataset card and viewer of
https://huggingface.co/datasets/meme-benchmark/MEME, code at https://github.com/wagmi97/MEME):
three JSON files, one flat array of episodes each -- ``filler32k`` (the default, 100 episodes),
``filler128k`` (a 40-episode subset) and ``nofiller`` (evidence sessions only); 50 ``personal_life``
and 50 ``software_project`` episodes with ids ``pl_NNN`` / ``sw_NNN``. Top level: ``root`` (an entity
id), ``root_change`` ``{before, after}`` (present in the viewer's rows), ``chain_entities`` (root
first), ``filler_entities``, ``entities`` (id -> ``{before, after, task}``, the task as one capital
letter), ``has_2hop``, ``dependency_edges_used`` (``{source, target, hop, pattern}``, the pattern a named
kind of link), ``tasks`` (``type`` as a short code, ``target_entities``,
``entity_values`` keyed by entity id), six session and token counts, ``evidence_session_indices``,
``sessions`` (filler ids are borrowed-corpus ids such as ``sharegpt_<n>``; ``type`` filler or
evidence; ``conversation`` of role/content turns) and both question sets (``timestamp`` in the
sessions' ``YYYY/MM/DD (Dow) HH:MM`` form, ``position_after_session``, questions with a short
``task_type`` and ``entity``). ``entity_values`` mixes strings and lists by task, which is why the
card loads the JSON directly rather than through ``datasets``. Rules are worded as conditional
instructions on the entities' plain names ("if <source> changes, switch <target> to <value>"), not
as "depends on ... will be"; values are invented names. Not visible on those pages, so never relied
on here: the wording of gold facts' ``notes``, whether a deletion fact carries the deleted value,
and whether the Abs gold names the source by id or by plain name.
"""

from __future__ import annotations

from typing import NamedTuple

from memsuite.eval.benchmarks.meme.matching import normalize
from memsuite.eval.benchmarks.meme.schema import DELETION_GOLD, Episode, GoldFact, Question


class UpstreamChange(NamedTuple):
    """The root's change: which entity, its value before and after (old is None when unknown)."""

    entity: str | None
    old: str | None
    new: str


def _same(a: str | None, b: str | None) -> bool:
    return a is not None and b is not None and normalize(a) == normalize(b)


def _facts(episode: Episode, sessions: range) -> list[GoldFact]:
    return [f for i in sessions for f in episode.sessions[i].gold_facts or () if f.value]


def root_entity(episode: Episode) -> str | None:
    """The root's id: the ``root`` key, else the one source of ``dependency_edges_used`` that is no
    edge's target, else the first of ``chain_entities``, else None."""
    if episode.root:
        return episode.root
    edges = episode.dependency_edges_used or ()
    targets = {e.target for e in edges}
    sources = list(dict.fromkeys(e.source for e in edges if e.source not in targets))
    if len(sources) == 1:
        return sources[0]
    return episode.chain_entities[0] if episode.chain_entities else None


def _earlier_value(episode: Episode, entity: str, before_index: int, new: str) -> str | None:
    """The entity's last gold value before session ``before_index`` that differs from ``new``."""
    old = None
    for fact in _facts(episode, range(before_index)):
        if fact.entity == entity and not _same(fact.value, new):
            old = fact.value
    return old


def upstream_change(episode: Episode) -> UpstreamChange | None:
    """The root's change: from ``root_change`` when present, else from the gold facts.

    Without ``root_change``, the change is the first gold fact after the before-probe on the root
    (:func:`root_entity`) whose value differs from one the root had earlier; without a known root,
    the first fact after the probe that changes a value its entity had earlier. The old value is the
    entity's last earlier gold value (``root_change.before`` when recorded).

    Returns:
        ``(entity, old, new)``, or None when the episode shows no change.
    """
    root = root_entity(episode)
    recorded = episode.root_change or {}
    after, before = recorded.get("after"), recorded.get("before")
    if isinstance(after, str) and after:
        old = before if isinstance(before, str) and before else None
        return UpstreamChange(root, old, after)
    probe = episode.before_questions.position_after_session
    for index in range(probe + 1, len(episode.sessions)):
        for fact in episode.sessions[index].gold_facts or ():
            if not fact.value or (root is not None and fact.entity != root):
                continue
            old = _earlier_value(episode, fact.entity, index, fact.value)
            if old is not None:
                return UpstreamChange(fact.entity, old, fact.value)
    return None


def _before_answer(episode: Episode, question: Question) -> str | None:
    """The gold answer of the before-question on the same entities and task (else any task)."""
    same = [q for q in episode.before_questions.questions if q.entities == question.entities]
    for q in sorted(same, key=lambda q: q.task != question.task):
        if q.gold and q.gold != DELETION_GOLD:
            return q.gold
    return None


def old_value_of(episode: Episode, question: Question) -> str | None:
    """The value before the change (Cas, Abs) or the deleted value (Del); None for other tasks.

    Cas: the first of the question's values that is not its gold (memsuite's ``[old, new]``); else,
    for a released question whose values hold only the new value, the before-question's answer on
    the same entity, else the entity's last gold value before the after-questions' session that
    differs from the new one, else ``entities[<id>]["before"]``. Abs and Del: the first value (both
    layouts), else the Abs gold's ``previously '<old>'``. A before-question (this very object in
    ``episode.before_questions``) keeps :attr:`Question.old_value`.
    """
    if question.task not in ("Cas", "Abs", "Del"):
        return None
    before_phase = any(q is question for q in episode.before_questions.questions)
    if question.task != "Cas" or before_phase:
        return question.old_value  # before the change the expected value is the current one
    earlier = [v for v in question.values if not _same(v, question.gold)]
    if earlier:
        return earlier[0]
    answer = _before_answer(episode, question)
    if answer is not None and not _same(answer, question.gold):
        return answer
    end = episode.after_questions.position_after_session + 1
    for entity in question.entities:
        old = _earlier_value(episode, entity, end, question.gold)
        if old is not None:
            return old
        meta = (episode.entities or {}).get(entity)
        before = meta.get("before") if isinstance(meta, dict) else None
        if isinstance(before, str) and before and not _same(before, question.gold):
            return before
    return None
