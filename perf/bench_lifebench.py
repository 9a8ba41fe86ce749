"""LifeBench figures: bm25 over the seven dev users, retrieval only, end to end, beside bm25s called
directly on the same documents and queries; dense over one user, cold, beside encoding its texts.

- ``bm25``: the protocol (:class:`~memsuite.eval.benchmarks.lifebench.protocol.LifebenchBenchmark`, no
  LLM): the folders read and checked, each user's records ingested a day at a time, every question's
  ranking of the records held at its time, its retrieval verdicts and its context at k = 10.
- ``raw_bm25``: ``bm25s`` (``tokenize``, ``BM25(method="lucene")``, ``get_scores``, a stable sort) over
  the same documents, indexed once per question time with the records held then, as the protocol
  does, and every question scored against them.

- ``dense_cold``: ``memsuite run lifebench_quick`` (one user, ``--user``, default leimingxuan: about
  7,000 records) of dense alone (``window_tokens`` 1,024, as the configs run it), retrieval only, in a
  child process with a fresh empty ``--cache-dir``: process start, model load, loading, encoding every
  record and every question, ranking, verdicts and the run folder.
- ``raw_encode``: the peer: one ``SentenceTransformer.encode`` (dense's model and batch size,
  normalised) of exactly the distinct texts that run encodes (found by running the protocol with the
  encoder replaced by one that keeps its inputs), timed after a warm-up batch.

Each is repeated ``--repeats`` times (default 3), in turn, and the median is the figure; the ratios
bm25 / raw_bm25 and dense_cold / raw_encode are printed with the 1-minute load average (the machine may
be shared).

    python perf/bench_lifebench.py
    python perf/bench_lifebench.py --part dense --repeats 3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from itertools import groupby
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's memsuite, whichever is installed
from bench_beam import interleaved, raw_encode, run_measured  # noqa: E402  (shared measurements)

SHARED = Path(os.environ.get("MEMSUITE_SHARED_DATA", ROOT.parent / "shared/data")) / "lifebench"
K = 10
DENSE = {"name": "dense", "args": {"window_tokens": 1024}}


def run_bm25(data: Path) -> float:
    from memsuite.eval.benchmarks.lifebench.protocol import LifebenchBenchmark
    from memsuite.eval.registry import definition
    from memsuite.memory_systems.registry import get_system

    started = time.perf_counter()
    benchmark = LifebenchBenchmark(str(data))
    ctx = definition("lifebench").context(k=K, judges=())
    for unit in benchmark.units():
        list(benchmark.run_unit(get_system("bm25"), unit, ctx))
    return time.perf_counter() - started


def run_raw_bm25(data: Path) -> float:
    import bm25s
    import numpy as np

    from memsuite.eval.benchmarks.lifebench.documents import record_text
    from memsuite.eval.benchmarks.lifebench.loader import load_users

    started = time.perf_counter()
    for user in load_users(data):
        records = [*user.contacts, *user.records]
        texts = [record_text(r) for r in records]
        days = ["" if r.day is None else r.day for r in records]
        questions = sorted(user.questions, key=lambda q: (q.asked, q.index))
        for asked, group in groupby(questions, key=lambda q: q.asked):
            held = sum(1 for d in days if d <= asked)
            retriever = bm25s.BM25(method="lucene")
            retriever.index(bm25s.tokenize(texts[:held], show_progress=False), show_progress=False)
            for question in group:
                words = bm25s.tokenize([question.question], return_ids=False, show_progress=False)[0]
                np.argsort(-retriever.get_scores(words), kind="stable")
    return time.perf_counter() - started


def dense_texts(data: Path, user: str) -> list[str]:
    """The distinct texts a dense run over ``user`` encodes (records' windows and questions), in
    first-seen order: the protocol run with dense's encoder replaced by one that keeps its inputs."""
    import numpy as np

    from memsuite.baselines.dense import DenseMemory
    from memsuite.eval.benchmarks.lifebench.protocol import LifebenchBenchmark
    from memsuite.eval.registry import definition

    asked: dict[str, None] = {}
    memory = DenseMemory(**DENSE["args"])
    dim = memory.embedder.dim

    def keep(texts: list[str]) -> np.ndarray:
        asked.update(dict.fromkeys(texts))
        vectors = np.random.default_rng(len(asked)).standard_normal((len(texts), dim)).astype(np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    memory.embedder.encode = keep
    benchmark = LifebenchBenchmark(str(data), users=[user])
    ctx = definition("lifebench").context(k=K, judges=())
    for unit in benchmark.units():
        list(benchmark.run_unit(memory, unit, ctx))
    return list(asked)


def dense_figures(data: Path, user: str, repeats: int) -> dict:
    """dense cold end to end and the raw encode of its texts, taken in turn, as bench_beam does."""
    figures: dict = {}
    with tempfile.TemporaryDirectory(prefix="bench-lifebench-dense-") as folder:

        def cold(rep: int) -> dict:
            cmd = [str(Path(sys.executable).parent / "memsuite"), "run", "lifebench_quick"]
            cmd += ["--out", f"{folder}/run-{rep}", "--cache-dir", f"{folder}/cache-{rep}", "--quiet"]
            cmd += ["--set", f"systems=[{json.dumps(DENSE)}]", "--set", f"benchmark_options.data={data}"]
            return run_measured([*cmd, "--set", f"benchmark_options.users=[{user}]"])

        def raw(rep: int) -> dict:
            cmd = [sys.executable, __file__, "--_raw_encode", "--data", str(data), "--user", user]
            result = run_measured(cmd)
            found = json.loads(result["output"].strip().splitlines()[-1])
            return result | found | {"wall_s": found["encode_s"]}  # the figure is the encode alone

        interleaved({"dense_cold_s": cold, "raw_encode_s": raw}, repeats, figures)
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=SHARED)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--part", default="bm25,dense", help="bm25, dense or both (comma-separated)")
    parser.add_argument("--user", default="leimingxuan", help="the user dense runs over")
    parser.add_argument("--_raw_encode", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not args.data.is_dir():
        print(f"no LifeBench data at {args.data}: set MEMSUITE_SHARED_DATA", file=sys.stderr)
        return 2
    if args._raw_encode:
        print(json.dumps(raw_encode(dense_texts(args.data, args.user))))
        return 0
    parts = args.part.split(",")
    if "bm25" in parts:
        figures: dict[str, list[float]] = {"bm25": [], "raw_bm25": []}
        for _ in range(args.repeats):
            figures["bm25"].append(run_bm25(args.data))
            figures["raw_bm25"].append(run_raw_bm25(args.data))
        medians = {name: statistics.median(values) for name, values in figures.items()}
        print(f"load average (1 min): {os.getloadavg()[0]:.2f}")
        for name, values in figures.items():
            print(f"{name}: median {medians[name]:.2f} s  (runs: {', '.join(f'{v:.2f}' for v in values)})")
        ratio = medians["bm25"] / medians["raw_bm25"]
        print(f"bm25 / raw_bm25: {ratio:.2f}x  (goals: bm25 <= 15 s, ratio <= 1.5x)")
    if "dense" in parts:
        dense = dense_figures(args.data, args.user, args.repeats)
        for name, figure in dense.items():
            extra = f", {figure['texts']} texts" if "texts" in figure else ""
            runs = ", ".join(f"{v:.1f}" for v in figure["runs_s"])
            print(f"{name}: median {figure['s']:.1f} s  (runs: {runs}; load {figure['load'][0]:.2f}{extra})")
        ratio = dense["dense_cold_s"]["s"] / dense["raw_encode_s"]["s"]
        print(f"dense_cold / raw_encode ({args.user}): {ratio:.2f}x  (goal <= 1.3x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
