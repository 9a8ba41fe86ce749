"""LongMemEval figures: retrieval runs on S (time, peak memory), the raw encode peer, M-scale loading.

Every measurement runs in its own child process and is reaped with ``os.wait4``, so each peak RSS
belongs to that measurement alone.

- ``s``: ``memsuite run longmemeval_s`` retrieval only (``judges: []``, no answer LLM) for each of
  bm25, dense and flat_bm25 at each granularity: COLD with a fresh empty ``--cache-dir``, then WARM
  with the same cache dir and a fresh ``--out`` (nothing resumed, every embedding from the cache).
- ``raw``: one ``SentenceTransformer.encode`` (dense's batch size, normalised) of exactly the texts dense
  encodes at that granularity: the distinct non-blank corpus documents of the selected questions,
  split into dense's windows with the functions dense uses (``fits_in_tokens`` / ``split_by_tokens``
  of ``memsuite.memory_systems.tokens``, ``--window-tokens`` (dense's default 200), overlap 40), each
  distinct window once (the content-hash cache encodes a window once per run). Gives the dense-cold /
  raw ratio of the same run. With ``--window-tokens 100000`` every document is one window: dense and
  the peer each make one plain encode per distinct document, the setting ``longmemeval_reference.py``
  checks, so ``--keep`` leaves the cold run for it.
- ``m``: writes an M-shaped file (same keys, ~500 sessions per question: each haystack is one S
  record's own sessions plus those of the S records before it, shuffled) to a temporary folder,
  then in a child indexes it whole with ``LmeFile`` and parses every question once; the file is
  deleted after.

    .venv/bin/python perf/bench_longmemeval.py --per-type 5 --part s,raw   # 30 questions, S parts
    .venv/bin/python perf/bench_longmemeval.py --part s --systems bm25,flat_bm25   # whole file, lexical
    .venv/bin/python perf/bench_longmemeval.py --per-type 10 --part raw,s --systems dense --granularities turn
    .venv/bin/python perf/bench_longmemeval.py --part raw,s --systems dense --granularities session \
        --window-tokens 100000 --keep runs/bench_lme   # then longmemeval_reference.py on the cold run
    .venv/bin/python perf/bench_longmemeval.py --per-type 1 --m-gib 0.2    # quick check of all parts
    .venv/bin/python perf/bench_longmemeval.py --part m --m-gib 2.7 --json m.json
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_beam import raw_encode  # perf/, beside this script: the raw encode peer

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = ROOT.parent / "shared/data/longmemeval/longmemeval_s_cleaned.dev.json.gz"
SYSTEMS = ("bm25", "dense", "flat_bm25")
GRANULARITIES = ("session", "turn")
WINDOW_OVERLAP = 40
M_SESSIONS = 500
#: Goals by figure name, or by the end of one ("_..."); the warm goal is for the whole S file.
GOALS = {"_dense_cold_vs_raw": ("<=", 1.3), "_warm_s": ("<=", 60), "m_peak_rss_gib": ("<=", 2)}


def run_measured(cmd: list[str]) -> tuple[float, float, float, str]:
    """Wall seconds, CPU seconds, peak RSS (GiB) and output of ``cmd`` run as a child; exits if it fails.

    CPU seconds next to wall seconds show how much of the wall time a shared machine gave the child.
    """
    with tempfile.TemporaryFile() as out:
        started = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, cwd=ROOT)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
    if proc.returncode:
        sys.exit(f"failed ({proc.returncode}): {' '.join(cmd)}\n{text[-3000:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 2**20, text  # Linux reports KiB


def child(args: argparse.Namespace, *extra: str) -> list[str]:
    cmd = [sys.executable, __file__, "--data", str(args.data), "--window-tokens", str(args.window_tokens)]
    cmd += extra
    return cmd + (["--per-type", str(args.per_type)] if args.per_type else [])


def memsuite_run(args: argparse.Namespace, system: str, granularity: str, cache: Path, out: Path) -> list:
    cmd = [str(Path(sys.executable).parent / "memsuite"), "run", "longmemeval_s", "--out", str(out)]
    spec = f"{{name: dense, args: {{window_tokens: {args.window_tokens}}}}}" if system == "dense" else system
    cmd += ["--cache-dir", str(cache), "--quiet", "--set", f"systems=[{spec}]", "--set", "judges=[]"]
    cmd += ["--set", f"benchmark_options.granularity={granularity}"]
    cmd += ["--set", f"benchmark_options.data={args.data}"]
    return cmd + (["--set", f"benchmark_options.per_type={args.per_type}"] if args.per_type else [])


def part_s(args: argparse.Namespace, figures: dict) -> None:
    for granularity in args.granularities:
        for system in args.systems:
            with tempfile.TemporaryDirectory(prefix="bench-lme-") as folder:
                cache = Path(folder) / "cache"
                runs = args.keep / f"{system}_{granularity}" if args.keep else Path(folder)
                for state in ("cold", "warm"):
                    cmd = memsuite_run(args, system, granularity, cache, runs / f"run-{state}")
                    wall, cpu, rss, _ = run_measured(cmd)
                    figures[f"{system}_{granularity}_{state}_s"] = wall
                    figures[f"{system}_{granularity}_{state}_cpu_s"] = cpu
                    figures[f"{system}_{granularity}_{state}_peak_rss_gib"] = rss
                    print(f"  {system} {granularity} {state}: {wall:.1f} s, {rss:.2f} GiB", file=sys.stderr)


def question_documents(data: Path, per_type: int | None, granularity: str) -> list[list[str]]:
    """Per selected question, its non-blank documents not seen in an earlier question, distinct."""
    from memsuite.eval.benchmarks.longmemeval.loader import LmeFile
    from memsuite.eval.benchmarks.longmemeval.schema import corpus

    file = LmeFile(data, per_type=per_type)
    seen: set[str] = set()
    calls = []
    for question_id in file.ids:
        documents = corpus(file.question(question_id), granularity)
        new = list(dict.fromkeys(d.text for d in documents if d.text.strip() and d.text not in seen))
        seen.update(new)
        calls.append(new)
    return calls


def dense_windows(data: Path, per_type: int | None, granularity: str, window_tokens: int) -> list[str]:
    """The distinct windows dense encodes for the selected questions, in first-seen order."""
    from memsuite.memory_systems.tokens import fits_in_tokens, split_by_tokens

    texts = [text for call in question_documents(data, per_type, granularity) for text in call]
    windows: dict[str, None] = {}
    for text in texts:
        if fits_in_tokens(text, window_tokens):
            windows.setdefault(text)
        else:
            for window in split_by_tokens(text, max_tokens=window_tokens, overlap=WINDOW_OVERLAP):
                windows.setdefault(window)
    return list(windows)


def child_raw(args: argparse.Namespace) -> dict:
    return raw_encode(dense_windows(args.data, args.per_type, args.granularity, args.window_tokens))


def part_raw(args: argparse.Namespace, figures: dict) -> None:
    for granularity in args.granularities:
        _, _, rss, text = run_measured(child(args, "--_child", "raw", "--granularity", granularity))
        result = json.loads(text.strip().splitlines()[-1])
        figures[f"raw_{granularity}_texts"] = result["texts"]
        figures[f"raw_{granularity}_batch_size"] = result["batch_size"]
        figures[f"raw_{granularity}_encode_s"] = result["encode_s"]
        figures[f"raw_{granularity}_peak_rss_gib"] = rss
        print(f"  raw {granularity}: {result['encode_s']:.1f} s, {result['texts']} texts", file=sys.stderr)


def write_m_file(source: Path, target: Path, gib: float, seed: int = 0) -> int:
    """An M-shaped file of about ``gib`` GiB built from ``source``'s records; the number of records.

    Each record is an S record (question id made unique) whose haystack is its own sessions and
    those of the S records just before it, up to :data:`M_SESSIONS`, shuffled. Source records are
    streamed, passing over the file again until the target size is reached.
    """
    from memsuite.eval.benchmarks.longmemeval.loader import iter_raw_records

    rng = random.Random(seed)
    limit = int(gib * 2**30)
    pool: list[tuple[str, str, list]] = []  # (session id, date, session) of recent records
    written, count = 1, 0
    with open(target, "w", encoding="utf-8") as fh:
        fh.write("[")
        while written < limit:
            for _, _, _, record in iter_raw_records(source):
                own = list(
                    zip(
                        record["haystack_session_ids"],
                        record["haystack_dates"],
                        record["haystack_sessions"],
                        strict=True,
                    )
                )
                pool = (own + pool)[:M_SESSIONS]
                haystack = pool[:]
                rng.shuffle(haystack)
                record = dict(record, question_id=f"m{count:05d}_{record['question_id']}")
                record["haystack_session_ids"] = [s[0] for s in haystack]
                record["haystack_dates"] = [s[1] for s in haystack]
                record["haystack_sessions"] = [s[2] for s in haystack]
                text = ("," if count else "") + json.dumps(record)
                fh.write(text)
                written += len(text.encode("utf-8"))
                count += 1
                if written >= limit:
                    break
        fh.write("]")
    return count


def child_m(args: argparse.Namespace) -> dict:
    from memsuite.eval.benchmarks.longmemeval.loader import LmeFile

    started = time.perf_counter()
    file = LmeFile(args.m_file)
    indexed = time.perf_counter() - started
    sessions = sum(len(file.question(question_id).sessions) for question_id in file.ids)
    return {
        "questions": len(file.ids),
        "sessions_per_question": sessions / len(file.ids),
        "index_s": indexed,
        "parse_all_s": time.perf_counter() - started - indexed,
    }


def part_m(args: argparse.Namespace, figures: dict) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-lme-m-") as folder:
        path = Path(folder) / "longmemeval_m_shaped.json"
        started = time.perf_counter()
        records = write_m_file(args.data, path, args.m_gib)
        figures["m_generate_s"] = time.perf_counter() - started
        figures["m_file_gib"] = path.stat().st_size / 2**30
        print(f"  wrote {records} records, {figures['m_file_gib']:.2f} GiB", file=sys.stderr)
        wall, cpu, rss, text = run_measured(child(args, "--_child", "m", "--m-file", str(path)))
    result = json.loads(text.strip().splitlines()[-1])
    figures["m_questions"] = result["questions"]
    figures["m_sessions_per_question"] = result["sessions_per_question"]
    figures["m_index_s"] = result["index_s"]
    figures["m_parse_all_s"] = result["parse_all_s"]
    figures["m_wall_s"] = wall
    figures["m_cpu_s"] = cpu
    figures["m_peak_rss_gib"] = rss


def verdict(key: str, value: float) -> str:
    ends = [g for end, g in GOALS.items() if end.startswith("_") and key.endswith(end)]
    goal = GOALS.get(key) or (ends[0] if ends else None)
    if goal is None:
        return ""
    ok = value <= goal[1] if goal[0] == "<=" else value >= goal[1]
    return f"{goal[0]} {goal[1]}  {'OK' if ok else 'MISSED'}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="a LongMemEval S file")
    parser.add_argument("--per-type", type=int, help="first N questions of each type (default: all)")
    parser.add_argument("--part", default="all", help="s, raw, m or all, or several joined by commas")
    parser.add_argument("--systems", default=",".join(SYSTEMS), help="systems of part s, joined by commas")
    parser.add_argument("--granularities", default=",".join(GRANULARITIES), help="of parts s and raw")
    parser.add_argument("--window-tokens", type=int, default=200, help="dense's window (its default: 200)")
    parser.add_argument("--keep", type=Path, help="keep part s's run folders here (default: deleted)")
    parser.add_argument("--m-gib", type=float, default=2.7, help="size of the generated M-shaped file")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--_child", choices=["raw", "m"], help=argparse.SUPPRESS)
    parser.add_argument("--granularity", choices=GRANULARITIES, help=argparse.SUPPRESS)
    parser.add_argument("--m-file", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.systems, args.granularities = args.systems.split(","), args.granularities.split(",")
    if not set(args.systems) <= set(SYSTEMS) or not set(args.granularities) <= set(GRANULARITIES):
        sys.exit(f"--systems: choose from {SYSTEMS}; --granularities: from {GRANULARITIES}")
    if args._child:
        print(json.dumps({"raw": child_raw, "m": child_m}[args._child](args)))
        return
    if not args.data.is_file():
        sys.exit(f"{args.data}: file not found (--data)")
    if args.data.suffix == ".gz":
        with gzip.open(args.data, "rb") as fh:
            fh.read(1)  # a bad gzip file fails here, before any run
    figures: dict = {"per_type": args.per_type or "all"}
    parts = {"s": part_s, "raw": part_raw, "m": part_m}
    chosen = list(parts) if args.part == "all" else args.part.split(",")
    if not set(chosen) <= set(parts):
        sys.exit(f"--part: choose from s, raw, m, all; got {args.part!r}")
    for name in chosen:
        print(f"part {name}", file=sys.stderr)
        parts[name](args, figures)
    for granularity in GRANULARITIES:
        if f"dense_{granularity}_cold_s" in figures and f"raw_{granularity}_encode_s" in figures:
            ratio = figures[f"dense_{granularity}_cold_s"] / figures[f"raw_{granularity}_encode_s"]
            figures[f"{granularity}_dense_cold_vs_raw"] = ratio
    print(f"{'figure':40s} {'value':>12s}  goal")
    for key, value in figures.items():
        shown = f"{value:12.3f}" if isinstance(value, float) else f"{value!s:>12s}"
        print(f"{key:40s} {shown}  {verdict(key, value) if isinstance(value, float) else ''}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
