"""Per system, the share of gold facts stored, maintained and retrieved, and its evidence rate, read from
the generated report of an oracle-libraries run (MEME or DynamicMem) -- the figures of docs/llm-endpoints.md.

The report's failure-stage table gives each question's (MEME after-question, DynamicMem state key)
first failing stage per task or category; the cumulative shares follow from it over all of a system's
questions: stored = no failure at encoded, maintained = none at encoded or maintained, retrieved =
none up to retrieval (what an answer model could then read). The evidence rate: MEME's evidence judge,
Overall (``meme_main_evidence``); DynamicMem's Evidence F1 of the retrieved events over checkpoints
(``dynamicmem_checkpoints``, mean), defined only for memories that keep event ids (bm25): an LLM memory
stores extracted text (a dash), so its retrieved share is its evidence.

With ``--run`` (the run folder the report was made from), a second table gives what a session costs
each system, counted at the oracle endpoint, which sees every call of every library whatever client it
calls through: LLM calls and tokens per ingested session (the calls its ``ingest_session`` made:
phase ``ingest``), and its own time per session, the adapter's ingest wall time less the time the
endpoint spent answering those calls (calls answered at once counted once). MEME only: a MEME row
records how many sessions were ingested before it was asked (``snapshot_index + 1``).

    .venv/bin/python perf/oracle_ceilings_table.py results/oracle_libraries \
        --run runs/results_oracle/oracle_libraries
    .venv/bin/python perf/oracle_ceilings_table.py results/oracle_libraries_dynamicmem
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections import defaultdict
from pathlib import Path

STAGES = ("encoded", "maintained", "retrieved")
#: Why the stage columns and the evidence column are not the same measure, printed above the table.
STAGES_AND_EVIDENCE = {
    "meme": (
        "The stage columns and the evidence column measure different things and are not comparable: a "
        "stage share is cumulative over every after-question (its gold fact was stored, still current, "
        "then in the retrieved context), while evidence is the mean of the six task rates after the "
        "trivial-pass filter, and a Del question passes evidence when the forget request itself is in "
        "context, though the stages count its fact as not maintained."
    ),
    "dynamicmem": (
        "The stage columns read each state key's current value in the memory and in the retrieved "
        "context (the rule judge); Evidence F1 compares the retrieved events' ids with the gold events', "
        "so it is defined only for a memory that keeps event ids (bm25) and is not a stage share."
    ),
}
#: z of a two-sided 95 % interval.
_Z = 1.959964


def wilson(passed: float, n: float) -> tuple[float, float] | None:
    """The 95 % Wilson score interval of ``passed`` out of ``n`` (None when ``n`` is 0). Questions of
    one episode share a memory, so this interval, which treats them as independent, is a lower bound
    on the spread; the evidence column's interval is the report's cluster bootstrap over units."""
    if not n:
        return None
    p = passed / n
    centre = (p + _Z * _Z / (2 * n)) / (1 + _Z * _Z / n)
    half = _Z * ((p * (1 - p) / n + _Z * _Z / (4 * n * n)) ** 0.5) / (1 + _Z * _Z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def _name(system: str) -> str:
    """A system's label without the report's ``(oracle ceiling (...))`` mark (the table's title says it)."""
    return system.split(" (oracle ceiling")[0]


def _num(text: str | None) -> float | None:
    return float(text) if text not in (None, "") else None


def _swept(rows: list[dict[str, str]]) -> str | None:
    """The swept key of an ablation report's CSV (its first column, before ``system``), else None."""
    first = next(iter(rows[0]), "system") if rows else "system"
    return None if first == "system" else first


def _key(row: dict[str, str], swept: str | None) -> tuple[str, str]:
    """(the variant's swept value, or "" in a single run's report; the system's name)."""
    return (row[swept] if swept else "", _name(row["system"]))


def ceilings(report: Path) -> tuple[str, str | None, list[dict[str, object]]]:
    """(benchmark, the swept key of an ablation report or None, one record per system and variant:
    questions, stored, maintained, retrieved, evidence, and the mean context tokens per question)."""
    benchmark = "meme" if (report / "meme_failure_stages.csv").exists() else "dynamicmem"
    stage_rows = _rows(report / f"{benchmark}_failure_stages.csv")
    swept = _swept(stage_rows)
    failed: dict[tuple[str, str], dict[str, float]] = defaultdict(lambda: dict.fromkeys((*STAGES, "n"), 0.0))
    for row in stage_rows:
        tally, n = failed[_key(row, swept)], float(row["n"])
        tally["n"] += n
        for stage in STAGES:
            tally[stage] += round(float(row[stage]) * n)  # shares of n questions: whole counts
    usage = _rows(report / f"{benchmark}_usage.csv")
    context = {_key(r, swept): _num(r.get("context tokens mean")) for r in usage}
    intervals: dict[tuple[str, str], tuple[float, float] | None] = {}
    if benchmark == "meme":
        evidence_rows = _rows(report / "meme_main_evidence.csv")
        evidence = {_key(r, swept): _num(r["Overall"]) for r in evidence_rows}
        for r in evidence_rows:
            lo, hi = _num(r.get("Overall lo")), _num(r.get("Overall hi"))
            intervals[_key(r, swept)] = None if lo is None or hi is None else (lo, hi)
    else:
        # A memory that made LLM calls stores extracted text, no event ids: its F1 is 0 by construction.
        extracted = {_key(r, swept) for r in usage if _num(r["llm_calls"])}
        evidence = {
            _key(r, swept): _num(r["mean"])
            for r in _rows(report / "dynamicmem_checkpoints.csv")
            if r["metric"].startswith("Evidence F1") and _key(r, swept) not in extracted
        }
    records = []
    for key, tally in failed.items():
        n, left = tally["n"], tally["n"]
        shares: dict[str, object] = {}
        for stage, label in zip(STAGES, ("stored", "maintained", "retrieved"), strict=True):
            left -= tally[stage]
            shares[label] = left / n if n else None
            shares[f"{label} interval"] = wilson(left, n)
        records.append(
            {
                "variant": key[0],
                "system": key[1],
                "questions": int(n),
                "context tokens": context.get(key),
                **shares,
                "evidence": evidence.get(key),
                "evidence interval": intervals.get(key),
            }
        )
    if swept:  # each system's variants together, in the sweep's order
        order = {system: i for i, system in enumerate(dict.fromkeys(r["system"] for r in records))}
        records.sort(key=lambda r: order[r["system"]])
    return benchmark, swept, records


def markdown(benchmark: str, records: list[dict[str, object]], swept: str | None = None) -> str:
    unit = "after-questions" if benchmark == "meme" else "state keys"
    evidence = "evidence (Overall)" if benchmark == "meme" else "Evidence F1 (retrieved events)"
    lead = f"| system | {swept} " if swept else "| system "
    lines = [
        f"{lead}| {unit} | context tokens (mean) | stored | maintained | retrieved | {evidence} |",
        "|---|" + ("---:|" * (6 + bool(swept))),
    ]
    for r in records:
        text = [
            _cell(r[k], r.get(f"{k} interval")) for k in ("stored", "maintained", "retrieved", "evidence")
        ]
        tokens = "–" if r["context tokens"] is None else f"{r['context tokens']:,.0f}"
        head = f"| {r['system']} | {r['variant']} " if swept else f"| {r['system']} "
        lines.append(f"{head}| {r['questions']} | {tokens} | " + " | ".join(text) + " |")
    return "\n".join(lines)


def _cell(value: object, interval: object) -> str:
    """A share with its 95 % interval, ``0.83 [0.71, 0.91]``; a dash when undefined."""
    if value is None:
        return "–"
    if not interval:
        return f"{value:.2f}"
    lo, hi = interval
    return f"{value:.2f} [{lo:.2f}, {hi:.2f}]"


def _jsonl(path: Path) -> list[dict[str, object]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def session_costs(run: Path) -> list[dict[str, object]]:
    """Per system of a MEME oracle run: sessions ingested, and per session its LLM calls, prompt and
    completion tokens, the endpoint's seconds on them and the system's own seconds; per question its
    retrieval-time LLM calls (a memory that asks the LLM at query time)."""
    header = json.loads((run / "run.json").read_text(encoding="utf-8"))
    accounts = header.get("oracle_llm", {}).get("served", {}).get("accounts")
    if accounts is None:
        raise ValueError(f"{run / 'run.json'}: no oracle_llm.served.accounts (not an oracle run)")
    sessions: dict[tuple[str, str], int] = defaultdict(int)
    questions: dict[str, int] = defaultdict(int)
    for row in _jsonl(run / "rows.jsonl"):
        index = row["metadata"].get("snapshot_index")
        if index is None:
            raise ValueError(f"{run / 'rows.jsonl'}: a row without metadata.snapshot_index (not MEME)")
        key = (str(row["system"]), str(row["unit_id"]))
        sessions[key] = max(sessions[key], int(index) + 1)
        questions[str(row["system"])] += 1
    totals: dict[str, dict[str, float]] = {}
    for unit in _jsonl(run / "units.jsonl"):
        if unit["status"] != "done":
            continue
        system, unit_id = str(unit["system"]), str(unit["unit_id"])
        phases = accounts.get(f"{system}@{unit_id}", {}).get("phases", {})
        ingest, retrieve = phases.get("ingest", {}), phases.get("retrieve", {})
        tally = totals.setdefault(system, defaultdict(float))
        tally["sessions"] += sessions[(system, unit_id)]
        tally["calls"] += ingest.get("calls", 0)
        tally["prompt_tokens"] += ingest.get("prompt_tokens", 0)
        tally["completion_tokens"] += ingest.get("completion_tokens", 0)
        tally["llm_s"] += ingest.get("llm_s", 0.0)
        tally["ingest_s"] += unit["usage"]["wall_s"].get("ingest", 0.0)
        tally["retrieve_calls"] += retrieve.get("calls", 0)
    records = []
    for system, t in totals.items():
        n = t["sessions"] or float("nan")
        records.append(
            {
                "system": _name(system),
                "sessions": int(t["sessions"]),
                "calls": t["calls"] / n,
                "prompt_tokens": t["prompt_tokens"] / n,
                "completion_tokens": t["completion_tokens"] / n,
                "llm_s": t["llm_s"] / n,
                "own_s": (t["ingest_s"] - t["llm_s"]) / n,
                "retrieve_calls": t["retrieve_calls"] / (questions[system] or float("nan")),
            }
        )
    return records


def costs_markdown(records: list[dict[str, object]]) -> str:
    lines = [
        "| system | sessions | LLM calls / session | prompt tokens / session | completion tokens / session "
        "| own s / session | LLM s / session | LLM calls / question (retrieval) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in records:
        lines.append(
            f"| {r['system']} | {r['sessions']} | {r['calls']:.1f} | {r['prompt_tokens']:,.0f} "
            f"| {r['completion_tokens']:,.0f} | {r['own_s']:.3f} | {r['llm_s']:.3f} "
            f"| {r['retrieve_calls']:.1f} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", type=Path, help="a report folder of an oracle-libraries run")
    parser.add_argument("--run", type=Path, help="the MEME run folder the report was made from: adds costs")
    args = parser.parse_args()
    if not any((args.report / f"{b}_failure_stages.csv").exists() for b in ("meme", "dynamicmem")):
        sys.exit(f"{args.report} has no MEME or DynamicMem failure-stage table")
    costs = None
    if args.run is not None:
        try:
            costs = session_costs(args.run)
        except (OSError, ValueError, KeyError) as exc:
            sys.exit(f"--run {args.run}: {exc}")
    benchmark, swept, records = ceilings(args.report)
    print(
        f"Ceilings of {args.report.name} (oracle-served rows; generated by perf/oracle_ceilings_table.py "
        "from the report's CSVs): share of each system's questions whose gold fact was stored, still "
        "maintained at question time, and retrieved (cumulative, from the failure-stage table), and its "
        "evidence rate, each with its 95 % interval (stages: Wilson over questions; evidence: the report's "
        "bootstrap over episodes), with the mean context tokens handed over per question"
        + (f", per {swept}" if swept else "")
        + ".\n"
    )
    print(STAGES_AND_EVIDENCE[benchmark] + "\n")
    print(markdown(benchmark, records, swept))
    if costs is not None:
        order = {r["system"]: i for i, r in enumerate(records)}  # the ceilings' order
        costs.sort(key=lambda r: order.get(str(r["system"]), len(order)))
        print(
            f"\nWhat a session costs (from {args.run.name}'s run folder, counted at the oracle endpoint): "
            "the LLM calls and tokens each system's `ingest_session` made per session, the endpoint's time "
            "answering them, and the system's own time per session, its ingest wall time less that time "
            "(units ran one at a time; the machine was shared, so read the times as an order of magnitude). "
            "The last column: LLM calls at question time, per question, answers not included.\n"
        )
        print(costs_markdown(costs))


if __name__ == "__main__":
    main()
