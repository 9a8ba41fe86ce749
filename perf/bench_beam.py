"""BEAM figures: retrieval-only runs over the dev conversations (time, peak memory) beside raw peers, and
a generated 10M-shaped conversation streamed into bm25.

Every measurement runs in its own child process, reaped with ``os.wait4``, so each peak RSS belongs to
that measurement alone; each is repeated ``--repeats`` times (default 3) and the median is the figure.
The machine may be shared: every figure carries the 1-minute load average at its start and end (the
median's repeat), and CPU seconds beside wall seconds show how much of the wall time the child got.

- ``bm25``: ``memsuite run`` retrieval only (``judges: []``, no LLM) of bm25 over ``--data`` (default
  the shared 500K dev set, 28 conversations, 560 questions), one document per message. Peer
  ``raw_bm25``: ``bm25s`` called directly (``bm25s.tokenize``, ``BM25(method="lucene")``,
  ``get_scores`` of every message for every question) over the same messages, the messages read with
  memsuite's loader; the ratio is the run's overhead over the library.
- ``dense``: ``memsuite run`` of dense over ``--dense-chats`` (default 500K/6, the smallest 500K
  conversation: dense encodes every message, 2,981 windows of 200 tokens there, ~3,000 per 500K
  conversation, minutes each on 2 cores, so the whole set is out of reach three times over), COLD with
  a fresh empty ``--cache-dir``, then WARM with that cache filled (a fresh ``--out``, nothing resumed),
  then the peer ``raw``: one ``SentenceTransformer.encode`` (dense's model and batch size, normalised)
  of exactly the texts dense encodes there -- every non-blank message through ``DenseMemory``'s own
  windowing (200 tokens, overlap 40), each distinct window once (the content-hash cache encodes a
  window once per run), timed after a warm-up batch. The three are taken in turn within each repeat,
  so a change of load falls on all of them. Gives dense cold / raw.
- ``warm_all``: dense WARM over the whole ``--data``: a cold pass over 28 conversations (~85,000
  windows) takes over an hour on 2 cores, so the cache is filled beforehand with a placeholder unit
  vector under the key of every window and question dense will ask for (what a cold run would have
  stored; a warm run reads vectors without looking at their values, and its rankings are not scored).
- ``10m``: writes a 10M-shaped conversation (``plan-<k>/chat.json`` parts, one per source conversation
  of the dev set, ids renumbered, until ``--10m-messages`` messages; the probing questions of the first
  source, whose ids are kept) to a temporary folder, then times ``memsuite run`` of bm25 over it (the
  loader checks it streaming, then the unit streams it into bm25 and asks its 20 questions).

    .venv/bin/python perf/bench_beam.py                           # every part, 3 repeats
    .venv/bin/python perf/bench_beam.py --part bm25,raw_bm25
    .venv/bin/python perf/bench_beam.py --part dense --dense-chats 500K/6,500K/9 --repeats 3
    .venv/bin/python perf/bench_beam.py --part warm_all          # dense warm over the whole 500K set
    .venv/bin/python perf/bench_beam.py --part 10m --10m-messages 20000 --json 10m.json
    .venv/bin/python perf/bench_beam.py --data ../shared/data/beam --dense-chats 1M/9 \
        --dump-windows texts.jsonl     # dense's windows of one conversation (for bench_embed_device.py)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("MEMSUITE_SHARED_DATA", ROOT.parent / "shared/data")) / "beam"
DEFAULT_DENSE_CHATS = "500K/6"
WINDOW_TOKENS, WINDOW_OVERLAP = 200, 40
#: Goals by figure name.
GOALS = {
    "bm25_s": ("<=", 60),
    "dense_cold_vs_raw": ("<=", 1.3),
    "dense_warm_s": ("<=", 60),
    "dense_warm_all_s": ("<=", 60),
    "10m_peak_rss_gib": ("<=", 2),
}


def load() -> float:
    return os.getloadavg()[0]


def run_measured(cmd: list[str]) -> dict:
    """Wall and CPU seconds, peak RSS (GiB), load averages and output of ``cmd`` run as a child; exits
    if it fails."""
    with tempfile.TemporaryFile() as out:
        before = load()
        started = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, cwd=ROOT)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        code = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
    if code:
        sys.exit(f"failed ({code}): {' '.join(cmd)}\n{text[-3000:]}")
    return {
        "wall_s": wall,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "peak_rss_gib": usage.ru_maxrss / 2**20,  # Linux reports KiB
        "load": (before, load()),
        "output": text,
    }


def repeated(name: str, repeats: int, measure: Callable[[int], dict], figures: dict) -> None:
    """Median of ``repeats`` measurements as ``figures[name]`` (with its load averages and the spread)."""
    interleaved({name: measure}, repeats, figures)


def interleaved(measures: dict[str, Callable[[int], dict]], repeats: int, figures: dict) -> None:
    """Each measurement's median of ``repeats`` as ``figures[name]``, the measurements taken in turn
    within each repeat (cold, warm, raw, cold, ...) so that a change of load falls on all of them."""
    results: dict[str, list[dict]] = {name: [] for name in measures}
    for rep in range(repeats):
        for name, measure in measures.items():
            result = measure(rep)
            print(f"  {name}: {result['wall_s']:.1f} s (load {result['load'][0]:.1f})", file=sys.stderr)
            results[name].append(result)
    for name, found in results.items():
        walls = [r["wall_s"] for r in found]
        median = found[walls.index(statistics.median_low(walls))]
        figures[name] = {
            "s": statistics.median(walls),
            "runs_s": walls,
            "cpu_s": median["cpu_s"],
            "peak_rss_gib": max(r["peak_rss_gib"] for r in found),
            "load": median["load"],
            **{
                k: v
                for k, v in median.items()
                if k not in ("wall_s", "cpu_s", "peak_rss_gib", "load", "output")
            },
        }


def memsuite_run(system: str, data: Path, out: Path, cache: Path, chats: list[str] | None) -> list[str]:
    cmd = [str(Path(sys.executable).parent / "memsuite"), "run", "beam_quick", "--out", str(out)]
    cmd += ["--cache-dir", str(cache), "--quiet", "--set", f"systems=[{system}]", "--set", "judges=[]"]
    cmd += ["--set", f"benchmark_options.data={data}", "--set", "benchmark_options.granularity=message"]
    return [*cmd, "--set", f"benchmark_options.chats={json.dumps(chats) if chats else 'null'}"]


def child(args: argparse.Namespace, name: str, *extra: str) -> list[str]:
    return [sys.executable, __file__, "--_child", name, "--data", str(args.data), *extra]


def part_bm25(args: argparse.Namespace, figures: dict) -> None:
    def measure(rep: int) -> dict:
        with tempfile.TemporaryDirectory(prefix="bench-beam-") as folder:
            return run_measured(
                memsuite_run("bm25", args.data, Path(folder) / "run", Path(folder) / "c", None)
            )

    repeated("bm25_s", args.repeats, measure, figures)


def conversations(data: Path, chats: list[str] | None):
    from memsuite.eval.benchmarks.beam.loader import BeamData

    return BeamData(data, chats=chats).conversations.values()


def child_raw_bm25(args: argparse.Namespace) -> dict:
    import bm25s
    import numpy as np

    started = time.perf_counter()
    questions = 0
    for conversation in conversations(args.data, None):
        texts = [m.content for m in conversation.messages()]
        retriever = bm25s.BM25(method="lucene")
        retriever.index(bm25s.tokenize(texts, show_progress=False), show_progress=False)
        for question in conversation.questions:
            words = bm25s.tokenize([question.question], return_ids=False, show_progress=False)[0]
            query = [w for w in words if w in retriever.vocab_dict]
            scores = retriever.get_scores(query) if query else np.zeros(len(texts))
            np.argsort(-scores, kind="stable")  # the ranking of every message
            questions += 1
    return {"questions": questions, "inner_s": time.perf_counter() - started}


def part_raw_bm25(args: argparse.Namespace, figures: dict) -> None:
    def measure(rep: int) -> dict:
        result = run_measured(child(args, "raw_bm25"))
        return result | json.loads(result["output"].strip().splitlines()[-1])

    repeated("raw_bm25_s", args.repeats, measure, figures)


def dense_windows(data: Path, chats: list[str]) -> list[str]:
    """The distinct windows dense encodes for the conversations, in first-seen order: each
    conversation's non-blank messages through ``DenseMemory``'s own windowing (its embedder replaced
    by one that keeps the texts it is asked to encode)."""
    import numpy as np

    from memsuite.baselines.dense import DenseMemory

    asked: dict[str, None] = {}

    class Keep:
        def encode(self, texts: list[str]) -> np.ndarray:
            asked.update(dict.fromkeys(texts))
            return np.zeros((len(texts), 1), dtype=np.float32)

    memory = DenseMemory(window_tokens=WINDOW_TOKENS, window_overlap=WINDOW_OVERLAP)
    memory.embedder = Keep()
    for conversation in conversations(data, chats):
        memory._embed_windows([m.content for m in conversation.messages() if m.content.strip()])
    return list(asked)


def raw_encode(texts: list[str]) -> dict:
    """One ``SentenceTransformer.encode`` of ``texts`` with dense's model and batch size, normalised,
    timed after a warm-up batch: the peer a dense run's encoding is compared with."""
    from memsuite.memory_systems.embedder import Embedder

    embedder = Embedder()  # the model and batch size dense uses by default
    model, batch_size = embedder.model, embedder.batch_size_used
    model.encode(texts[:batch_size], batch_size=batch_size)  # warm up
    started = time.perf_counter()
    model.encode(texts, batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True)
    return {"texts": len(texts), "batch_size": batch_size, "encode_s": time.perf_counter() - started}


def child_raw(args: argparse.Namespace) -> dict:
    return raw_encode(dense_windows(args.data, args.dense_chats))


def measure_raw(args: argparse.Namespace, rep: int) -> dict:
    result = run_measured(child(args, "raw", "--dense-chats", ",".join(args.dense_chats)))
    found = json.loads(result["output"].strip().splitlines()[-1])
    return result | found | {"wall_s": found["encode_s"]}  # the figure is the encode alone


def part_raw(args: argparse.Namespace, figures: dict) -> None:
    repeated("raw_encode_s", args.repeats, lambda rep: measure_raw(args, rep), figures)


def part_dense(args: argparse.Namespace, figures: dict) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-beam-dense-") as folder:
        caches = [Path(folder) / f"cache-{rep}" for rep in range(args.repeats)]

        def cold(rep: int) -> dict:
            return run_measured(
                memsuite_run("dense", args.data, Path(folder) / f"cold-{rep}", caches[rep], args.dense_chats)
            )

        def warm(rep: int) -> dict:
            return run_measured(
                memsuite_run("dense", args.data, Path(folder) / f"warm-{rep}", caches[rep], args.dense_chats)
            )

        measures = {"dense_cold_s": cold, "dense_warm_s": warm}
        if "raw" not in args.parts:  # the peer taken in turn with the runs
            measures["raw_encode_s"] = lambda rep: measure_raw(args, rep)
        interleaved(measures, args.repeats, figures)
    figures["dense_chats"] = ",".join(args.dense_chats)


def prefill_cache(data: Path, cache: Path) -> int:
    """Fill a run's embedding cache (``cache/embeddings``, as ``memsuite run --cache-dir cache`` opens it)
    with a placeholder unit vector for every window dense encodes over ``data`` and every question;
    the number of vectors. A warm run's work does not depend on the vectors' values."""
    import numpy as np

    from memsuite.memory_systems.embedder import Embedder, text_key

    texts = dense_windows(data, None)
    texts += [q.question for c in conversations(data, None) for q in c.questions]
    embedder = Embedder(cache_dir=cache / "embeddings")
    vectors = np.random.default_rng(0).standard_normal((len(texts), embedder.dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    embedder._disk_cache().put_many([text_key(t) for t in texts], vectors)
    return len(texts)


def part_warm_all(args: argparse.Namespace, figures: dict) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-beam-warm-") as folder:
        cache = Path(folder) / "cache"
        # In a child: this process stays small, as every child forked from it starts at its size.
        prefilled = run_measured(child(args, "prefill", "--cache", str(cache)))
        figures["warm_all_cached_texts"] = json.loads(prefilled["output"].strip().splitlines()[-1])["texts"]
        figures["warm_all_prefill_s"] = prefilled["wall_s"]

        def warm(rep: int) -> dict:
            run = Path(folder) / f"warm-{rep}"
            result = run_measured(memsuite_run("dense", args.data, run, cache, None))
            encoded = json.loads((run / "summary.json").read_text())["dense"]["usage"]["embedded_texts"]
            if encoded:
                sys.exit(f"{run}: {encoded} texts encoded; a warm run encodes none")
            return result

        repeated("dense_warm_all_s", args.repeats, warm, figures)


def write_10m(data: Path, target: Path, messages: int) -> dict:
    """A 10M-shaped conversation folder: ``plan-<k>/chat.json`` parts, one per source conversation (1M
    first, then 500K, then 128K, again from the start until ``messages``), ids renumbered after the
    first part (whose ids, and so its probing questions, are kept)."""
    from memsuite.eval.benchmarks.beam.loader import BeamData
    from memsuite.eval.data.json_stream import iter_raw_records

    sources = []
    for scale in ("1M", "500K", "100K"):
        if (data / scale).is_dir():
            sources += BeamData(data / scale).conversations.values()
    written, part, batch_number, next_id, chars = 0, 0, 0, 0, 0
    while written < messages:
        conversation = sources[part % len(sources)]
        part += 1
        folder = target / f"plan-{part}"
        folder.mkdir(parents=True)
        with open(folder / "chat.json", "w", encoding="utf-8") as fh:
            fh.write("[")
            for path in conversation.chat_files:
                for _, _, _, batch in iter_raw_records(path):
                    batch_number += 1
                    for turn in batch["turns"]:
                        for message in turn:
                            if part == 1:  # ids kept: the questions name them
                                next_id = max(next_id, int(message["id"]) + 1)
                            else:
                                message["id"], next_id = next_id, next_id + 1
                            chars += len(message["content"])
                            written += 1
                    fh.write(
                        ("," if fh.tell() > 1 else "") + json.dumps(dict(batch, batch_number=batch_number))
                    )
            fh.write("]")
        if part == 1:
            (target / "probing_questions").mkdir()
            shutil.copy(conversation.questions_file, target / "probing_questions" / "probing_questions.json")
    return {"parts": part, "messages": written, "chars": chars}


def part_10m(args: argparse.Namespace, figures: dict) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-beam-10m-") as folder:
        conversation = Path(folder) / "10M" / "1"
        shape = write_10m(
            args.data.parent if args.data.name in ("500K", "1M", "100K") else args.data,
            conversation,
            args.messages_10m,
        )
        size = sum(p.stat().st_size for p in conversation.rglob("*") if p.is_file())
        print(
            f"  wrote {shape['parts']} parts, {shape['messages']} messages, {size / 2**20:.0f} MiB",
            file=sys.stderr,
        )

        def measure(rep: int) -> dict:
            run = Path(folder) / f"run-{rep}"
            result = run_measured(memsuite_run("bm25", conversation, run, Path(folder) / "c", None))
            rows = [json.loads(line) for line in (run / "rows.jsonl").open(encoding="utf-8")]
            ranked = [r for r in rows if len(r["metadata"]["ranking"]) == shape["messages"]]
            if len(ranked) != len(rows) or len(rows) != 20:
                sys.exit(f"{run}: expected 20 questions each ranking {shape['messages']} messages")
            return result

        repeated("10m_s", args.repeats, measure, figures)
    figures["10m_peak_rss_gib"] = figures["10m_s"]["peak_rss_gib"]
    figures["10m_shape"] = shape | {"mib": size / 2**20, "tokens_estimate": shape["chars"] // 4}


def verdict(key: str, value: float) -> str:
    goal = GOALS.get(key)
    if goal is None:
        return ""
    ok = value <= goal[1] if goal[0] == "<=" else value >= goal[1]
    return f"{goal[0]} {goal[1]}  {'OK' if ok else 'MISSED'}"


def show(figures: dict) -> None:
    print(f"{'figure':24s} {'value':>10s}  {'load (start, end)':18s} goal")
    for key, value in figures.items():
        if isinstance(value, dict) and "s" in value:
            loads = f"{value['load'][0]:.1f}, {value['load'][1]:.1f}"
            extra = (
                f"  (runs {', '.join(f'{s:.1f}' for s in value['runs_s'])}; cpu {value['cpu_s']:.0f} s; "
                f"peak {value['peak_rss_gib']:.2f} GiB)"
            )
            print(f"{key:24s} {value['s']:10.2f}  {loads:18s} {verdict(key, value['s'])}{extra}")
        elif isinstance(value, float):
            print(f"{key:24s} {value:10.3f}  {'':18s} {verdict(key, value)}")
        else:
            print(f"{key:24s} {value!s:>10s}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data", type=Path, default=SHARED / "500K", help="BEAM conversations (bm25, raw_bm25)"
    )
    parser.add_argument(
        "--part", default="all", help="bm25, raw_bm25, dense, raw, warm_all, 10m or all, joined by commas"
    )
    parser.add_argument("--dense-chats", default=DEFAULT_DENSE_CHATS, help="conversations of dense and raw")
    parser.add_argument("--10m-messages", dest="messages_10m", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument(
        "--dump-windows", type=Path, help="write dense's windows of --dense-chats here and stop"
    )
    parser.add_argument("--_child", choices=["raw", "raw_bm25", "prefill"], help=argparse.SUPPRESS)
    parser.add_argument("--cache", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.dense_chats = args.dense_chats.split(",")
    if args._child:
        children = {
            "raw": child_raw,
            "raw_bm25": child_raw_bm25,
            "prefill": lambda args: {"texts": prefill_cache(args.data, args.cache)},
        }
        print(json.dumps(children[args._child](args)))
        return
    if args.dump_windows:
        windows = dense_windows(args.data, args.dense_chats)
        with open(args.dump_windows, "w", encoding="utf-8") as fh:
            fh.writelines(json.dumps(w) + "\n" for w in windows)
        print(f"wrote {len(windows)} windows of {', '.join(args.dense_chats)} to {args.dump_windows}")
        return
    if not args.data.is_dir():
        sys.exit(
            f"{args.data}: not a folder (--data: BEAM conversations, e.g. $MEMSUITE_SHARED_DATA/beam/500K)"
        )
    conversations(args.data, None)  # a malformed file fails here, before any run
    parts = {
        "bm25": part_bm25,
        "raw_bm25": part_raw_bm25,
        "dense": part_dense,
        "raw": part_raw,
        "warm_all": part_warm_all,
        "10m": part_10m,
    }
    chosen = [p for p in parts if p != "raw"] if args.part == "all" else args.part.split(",")
    args.parts = chosen
    if not set(chosen) <= set(parts):
        sys.exit(f"--part: choose from {', '.join(parts)}, all; got {args.part!r}")
    figures: dict = {"data": str(args.data), "repeats": args.repeats}
    for name in chosen:
        print(f"part {name}", file=sys.stderr)
        parts[name](args, figures)
    if "bm25_s" in figures and "raw_bm25_s" in figures:
        figures["bm25_vs_raw_bm25"] = figures["bm25_s"]["s"] / figures["raw_bm25_s"]["s"]
    if "dense_cold_s" in figures and "raw_encode_s" in figures:
        figures["dense_cold_vs_raw"] = figures["dense_cold_s"]["s"] / figures["raw_encode_s"]["s"]
    show(figures)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
