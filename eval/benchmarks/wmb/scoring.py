"""WMB-100K scores: pure functions of rows (no system calls).

Sources (public repository wontopos/WMB-100K @ 436cba8): README.md (scoring, speed bands, grades,
quick/official modes), scripts/score.py (judge inputs, Part B over S1-S7, FM handling, p50/p95,
result JSON), src/types.rs (grade bands as code), scripts/adapter_template.py (S3 searches both
categories and merges without duplicates).

Scoring, as the reference does it:

- A situational question (S1..S7) is correct when the judge finds the required memories in the
  returned memories, joined with ``"\\n"`` and cut to 3,000 characters. Nothing returned is wrong
  without a judge call. The judge never sees ``gold_answer``.
- A FalseMemory probe is correct iff nothing was returned; each false positive costs 0.25.
- Speed penalty per question on its search latency in whole milliseconds (the reference stores
  ``int(seconds * 1000)``): > 300 ms -0.01, > 500 ms -0.05, > 1,000 ms -0.1; S3 questions time both
  searches together, as the reference adapters do. Every row counts, probes included.
- Part B = correct / total x 100 over Part B (non-``.DOC.``) questions. The README scores the S1
  questions only ("1,000 S1 questions x 0.1"); scripts/score.py counts S1-S7. Both are reported:
  ``part_b`` / ``total`` / ``grade`` are the S1 headline, ``part_b_s1_s7`` / ``total_s1_s7`` the
  script's. total = Part B - FM penalty - speed penalty, never clamped.
- p50 / p95 latency as the reference computes them: ``sorted[n // 2]`` and ``sorted[int(n * 0.95)]``.
- Grades (src/types.rs ``grade``, README table): >= 90 Exceptional, >= 80 Excellent, >= 70 Good,
  >= 60 Fair, >= 50 Below Average, else Failing (negative totals included).

The verdicts themselves (the coverage judge, the LLM judge hook, FalseMemory probes) are in
:mod:`.judges`.

Retrieval evidence (memsuite's own metric, independent of any judge): the share of questions with gold
turns for which a returned memory sits on a line that carries a gold turn id.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from memsuite.eval.analysis.metrics import verdict_of
from memsuite.eval.answer import failed
from memsuite.eval.benchmarks.wmb.judges import judge_coverage
from memsuite.eval.benchmarks.wmb.schema import FALSE_MEMORY, HEADLINE_QTYPE, PART_A_MARKER, QTYPES
from memsuite.eval.protocol import Row

WMB_VERSION = "v2.1"
#: Penalty per false positive on a FalseMemory probe.
FM_PENALTY = 0.25
#: (latency strictly above, in whole ms; penalty), slowest band first (README "Speed Penalty").
SPEED_BANDS: tuple[tuple[int, float], ...] = ((1000, 0.1), (500, 0.05), (300, 0.01))
#: (lowest total, grade), best first (src/types.rs ``grade``); below the last band: Failing.
GRADE_BANDS: tuple[tuple[float, str], ...] = (
    (90.0, "Exceptional"),
    (80.0, "Excellent"),
    (70.0, "Good"),
    (60.0, "Fair"),
    (50.0, "Below Average"),
)
FAILING = "Failing"


# -- penalties, grades, latency --------------------------------------------------------------------
def speed_penalty(latency_ms: float) -> float:
    """Penalty of one question's search latency (whole milliseconds, as the reference records it)."""
    whole_ms = int(latency_ms)
    for above_ms, penalty in SPEED_BANDS:
        if whole_ms > above_ms:
            return penalty
    return 0.0


def grade(total: float | None) -> str | None:
    """The grade band of a total (None for no total)."""
    if total is None:
        return None
    for lowest, name in GRADE_BANDS:
        if total >= lowest:
            return name
    return FAILING


def latency_percentiles(latencies_ms: Iterable[float]) -> tuple[int | None, int | None]:
    """(p50, p95) in whole ms as the reference takes them: ``sorted[n // 2]``, ``sorted[int(n * 0.95)]``."""
    ordered = sorted(int(ms) for ms in latencies_ms)
    if not ordered:
        return None, None
    return ordered[len(ordered) // 2], ordered[min(int(len(ordered) * 0.95), len(ordered) - 1)]


# -- rows ------------------------------------------------------------------------------------------
def _qtype(row: Row) -> str:
    return row.metadata.get("qtype", "")


def _is_part_a(row: Row) -> bool:
    return PART_A_MARKER in row.question_id


def _memories(row: Row) -> list[str]:
    return list(row.metadata.get("memories") or [])


def _latency(row: Row) -> float:
    return float(row.usage.get("latency_ms") or 0.0)


def kept_hits(
    hits: Sequence[Mapping[str, Any]], min_score: float | None, *, merge: bool = False
) -> list[Mapping[str, Any]]:
    """The hits a cutoff keeps, in order: those scoring at least ``min_score`` (all when None).

    Args:
        hits: Recorded hits (``{"text", "score", ...}``), in search order.
        min_score: The abstention cutoff, or None.
        merge: The hits come from several namespaces (S3): keep only the first of equal texts, as
            the reference adapters merge the two searches without duplicates. A single search's
            hits are kept as returned, as the reference does.

    The protocol applies the same function, so a row can be re-cut offline from its recorded hits.
    """
    kept, seen = [], set()
    for hit in hits:
        if min_score is not None and not hit["score"] >= min_score:
            continue
        if merge:
            if hit["text"] in seen:
                continue
            seen.add(hit["text"])
        kept.append(hit)
    return kept


def _merges(row: Row) -> bool:
    return len(row.metadata.get("namespaces") or ()) > 1


def _situational_verdict(row: Row, memories: Sequence[str]) -> dict[str, Any]:
    return judge_coverage(row.metadata.get("required_memories") or [], memories)


def _ratio(correct: int, total: int) -> float | None:
    return correct / total * 100 if total else None


def _minus(score: float | None, *penalties: float) -> float | None:
    return None if score is None else score - sum(penalties)


def row_outcome(row: Row, judge: str) -> float | None:
    """1.0 / 0.0 as :func:`wmb_scores` counts a row in its question type's accuracy, None when left out
    (a failed judge call). A FalseMemory probe passes when nothing was returned."""
    if _qtype(row) == FALSE_MEMORY:
        return 0.0 if _memories(row) else 1.0
    if failed(row, judge):
        return None
    return 1.0 if verdict_of(row, judge) else 0.0


def gold_turn_outcome(row: Row, judge: str) -> float | None:
    """1.0 / 0.0: whether a returned memory sits on a gold turn's line, as :func:`wmb_scores` counts a
    row in ``retrieval.rate_pct``; None for probes, rows without gold turn ids and failed judge calls."""
    if _qtype(row) == FALSE_MEMORY or failed(row, judge) or not row.metadata.get("gold_turn_ids"):
        return None
    return 1.0 if row.metadata.get("gold_turn_retrieved") else 0.0


def row_part(row: Row) -> tuple[str, ...]:
    """The Part B scores a row counts in: ``part_b`` (S1 only) and ``part_b_s1_s7``; none for Part A
    and probes."""
    if _is_part_a(row) or _qtype(row) == FALSE_MEMORY:
        return ()
    return ("part_b", "part_b_s1_s7") if _qtype(row) == HEADLINE_QTYPE else ("part_b_s1_s7",)


def wmb_scores(rows: Sequence[Row], judge: str = "rule") -> dict[str, Any]:
    """Every WMB-100K number of one system's rows, full precision.

    Args:
        rows: Rows of one system written by the WMB protocol.
        judge: Whose verdicts decide situational questions ("rule" or "llm").

    Returns:
        ``part_b`` (S1 headline) and ``part_b_s1_s7`` as ``{correct, total, score}`` (score in
        points of 100, None without questions); ``fm`` ``{probes, false_positives, penalty}``;
        ``speed`` ``{p50_ms, p95_ms, penalty, searches}``; ``total`` / ``grade`` (headline) and
        ``total_s1_s7`` / ``grade_s1_s7``; ``qtype_accuracy`` ``{qtype: {correct, total,
        accuracy_pct}}`` (probes: correct = nothing returned); ``retrieval`` ``{questions_with_gold,
        gold_turn_retrieved, rate_pct, gold_turn_in_hits, in_hits_rate_pct}``; ``part_a`` (None
        without ``.DOC.`` rows); ``judge_failures`` (situational rows that returned memories but
        carry no verdict of ``judge``, or a None one). A row whose judge call failed (its verdict
        carries ``failure``) is left out of ``correct``/``total`` and counted in ``n_failed`` beside
        them (in ``part_b``, ``part_b_s1_s7``, ``part_a`` and each ``qtype_accuracy`` entry); any
        other None verdict is scored as wrong, as the reference does.
    """
    by_type: dict[str, list[int]] = {qtype: [0, 0, 0] for qtype in QTYPES}
    s1, all_b, part_a = [0, 0, 0], [0, 0, 0], [0, 0, 0]  # correct, total, left out (failed call)
    probes = false_positives = failures = 0
    with_gold = retrieved = in_hits = 0
    for row in rows:
        qtype = _qtype(row)
        counts = by_type.setdefault(qtype, [0, 0, 0])
        if qtype != FALSE_MEMORY and failed(row, judge):
            failures += 1
            counts[2] += 1
            for tally, applies in (
                (part_a, _is_part_a(row)),
                (all_b, not _is_part_a(row)),
                (s1, not _is_part_a(row) and qtype == HEADLINE_QTYPE),
            ):
                tally[2] += applies
            continue
        counts[1] += 1
        if qtype == FALSE_MEMORY:
            probes += 1
            if _memories(row):
                false_positives += 1
            else:
                counts[0] += 1
            continue
        correct = bool(verdict_of(row, judge))
        if verdict_of(row, judge) is None and _memories(row):
            failures += 1
        counts[0] += correct
        if row.metadata.get("gold_turn_ids"):
            with_gold += 1
            retrieved += bool(row.metadata.get("gold_turn_retrieved"))
            in_hits += any(hit.get("gold") for hit in row.metadata.get("hits") or [])
        if _is_part_a(row):
            part_a[0] += correct
            part_a[1] += 1
            continue
        all_b[0] += correct
        all_b[1] += 1
        if qtype == HEADLINE_QTYPE:
            s1[0] += correct
            s1[1] += 1
    latencies = [_latency(row) for row in rows]
    p50, p95 = latency_percentiles(latencies)
    speed = sum(speed_penalty(ms) for ms in latencies)
    fm = false_positives * FM_PENALTY
    part_b = _ratio(*s1[:2])
    part_b_all = _ratio(*all_b[:2])
    total, total_all = _minus(part_b, fm, speed), _minus(part_b_all, fm, speed)
    return {
        "judge": judge,
        "part_b": {"correct": s1[0], "total": s1[1], "score": part_b, "n_failed": s1[2]},
        "part_b_s1_s7": {"correct": all_b[0], "total": all_b[1], "score": part_b_all, "n_failed": all_b[2]},
        "fm": {"probes": probes, "false_positives": false_positives, "penalty": fm},
        "speed": {"p50_ms": p50, "p95_ms": p95, "penalty": speed, "searches": len(latencies)},
        "total": total,
        "grade": grade(total),
        "total_s1_s7": total_all,
        "grade_s1_s7": grade(total_all),
        "qtype_accuracy": {
            qtype: {"correct": c, "total": n, "accuracy_pct": _ratio(c, n), "n_failed": f}
            for qtype, (c, n, f) in by_type.items()
            if n or f or qtype in QTYPES
        },
        "retrieval": {
            "questions_with_gold": with_gold,
            "gold_turn_retrieved": retrieved,
            "rate_pct": _ratio(retrieved, with_gold),
            "gold_turn_in_hits": in_hits,
            "in_hits_rate_pct": _ratio(in_hits, with_gold),
        },
        "part_a": (
            {"correct": part_a[0], "total": part_a[1], "score": _ratio(*part_a[:2]), "n_failed": part_a[2]}
            if part_a[1] or part_a[2]
            else None
        ),
        "judge_failures": failures,
    }


def result_json(
    rows: Sequence[Row],
    *,
    system_name: str | None = None,
    judge: str = "rule",
    official: bool = False,
    judges_used: Sequence[str] = (),
) -> dict[str, Any]:
    """The reference result file (scripts/score.py ``result``): same fields, rounding and counting.

    Its Part B and total count S1-S7 as the script does; :func:`wmb_scores` has the S1 headline.

    Args:
        rows: Rows of one system.
        system_name: ``system_name`` field; default the rows' system.
        judge: Whose verdicts to score.
        official: LLM judge in official mode (labels ``scoring_mode``).
        judges_used: Judge model names for ``judges_used`` (default: the coverage rule's name).
    """
    scores = wmb_scores(rows, judge)
    if judge == "rule":
        mode = "memsuite coverage rule (deterministic; not an official WMB-100K mode)"
        used = list(judges_used) or ["memsuite-coverage-rule"]
    else:
        mode = "Official (3-LLM majority)" if official else "Quick (1 LLM judge)"
        used = list(judges_used)
    part_a = scores["part_a"] or {"correct": 0, "total": 0, "score": None}
    part_b = scores["part_b_s1_s7"]
    penalties = scores["fm"]["penalty"] + scores["speed"]["penalty"]
    # The script divides by max(total, 1): no questions gives Part B 0.0 (not None) and total -penalties.
    total = scores["total_s1_s7"] if part_b["total"] else -penalties
    return {
        "system_name": system_name or (rows[0].system if rows else ""),
        "wmb_version": WMB_VERSION,
        "scoring_mode": mode,
        "judges_used": used,
        "part_a": {
            "correct": part_a["correct"],
            "total": part_a["total"],
            "score": round(part_a["score"], 1) if part_a["score"] is not None else None,
            "note": "optional, not in main score",
        },
        "part_b": {
            "correct": part_b["correct"],
            "total": part_b["total"],
            "score": round(part_b["score"] or 0.0, 1),
        },
        "fm": {
            "probes": scores["fm"]["probes"],
            "false_positives": scores["fm"]["false_positives"],
            "penalty": round(scores["fm"]["penalty"], 1),
        },
        "speed": {
            "p50_ms": scores["speed"]["p50_ms"] or 0,
            "p95_ms": scores["speed"]["p95_ms"] or 0,
            "penalty": round(scores["speed"]["penalty"], 1),
        },
        "total": round(total, 1),
        "s_accuracy": {
            qtype: {
                "correct": scores["qtype_accuracy"][qtype]["correct"],
                "total": scores["qtype_accuracy"][qtype]["total"],
            }
            for qtype in QTYPES
        },
    }
