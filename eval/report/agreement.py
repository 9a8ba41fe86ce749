"""The judge-agreement section of a report: how much a run's numbers depend on its judge.

Rendered for every run whose rows carry two or more verdict sources on answers: the answer judges of
the run (those registered as judging the answer; retrieval verdicts are not compared) and, for a
rejudged published file, the published verdict (``metadata.published_verdict``, shown as
``published``). Every pair of sources is compared on the rows where both decided:

- ``judge_accuracy``: each source's accuracy, with its undecided and failed counts; an LLM judge run
  ``--judge-repeats`` times adds the mean and standard deviation of its accuracy over the repeats and
  its self-agreement (the mean agreement of every two repeats);
- ``judge_agreement``: per pair, both accuracies on the shared rows, agreement, Cohen's kappa and the
  confusion counts;
- ``judge_agreement_by_group``: the same per category (LoCoMo) or question type (LongMemEval, with
  abstention apart), and per answer length (short: at most :data:`SHORT_ANSWER_WORDS` words);
- ``judge_disagreements`` (CSV only): every row where two sources disagree: question, gold, an answer
  excerpt and both verdicts.

An undecided verdict (``correct: None``) or a failed one leaves its row out of the pair and is counted
in ``excluded``: never silently true or false; ``floor`` is the agreement with every excluded row
counted as a disagreement.

A published file that keeps every call of its judge (``metadata.published_judgments``; the verdict is
their majority) gives ``published`` the same repeats columns: its self-agreement is the published
judge's own noise floor.

Rows declared wrong by construction (``metadata.known_wrong``: ``memsuite rejudge --known-wrong``) add
``judge_leniency``: per source, overall and per category or type, the share of those answers it accepts
(leniency; a strict judge is near 0), with its bootstrap interval resampling units (conversations) and
its undecided and failed counts apart. Leniency counts an undecided verdict as not accepted, and leaves
failed calls out; it is rendered even with one source.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations
from statistics import mean, pstdev
from typing import Any

from memsuite.eval.analysis.metrics import agreement
from memsuite.eval.protocol import Judge, Row
from memsuite.eval.report.intervals import cell_intervals, interval_note, placed
from memsuite.eval.report.model import Section, Table
from memsuite.eval.run.folder import RunFolder

PUBLISHED = "published"
#: Answers of at most this many words are "short"; longer ones are mostly explanations or reasoning.
SHORT_ANSWER_WORDS = 25
_EXCERPT = 200


def _answer_judges(judges: Mapping[str, Judge], rows: Sequence[Row]) -> list[str]:
    names: list[str] = []
    for row in rows:
        for name, verdict in row.verdicts.items():
            if name in names:
                continue
            if not isinstance(verdict, dict) or not isinstance(verdict.get("correct"), bool):
                continue
            # A judge of retrieval is no answer source; a name the benchmark does not define (a
            # protocol label) is compared.
            if name in judges and not judges[name].needs_answer:
                continue
            names.append(name)
    return names


def sources(judges: Mapping[str, Judge], rows: Sequence[Row]) -> list[str]:
    """The verdict sources of a set of rows: its answer judges (``judges``: the benchmark's, by name),
    then ``published`` when present."""
    found = _answer_judges(judges, rows)
    if any(isinstance(row.metadata.get("published_verdict"), bool) for row in rows):
        found.append(PUBLISHED)
    return found


def value(row: Row, source: str) -> bool | None:
    """One source's verdict on a row; None when undecided, failed or absent."""
    if source == PUBLISHED:
        found = row.metadata.get("published_verdict")
        return found if isinstance(found, bool) else None
    verdict = row.verdicts.get(source)
    if not isinstance(verdict, dict) or verdict.get("failure"):
        return None
    correct = verdict.get("correct")
    return correct if isinstance(correct, bool) else None


def group_of(row: Row) -> str:
    """The row's category (LoCoMo) or question type (LongMemEval; abstention apart), else "all"."""
    meta = row.metadata
    if meta.get("abstention"):
        return "abstention"
    return str(meta.get("category_name") or meta.get("question_type") or meta.get("category") or "all")


def length_of(row: Row) -> str:
    return "short answer" if len((row.answer or "").split()) <= SHORT_ANSWER_WORDS else "long answer"


def _pair(rows: Sequence[Row], a: str, b: str) -> dict[str, Any]:
    pairs, excluded = [], 0
    for row in rows:
        x, y = value(row, a), value(row, b)
        if x is None or y is None:
            excluded += 1
        else:
            pairs.append((x, y))
    found = agreement(pairs)
    n = found["n"]
    agreed = found["both_true"] + found["both_false"]
    return {
        **found,
        "excluded": excluded,
        "floor": agreed / (n + excluded) if n + excluded else None,
        "accuracy_a": (found["both_true"] + found["a_only_true"]) / n if n else None,
        "accuracy_b": (found["both_true"] + found["b_only_true"]) / n if n else None,
    }


def _accuracy(rows: Sequence[Row], source: str) -> dict[str, Any]:
    decided = [v for row in rows if (v := value(row, source)) is not None]
    verdicts = [row.verdicts.get(source) for row in rows]
    failed = sum(1 for v in verdicts if isinstance(v, dict) and v.get("failure"))
    record: dict[str, Any] = {
        "judge": source,
        "n": len(decided),
        "accuracy": sum(decided) / len(decided) if decided else None,
        "undecided": len(rows) - len(decided) - failed,
        "failed": failed,
    }
    if source == PUBLISHED:
        kept = [row.metadata.get("published_judgments") for row in rows]
        repeats = [r for r in kept if isinstance(r, list) and r]
    else:
        repeats = [
            v["repeats"] for v in verdicts if isinstance(v, dict) and isinstance(v.get("repeats"), list)
        ]
    if repeats:
        width = min(len(r) for r in repeats)
        per_repeat = []
        for i in range(width):
            column = [r[i] for r in repeats if isinstance(r[i], bool)]
            if column:
                per_repeat.append(sum(column) / len(column))
        self_agreement = [
            agreement([(r[i], r[j]) for r in repeats if isinstance(r[i], bool) and isinstance(r[j], bool)])[
                "agreement"
            ]
            for i, j in combinations(range(width), 2)
        ]
        self_agreement = [s for s in self_agreement if s is not None]
        record.update(
            repeats=width,
            accuracy_mean=mean(per_repeat) if per_repeat else None,
            accuracy_std=pstdev(per_repeat) if len(per_repeat) > 1 else None,
            self_agreement=mean(self_agreement) if self_agreement else None,
        )
    return record


def _excerpt(text: str | None) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= _EXCERPT else text[: _EXCERPT - 3] + "..."


_PAIR_COLUMNS = (
    "judge_a",
    "judge_b",
    "n",
    "excluded",
    "accuracy_a",
    "accuracy_b",
    "agreement",
    "kappa",
    "floor",
    "both_true",
    "a_only_true",
    "b_only_true",
    "both_false",
)


_ACCURACY_COLUMNS = (
    "run",
    "system",
    "judge",
    "n",
    "accuracy",
    "undecided",
    "failed",
    "repeats",
    "accuracy_mean",
    "accuracy_std",
    "self_agreement",
)
_DISAGREEMENT_COLUMNS = (
    "run",
    "system",
    "judge_a",
    "judge_b",
    "unit_id",
    "question_id",
    "group",
    "question",
    "gold",
    "answer_excerpt",
    "verdict_a",
    "verdict_b",
)


def _leniency_value(row: Row, source: str) -> float | None:
    """1.0 when ``source`` accepts a known-wrong row, 0.0 when it rejects it or is undecided; None when
    its call failed or it did not judge the row."""
    if source == PUBLISHED:
        if "published_verdict" not in row.metadata:
            return None
        return 1.0 if row.metadata.get("published_verdict") is True else 0.0
    verdict = row.verdicts.get(source)
    if not isinstance(verdict, dict) or verdict.get("failure"):
        return None
    return 1.0 if verdict.get("correct") is True else 0.0


def leniency(rows: Sequence[Row], source: str) -> list[dict[str, Any]]:
    """``source``'s leniency on the known-wrong ``rows``: one record for all of them, then one per
    category or type (module docstring), with the interval of each under ``intervals``."""
    wrong = [row for row in rows if row.metadata.get("known_wrong")]
    found = cell_intervals(
        wrong,
        lambda row: _leniency_value(row, source),
        lambda row: ("all", group_of(row)),
        unit=lambda row: row.unit_id,
    )
    records = []
    for group in dict.fromkeys(["all", *(group_of(row) for row in wrong)]):
        members = wrong if group == "all" else [row for row in wrong if group_of(row) == group]
        values = [_leniency_value(row, source) for row in members]
        judged = [v for v in values if v is not None]
        undecided = sum(
            1 for row in members if _leniency_value(row, source) is not None and value(row, source) is None
        )
        interval = found.get(group)
        records.append(
            {
                "judge": source,
                "group": group,
                "n": len(judged),
                "accepted": int(sum(judged)),
                "leniency": interval.value if interval is not None else None,
                "undecided": undecided,
                "failed": len(values) - len(judged),
                "intervals": {"leniency": interval} if interval is not None else {},
            }
        )
    return records


_LENIENCY_COLUMNS = ("run", "system", "judge", "group", "n", "accepted", "leniency", "undecided", "failed")


def _leniency_table(records: list[dict[str, Any]]) -> Table:
    intervals = {}
    for index, record in enumerate(records):
        intervals.update(placed(record["intervals"], index, record))
    return Table.from_records(
        "judge_leniency",
        "Leniency on answers wrong by construction",
        _LENIENCY_COLUMNS,
        records,
        (
            "Every answer here is wrong by construction (rejudge --known-wrong): leniency = the share the "
            "judge accepts (0 is a strict judge). An undecided verdict counts as not accepted and is also "
            "counted in 'undecided'; failed calls are left out (n = answers judged).",
            interval_note("unit", "answers"),
        ),
        {"leniency": ".3f"},
        intervals=intervals,
    )


def render_agreement(runs: Sequence[RunFolder], judges: Mapping[str, Mapping[str, Judge]]) -> Section | None:
    """The agreement section over ``runs`` (module docstring), or None when no run has two sources and
    none holds known-wrong answers. ``judges``: each benchmark's judges (its definition's), by name."""
    accuracy, pairs, groups, disagreements, lenient = [], [], [], [], []
    for run in runs:
        for system in run.systems:
            rows = run.rows(system)
            found = sources(judges.get(run.benchmark, {}), rows)
            cell = {"run": run.name, "system": system}
            if any(row.metadata.get("known_wrong") for row in rows):
                lenient += [{**cell, **record} for s in found for record in leniency(rows, s)]
            if len(found) < 2:
                continue
            accuracy += [{**cell, **_accuracy(rows, s)} for s in found]
            for a, b in combinations(found, 2):
                pairs.append({**cell, "judge_a": a, "judge_b": b, **_pair(rows, a, b)})
                split: dict[str, list[Row]] = {}
                for row in rows:
                    split.setdefault(group_of(row), []).append(row)
                for row in rows:  # lengths after the categories
                    split.setdefault(length_of(row), []).append(row)
                for group, members in split.items():
                    found_pair = _pair(members, a, b)
                    groups.append({**cell, "group": group, "judge_a": a, "judge_b": b, **found_pair})
                for row in rows:
                    x, y = value(row, a), value(row, b)
                    if x is not None and y is not None and x != y:
                        disagreements.append(
                            {
                                **cell,
                                "judge_a": a,
                                "judge_b": b,
                                "unit_id": row.unit_id,
                                "question_id": row.question_id,
                                "group": group_of(row),
                                "question": row.question,
                                "gold": str(row.gold),
                                "answer_excerpt": _excerpt(row.answer),
                                "verdict_a": x,
                                "verdict_b": y,
                            }
                        )
    if not pairs:
        return Section("Judge agreement", [_leniency_table(lenient)]) if lenient else None
    exclusion = (
        "excluded: rows where either source is undecided, failed or absent (never counted as true or false)."
    )
    rates = {name: ".3f" for name in ("accuracy", "accuracy_a", "accuracy_b", "agreement", "kappa", "floor")}
    rates.update(accuracy_mean=".3f", accuracy_std=".3f", self_agreement=".3f")
    tables = [
        Table.from_records(
            "judge_accuracy",
            "Accuracy per judge",
            _ACCURACY_COLUMNS,
            accuracy,
            (
                "n = rows the judge decided; undecided and failed rows are counted apart. published = the "
                "verdict the answer file carries from its official judge.",
                "repeats: LLM judge calls per answer (--judge-repeats); accuracy_mean/std over the repeats, "
                "self_agreement = mean agreement of every two repeats.",
            ),
            rates,
        ),
        Table.from_records(
            "judge_agreement",
            "Agreement between judges",
            ("run", "system", *_PAIR_COLUMNS),
            pairs,
            (
                "On the rows both decided: accuracy of each, agreement, Cohen's kappa, and the confusion "
                "counts (a_only_true: judge_a says correct, judge_b wrong); floor = agreement with every "
                "excluded row counted as a disagreement.",
                exclusion,
            ),
            rates,
        ),
        Table.from_records(
            "judge_agreement_by_group",
            "Agreement between judges per category or type and per answer length",
            ("run", "system", "group", *_PAIR_COLUMNS),
            groups,
            (f"short answer: at most {SHORT_ANSWER_WORDS} words.", exclusion),
            rates,
        ),
        Table(
            "judge_disagreements",
            "Disagreements between judges",
            _DISAGREEMENT_COLUMNS,
            tuple(tuple(record[c] for c in _DISAGREEMENT_COLUMNS) for record in disagreements),
            (f"{len(disagreements)} rows; written to judge_disagreements.csv only.",),
            csv_only=True,
        ),
    ]
    if lenient:
        tables.insert(2, _leniency_table(lenient))
    return Section("Judge agreement", tables)
