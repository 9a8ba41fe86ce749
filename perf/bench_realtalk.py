"""REALTALK figures: retrieval-only passes over the seven dev chats, beside raw peers.

Every measurement runs in its own child process (a cold start: nothing cached, no index built) and
times its work inside the child; each is repeated ``--repeats`` times (default 3), the measurements
taken in turn within each repeat so that a change of load falls on all of them, and the median is the
figure. The machine may be shared: every figure carries the 1-minute load average at its start, and
CPU seconds (the child's own, all threads) beside wall seconds: on a crowded machine the wall time
says how much of a core the child got, the CPU time what the work costs; each goal is checked on both.

- ``bm25``: the protocol (:class:`~memsuite.eval.benchmarks.realtalk.protocol.RealtalkBenchmark`,
  message granularity, no LLM) with bm25 over every dev chat: the files read and checked, each chat
  ingested, every question's ranking of the whole chat, its retrieval verdict and its context at
  k = 10. Peer ``raw_bm25``: ``bm25s`` called directly (``tokenize``, ``BM25(method="lucene")``,
  ``get_scores`` of every message for every question, a stable sort) over the same messages.
- ``dense``: the same protocol with dense (``window_tokens`` 1024: every message whole) over
  ``--dense-chats`` (default chat 4, the smallest: 410 messages, 70 questions; dense encodes every
  message, minutes per chat on 2 shared cores, so all seven three times over is out of reach there),
  COLD (an embedder without a disk cache: every message and question encoded), the model loaded and
  warmed up before the clock starts. Peer ``raw_encode``: the embedder's own ``SentenceTransformer``
  (``memsuite.memory_systems.embedder``, same batch size, normalised) encoding the same texts: each
  chat's messages in one call, and its questions in one call. Gives dense cold / raw.

    python perf/bench_realtalk.py                       # every part, 3 repeats
    python perf/bench_realtalk.py --part bm25,raw_bm25 --repeats 5 --json figures.json
    python perf/bench_realtalk.py --part dense,raw_encode --dense-chats 1,2,4,5,6,8,10
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's memsuite, whichever is installed
SHARED = Path(os.environ.get("MEMSUITE_SHARED_DATA", ROOT.parent / "shared/data")) / "realtalk"
WINDOW_TOKENS, K = 1024, 10
PARTS = ("bm25", "raw_bm25", "dense", "raw_encode")
#: Goals by figure name.
GOALS = {"bm25_s": ("<=", 5.0), "dense_cold_vs_raw": ("<=", 1.3)}


def child_bm25(data: Path, chats: list[int] | None) -> dict:
    from memsuite.eval.benchmarks.realtalk.protocol import RealtalkBenchmark
    from memsuite.eval.registry import definition
    from memsuite.memory_systems.registry import get_system

    system = get_system("bm25")
    started, cpu = time.perf_counter(), time.process_time()
    benchmark = RealtalkBenchmark(data)
    rows = [
        r
        for unit in benchmark.units()
        for r in benchmark.run_unit(system, unit, definition("realtalk").context(k=K, judges=()))
    ]
    return {
        "inner_s": time.perf_counter() - started,
        "cpu_s": time.process_time() - cpu,
        "questions": len(rows),
    }


def child_raw_bm25(data: Path, chats: list[int] | None) -> dict:
    import bm25s
    import numpy as np

    started, cpu = time.perf_counter(), time.process_time()
    questions = 0
    for chat in _chats(data, chats):
        texts = [m.text for m in chat.messages]
        retriever = bm25s.BM25(method="lucene")
        retriever.index(bm25s.tokenize(texts, show_progress=False), show_progress=False)
        for question in chat.questions:
            words = bm25s.tokenize([question.question], return_ids=False, show_progress=False)[0]
            query = [w for w in words if w in retriever.vocab_dict]
            scores = retriever.get_scores(query) if query else np.zeros(len(texts))
            np.argsort(-scores, kind="stable")
            questions += 1
    return {
        "inner_s": time.perf_counter() - started,
        "cpu_s": time.process_time() - cpu,
        "questions": questions,
    }


def _chats(data: Path, chats: list[int] | None):
    from memsuite.eval.benchmarks.realtalk.loader import load_chats

    return [c for c in load_chats(data) if chats is None or c.number in chats]


def _warm_embedder():
    from memsuite.memory_systems.embedder import Embedder

    embedder = Embedder()
    embedder.encode(["a warm-up sentence, encoded before the clock starts"])
    return embedder


def child_dense(data: Path, chats: list[int] | None) -> dict:
    from memsuite.baselines.dense import DenseMemory
    from memsuite.eval.benchmarks.realtalk.protocol import RealtalkBenchmark
    from memsuite.eval.registry import definition

    embedder = _warm_embedder()
    system = DenseMemory(embedder=embedder, window_tokens=WINDOW_TOKENS)
    started, cpu = time.perf_counter(), time.process_time()
    benchmark = RealtalkBenchmark(data, chats=chats)
    rows = [
        r
        for unit in benchmark.units()
        for r in benchmark.run_unit(system, unit, definition("realtalk").context(k=K, judges=()))
    ]
    usage = system.usage()
    return {
        "inner_s": time.perf_counter() - started,
        "cpu_s": time.process_time() - cpu,
        "questions": len(rows),
        "embedded_texts": usage.embedded_texts,
    }


def child_raw_encode(data: Path, chats: list[int] | None) -> dict:
    embedder = _warm_embedder()
    model, batch = embedder.model, embedder.batch_size_used
    chats = _chats(data, chats)
    started, cpu = time.perf_counter(), time.process_time()
    texts = 0
    for chat in chats:
        for group in ([m.text for m in chat.messages], [q.question for q in chat.questions]):
            model.encode(group, batch_size=batch, normalize_embeddings=True, convert_to_numpy=True)
            texts += len(group)
    return {"inner_s": time.perf_counter() - started, "cpu_s": time.process_time() - cpu, "texts": texts}


CHILDREN: dict[str, Callable[[Path, list[int] | None], dict]] = {
    "bm25": child_bm25,
    "raw_bm25": child_raw_bm25,
    "dense": child_dense,
    "raw_encode": child_raw_encode,
}


def measure(name: str, data: Path, chats: str | None) -> dict:
    """One measurement in a child process; exits if it fails."""
    load = os.getloadavg()[0]
    cmd = [sys.executable, __file__, "--_child", name, "--data", str(data)]
    cmd += ["--dense-chats", chats] if chats else []
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if proc.returncode:
        sys.exit(f"failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr[-3000:]}")
    return {**json.loads(proc.stdout.strip().splitlines()[-1]), "load": load}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data", type=Path, default=SHARED, help="the chats' folder (default: the dev chats)"
    )
    parser.add_argument("--part", default=",".join(PARTS), help=f"comma-separated: {', '.join(PARTS)}")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--dense-chats", default="4", help="chat numbers dense and raw_encode run on")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--_child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args._child:
        dense = args._child in ("dense", "raw_encode")
        chats = [int(n) for n in args.dense_chats.split(",")] if dense else None
        print(json.dumps(CHILDREN[args._child](args.data, chats)))
        return 0
    parts = [p for p in args.part.split(",") if p]
    unknown = sorted(set(parts) - set(PARTS))
    if unknown:
        parser.error(f"unknown part(s) {unknown}; known: {', '.join(PARTS)}")
    found: dict[str, list[dict]] = {p: [] for p in parts}
    for _ in range(args.repeats):
        for part in parts:
            result = measure(part, args.data, args.dense_chats)
            print(f"  {part}: {result['inner_s']:.2f} s (load {result['load']:.1f})", file=sys.stderr)
            found[part].append(result)
    figures: dict[str, dict] = {}
    for part, results in found.items():
        walls = [r["inner_s"] for r in results]
        median = results[walls.index(statistics.median_low(walls))]
        cpu = statistics.median(r["cpu_s"] for r in results)
        figures[f"{part}_s"] = {"s": statistics.median(walls), "cpu_s": cpu, "runs_s": walls, **median}
    for name, (part, peer) in {
        "bm25_vs_raw": ("bm25", "raw_bm25"),
        "dense_cold_vs_raw": ("dense", "raw_encode"),
    }.items():
        if part in found and peer in found:
            pairs = list(zip(found[part], found[peer], strict=True))
            figures[name] = {
                "ratio": statistics.median(a["inner_s"] / b["inner_s"] for a, b in pairs),
                "cpu_ratio": statistics.median(a["cpu_s"] / b["cpu_s"] for a, b in pairs),
            }
    for name, figure in figures.items():
        goal = GOALS.get(name)
        wall, cpu = (
            (figure["ratio"], figure["cpu_ratio"]) if "ratio" in figure else (figure["s"], figure["cpu_s"])
        )
        verdict = ""
        if goal is not None:
            op, bound = goal
            met = {
                kind: "met" if value <= bound else "NOT met" for kind, value in (("wall", wall), ("cpu", cpu))
            }
            verdict = f"  goal {op} {bound}: wall {met['wall']}, cpu {met['cpu']}"
        load = f" (load {figure['load']:.1f})" if "load" in figure else ""
        print(f"{name}: wall {wall:.3f}, cpu {cpu:.3f}{load}{verdict}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
