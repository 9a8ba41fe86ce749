"""Each benchmark's questions as rejudging needs them, and the matching of stored answers to them.

A benchmark that can be rejudged names a function ``questions(data_path) -> list[RejudgeQuestion]`` in
its definition (``BenchmarkDefinition.rejudge``; :class:`~memsuite.eval.hooks.RejudgeQuestion`).

Matching (:func:`match_answers`): an answer with an id matches the question of that id (within its
unit when the format gives one, by id or by position), and when it also states the question's text,
that text must be the question's (folded), or the answer is refused. An answer without one matches
by question text (folded: case, quotes, spaces) and category; where the same text and category occur
more than once, the answer's conversation (``unit_index``) narrows the candidates, and the answers of
one conversation that share a text take its questions of that text in order. An answer that matches
no question, or more than one, is an error; every such answer is listed at once, before any judging.
"""

from __future__ import annotations

from collections import defaultdict

from memsuite.eval.answer_rules.lists import fold
from memsuite.eval.hooks import RejudgeQuestion, SourceAnswer
from memsuite.memory_systems.errors import DatasetError


def _key(text: str | None, category: str | None) -> tuple[str, str]:
    return fold(text or ""), str(category or "")


def match_answers(
    answers: list[SourceAnswer], questions: list[RejudgeQuestion]
) -> list[tuple[SourceAnswer, RejudgeQuestion]]:
    """Each answer with its question (module docstring).

    Raises:
        DatasetError: Listing every answer that matches no question or is ambiguous, and every question
            answered twice.
    """
    by_id: dict[str, list[RejudgeQuestion]] = defaultdict(list)
    by_unit_id: dict[tuple[str, str], RejudgeQuestion] = {}
    by_text: dict[tuple[str, str], list[RejudgeQuestion]] = defaultdict(list)
    for question in questions:
        by_id[question.question_id].append(question)
        by_unit_id[(question.unit_id, question.question_id)] = question
        by_text[_key(question.question, question.category)].append(question)
    taken: dict[tuple[tuple[str, str], int | None], int] = defaultdict(int)
    problems: list[str] = []
    matched: list[tuple[SourceAnswer, RejudgeQuestion]] = []
    for answer in answers:
        if answer.question_id is not None:
            if answer.unit_id is not None:
                found = by_unit_id.get((answer.unit_id, answer.question_id))
                candidates = [found] if found is not None else []
            else:
                candidates = by_id.get(answer.question_id, [])
                if answer.unit_index is not None:
                    candidates = [q for q in candidates if q.unit_index == answer.unit_index]
            if len(candidates) != 1:
                what = "no question has" if not candidates else "several questions have"
                unit = f" in unit {answer.unit_index}" if answer.unit_index is not None else ""
                problems.append(f"{answer.where}: {what} id {answer.question_id!r}{unit}")
                continue
            asked = candidates[0].question
            if answer.row is None and answer.question is not None and fold(answer.question) != fold(asked):
                problems.append(
                    f"{answer.where}: id {answer.question_id!r} is the question {asked!r}, "
                    f"not {answer.question!r}"
                )
                continue
            matched.append((answer, candidates[0]))
            continue
        key = _key(answer.question, answer.category)
        candidates = by_text.get(key, [])
        if answer.unit_index is not None and len(candidates) > 1:
            candidates = [q for q in candidates if q.unit_index == answer.unit_index] or candidates
        units = {q.unit_id for q in candidates}
        if len(units) > 1:
            problems.append(
                f"{answer.where}: ambiguous: {answer.question!r} (category {answer.category}) is asked in "
                f"{', '.join(sorted(units))}"
            )
            continue
        slot = (key, answer.unit_index)
        if taken[slot] >= len(candidates):
            what = "no question" if not candidates else "more answers than questions"
            text = f"text {answer.question!r} and category {answer.category}"
            problems.append(f"{answer.where}: {what} with {text}")
            continue
        matched.append((answer, candidates[taken[slot]]))
        taken[slot] += 1
    seen: dict[tuple[str, str], str] = {}
    for answer, question in matched:
        ident = (question.unit_id, question.question_id)
        if ident in seen and answer.row is None:
            problems.append(f"{answer.where}: answers {ident[0]}/{ident[1]} again (first at {seen[ident]})")
        seen.setdefault(ident, answer.where)
    if problems:
        shown = "\n  ".join(problems[:30])
        more = f"\n  ... and {len(problems) - 30} more" if len(problems) > 30 else ""
        raise DatasetError(f"{len(problems)} answers cannot be matched to a question:\n  {shown}{more}")
    return matched
