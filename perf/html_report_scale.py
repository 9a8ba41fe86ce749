"""The report page at scale: a synthetic LongMemEval-layout run of 50,000 rows (three systems) written,
reported with ``memsuite report``, and opened from file:// in headless chromium.

Measures, each the median of ``--repeats`` fresh page loads:

- open to overview: navigation start until the page's scripts say it is ready (tables rendered,
  plots drawn), the figure the target (< 2 s) is about;
- open to questions: the question browser listing its first page (the whole index loaded);
- open a question: one question's details (its chunk loaded) after the list is shown;
- search: the free-text filter with a text no row holds (:data:`ABSENT`), so every row's kept context
  is read, one context chunk at a time, until the count is final;

and the folder's size: the page alone (``index.html`` + ``index_files/``, target < 30 MB) and the whole
report folder. The peer is the same run cut to 1,000 rows, measured in the same process: the ratio says
how much of the open time grows with the rows.

Rows are made from a fixed seed: question types as in LongMemEval, a ranking of 50 corpus ids, a
context of five sessions (~6,000 characters of words), answers, and the rule, LLM, retrieval and
answer-in-context verdicts; the summary is the benchmark's own scoring of them.

    /path/to/venv/bin/python perf/html_report_scale.py [--rows 50000] [--repeats 5] [--keep DIR]

Needs Playwright and the system chromium (``apt-get install -y --no-install-recommends chromium``).
"""

from __future__ import annotations

import argparse
import itertools
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from memsuite.eval.benchmarks.longmemeval.scoring import longmemeval_scores
from memsuite.eval.protocol import Row
from memsuite.eval.run.folder import RunFolder, UnitRecord

SYSTEMS = ("bm25", "dense", "md_flat")
TYPES = (
    "single-session-user",
    "single-session-assistant",
    "single-session-preference",
    "multi-session",
    "knowledge-update",
    "temporal-reasoning",
)
QUESTIONS_PER_UNIT = 20
#: A search text no row holds (the synthetic words are lower-case letters only).
ABSENT = "no such text 0"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


#: Word frequencies fall with rank as in natural text (Zipf), so the text compresses as prose does.
_ZIPF = list(itertools.accumulate(1 / rank for rank in range(1, 3001)))
#: Distinct sessions a context is drawn from (haystacks share sessions, as LongMemEval's do).
SESSIONS = 20_000


def _words(rng: random.Random, vocabulary: list[str], n: int) -> str:
    return " ".join(rng.choices(vocabulary, cum_weights=_ZIPF, k=n))


def synthetic_rows(n_rows: int, seed: int = 0) -> dict[str, list[Row]]:
    """``n_rows`` rows (spread over :data:`SYSTEMS`), by system."""
    rng = random.Random(seed)
    vocabulary = [
        "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9)))
        for _ in range(3000)
    ]
    pool = [_words(rng, vocabulary, 180) for _ in range(min(SESSIONS, n_rows))]
    per_system = -(-n_rows // len(SYSTEMS))
    questions = []
    for i in range(per_system):
        unit = f"u{i // QUESTIONS_PER_UNIT:05d}"
        relevant = [f"s{i}_{j}" for j in range(rng.randint(1, 3))]
        questions.append(
            (
                unit,
                f"q{i:06d}",
                _words(rng, vocabulary, 14) + "?",
                _words(rng, vocabulary, 4),
                TYPES[i % 6],
                relevant,
            )
        )
    rows: dict[str, list[Row]] = {}
    for s, system in enumerate(SYSTEMS):
        rows[system] = []
        for unit, qid, question, gold, qtype, relevant in questions[
            : min(per_system, n_rows - s * per_system)
        ]:
            hit = rng.random() < 0.6 - 0.1 * s
            sessions = [f"[session {j}] " + rng.choice(pool) for j in range(5)]
            if hit:
                sessions[rng.randrange(5)] += f" {relevant[0]} {gold}"
            context = "\n\n".join(sessions)
            ranking = [relevant[0]] * hit + [f"d{rng.randrange(10**6)}" for _ in range(50 - hit)]
            recall = 1.0 if hit else 0.0
            metrics = {
                "session": {
                    f"{m}@{k}": recall for m in ("recall_any", "recall_all", "ndcg_any") for k in (5, 10)
                }
            }
            rule = hit and rng.random() < 0.8
            llm = rule if rng.random() < 0.9 else not rule
            rows[system].append(
                Row(
                    system=system,
                    benchmark="longmemeval",
                    unit_id=unit,
                    question_id=qid,
                    question=question,
                    gold=gold,
                    context=context,
                    answer=(gold if rule else _words(rng, vocabulary, 12)),
                    verdicts={
                        "retrieval": {"judge": "retrieval", "correct": hit, "metrics": metrics, "k": 5},
                        "answer_in_context": {"judge": "answer_in_context", "correct": hit},
                        "rule": {
                            "judge": "rule",
                            "correct": rule,
                            "reason": "exact match" if rule else "no match",
                        },
                        "llm": {"judge": "llm", "correct": llm, "reason": _words(rng, vocabulary, 10)},
                    },
                    usage={
                        "retrieve_ms": rng.lognormvariate(2 + s, 0.6),
                        "prompt_tokens": 1800,
                        "completion_tokens": 20,
                    },
                    metadata={
                        "question_type": qtype,
                        "abstention": False,
                        "granularity": "session",
                        "ranking": ranking,
                        "relevant": relevant,
                        "k": 5,
                    },
                )
            )
    return rows


def write_run(path: Path, rows: dict[str, list[Row]]) -> Path:
    """A finished run folder of ``rows`` with the benchmark's own summary."""
    folder = RunFolder(path)
    folder.write_header(
        {
            "status": "complete",
            "config": {
                "benchmark": "longmemeval",
                "systems": [{"name": s, "label": "", "args": {}} for s in rows],
                "k": 5,
                "judges": ["rule", "llm"],
                "benchmark_options": {"variant": "s (synthetic)"},
            },
            "answer_llm": {"model": "synthetic"},
            "embedder": {"model": "all-MiniLM-L6-v2"},
            "units": {"total": len({r.unit_id for r in next(iter(rows.values()))})},
        }
    )
    summary = {}
    for system, system_rows in rows.items():
        by_unit: dict[str, list[Row]] = {}
        for row in system_rows:
            by_unit.setdefault(row.unit_id, []).append(row)
        for unit, unit_rows in by_unit.items():
            folder.append_unit(UnitRecord(system, unit, "done"), unit_rows)
        usage = {"llm_calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "wall_s": {}}
        summary[system] = {
            "scores": longmemeval_scores(system_rows),
            "usage": usage,
            "units": {"done": len(by_unit), "error": 0},
            "wall_s": 1.0,
        }
    folder.write_summary(summary)
    return path


def size_mb(paths: list[Path]) -> float:
    total = 0
    for path in paths:
        total += (
            path.stat().st_size
            if path.is_file()
            else sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
        )
    return total / 1e6


def measure(browser, page_path: Path, repeats: int) -> dict[str, float]:
    """Median seconds of: open to overview, open to the question list, one question's details (after one
    load that is not counted)."""
    url = page_path.resolve().as_uri()
    found: dict[str, list[float]] = {"overview": [], "questions": [], "question": [], "search": []}
    for attempt in range(repeats + 1):
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        outside = []
        page.on(
            "request",
            lambda r, o=outside: (
                o.append(r.url) if not r.url.startswith(("file:", "data:", "blob:")) else None
            ),
        )
        page.goto(url)
        page.wait_for_selector("body[data-ready]")
        found["overview"].append(float(page.get_attribute("body", "data-ready-ms")) / 1000)
        start = time.perf_counter()
        page.evaluate("location.hash = 'questions'")
        page.wait_for_selector("li[data-question]")
        found["questions"].append(time.perf_counter() - start)
        start = time.perf_counter()
        page.locator("li[data-question]").nth(7).click()
        page.wait_for_selector("#question-detail .detail-question")
        found["question"].append(time.perf_counter() - start)
        start = time.perf_counter()
        page.fill("#filter-text", ABSENT)
        page.wait_for_selector('#result-count[data-state="done"]')
        found["search"].append(time.perf_counter() - start)
        if page.inner_text("#result-count") != "0":
            raise SystemExit(f"the search for {ABSENT!r} found rows")
        if outside:
            raise SystemExit(f"requests outside the folder: {outside[:3]}")
        context.close()
        if attempt == 0:  # a warm-up load: the browser's first page pays for its own start
            found = {name: [] for name in found}
    return {name: statistics.median(values) for name, values in found.items()}


def report(run_dir: Path, out: Path) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "memsuite", "report", str(run_dir), "--out", str(out), "--no-plots"],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=50_000)
    parser.add_argument("--peer-rows", type=int, default=1_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--keep", type=Path, help="write the runs and reports here (kept)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    root = args.keep or Path(tempfile.mkdtemp(prefix="html-scale-"))
    results = {}
    for name, n in (("peer", args.peer_rows), ("scale", args.rows)):
        start = time.perf_counter()
        run_dir = write_run(root / f"run_{n}", synthetic_rows(n))
        made = time.perf_counter() - start
        written = report(run_dir, root / f"report_{n}")
        out = root / f"report_{n}"
        results[name] = {
            "rows": sum(1 for _ in RunFolder(run_dir).rows()),
            "run_s": made,
            "report_s": written,
            "page_mb": size_mb([out / "index.html", out / "index_files"]),
            "folder_mb": size_mb([out]),
            "page": out / "index.html",
        }
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        for result in results.values():
            result.update(measure(browser, result["page"], args.repeats))
        browser.close()
    print(f"{'run':<6} {'rows':>7} {'report s':>9} {'page MB':>8} {'folder MB':>10} {'overview s':>11} "
          f"{'questions s':>12} {'question s':>11} {'search s':>9}")  # fmt: skip
    for name, r in results.items():
        print(
            f"{name:<6} {r['rows']:>7} {r['report_s']:>9.1f} {r['page_mb']:>8.1f} {r['folder_mb']:>10.1f} "
            f"{r['overview']:>11.2f} {r['questions']:>12.2f} {r['question']:>11.2f} {r['search']:>9.2f}"
        )
    ratio = results["scale"]["overview"] / results["peer"]["overview"]
    print(
        f"open to overview, {results['scale']['rows']} rows vs {results['peer']['rows']}: x{ratio:.2f} "
        f"(median of {args.repeats})"
    )
    if args.keep is None:
        shutil.rmtree(root)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
