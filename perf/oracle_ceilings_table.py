"""Per system, the share of gold facts stored, maintained and retrieved, and its evidence rate, read from
the generated report of an oracle-libraries run (MEME or DynamicMem) -- the figures of docs/llm-endpoints.md.

The report's failure-stage table gives each question's (MEME after-question, DynamicMem state key)
first failing stage per task or category; the cumulative shares follow from it over all of a system's
questions: stored = no failure at encoded, maintained = none at encoded or maintained, retrieved =
none up to retrieval (what an answer model could then read). The evidence rate: MEME's evidence judge,
Overall (``meme_main_evidence``); DynamicMem's Evidence F1 of the retrieved events over checkpoints
(``dynamicmem_checkpoints``, mean), defined only for memories that keep event ids (bm25): an LLM memory
stores extracted text (a dash), so its retrieved share is its evidence.

    .venv/bin/python perf/oracle_ceilings_table.py results/oracle_libraries
    .venv/bin/python perf/oracle_ceilings_table.py results/oracle_libraries_dynamicmem
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections import defaultdict
from pathlib import Path

STAGES = ("encoded", "maintained", "retrieved")
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


def ceilings(report: Path) -> tuple[str, list[dict[str, object]]]:
    """(benchmark, one record per system: questions, stored, maintained, retrieved, evidence)."""
    benchmark = "meme" if (report / "meme_failure_stages.csv").exists() else "dynamicmem"
    failed: dict[str, dict[str, float]] = defaultdict(lambda: dict.fromkeys((*STAGES, "n"), 0.0))
    for row in _rows(report / f"{benchmark}_failure_stages.csv"):
        tally, n = failed[_name(row["system"])], float(row["n"])
        tally["n"] += n
        for stage in STAGES:
            tally[stage] += round(float(row[stage]) * n)  # shares of n questions: whole counts
    intervals: dict[str, tuple[float, float] | None] = {}
    if benchmark == "meme":
        evidence_rows = _rows(report / "meme_main_evidence.csv")
        evidence = {_name(r["system"]): _num(r["Overall"]) for r in evidence_rows}
        for r in evidence_rows:
            lo, hi = _num(r.get("Overall lo")), _num(r.get("Overall hi"))
            intervals[_name(r["system"])] = None if lo is None or hi is None else (lo, hi)
    else:
        # A memory that made LLM calls stores extracted text, no event ids: its F1 is 0 by construction.
        extracted = {
            _name(r["system"]) for r in _rows(report / "dynamicmem_usage.csv") if _num(r["llm_calls"])
        }
        evidence = {
            _name(r["system"]): _num(r["mean"])
            for r in _rows(report / "dynamicmem_checkpoints.csv")
            if r["metric"].startswith("Evidence F1") and _name(r["system"]) not in extracted
        }
    records = []
    for system, tally in failed.items():
        n, left = tally["n"], tally["n"]
        shares: dict[str, object] = {}
        for stage, label in zip(STAGES, ("stored", "maintained", "retrieved"), strict=True):
            left -= tally[stage]
            shares[label] = left / n if n else None
            shares[f"{label} interval"] = wilson(left, n)
        records.append(
            {
                "system": system,
                "questions": int(n),
                **shares,
                "evidence": evidence.get(system),
                "evidence interval": intervals.get(system),
            }
        )
    return benchmark, records


def markdown(benchmark: str, records: list[dict[str, object]]) -> str:
    unit = "after-questions" if benchmark == "meme" else "state keys"
    evidence = "evidence (Overall)" if benchmark == "meme" else "Evidence F1 (retrieved events)"
    lines = [
        f"| system | {unit} | stored | maintained | retrieved | {evidence} |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for r in records:
        text = [
            _cell(r[k], r.get(f"{k} interval")) for k in ("stored", "maintained", "retrieved", "evidence")
        ]
        lines.append(f"| {r['system']} | {r['questions']} | " + " | ".join(text) + " |")
    return "\n".join(lines)


def _cell(value: object, interval: object) -> str:
    """A share with its 95 % interval, ``0.83 [0.71, 0.91]``; a dash when undefined."""
    if value is None:
        return "–"
    if not interval:
        return f"{value:.2f}"
    lo, hi = interval
    return f"{value:.2f} [{lo:.2f}, {hi:.2f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", type=Path, help="a report folder of an oracle-libraries run")
    args = parser.parse_args()
    if not any((args.report / f"{b}_failure_stages.csv").exists() for b in ("meme", "dynamicmem")):
        sys.exit(f"{args.report} has no MEME or DynamicMem failure-stage table")
    benchmark, records = ceilings(args.report)
    print(
        f"Ceilings of {args.report.name} (oracle-served rows; generated by perf/oracle_ceilings_table.py "
        "from the report's CSVs): share of each system's questions whose gold fact was stored, still "
        "maintained at question time, and retrieved (cumulative, from the failure-stage table), and its "
        "evidence rate, each with its 95 % interval (stages: Wilson over questions; evidence: the report's "
        "bootstrap over episodes).\n"
    )
    print(markdown(benchmark, records))


if __name__ == "__main__":
    main()
