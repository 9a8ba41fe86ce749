"""Dense ingest against raw ``SentenceTransformer.encode`` on the same texts, on any device.

The ingest side is what a run does: ``DenseMemory.store`` of the texts, then the first search, which
embeds everything stored (embedding is deferred to it) and adds it to the faiss index. The raw side is
one ``model.encode`` call over the same texts with the same batch size (the embedder's default for the
device unless ``--batch-size`` names one). Each repeat gives both sides
fresh texts (a suffix per repeat and side, so no cache can help) and alternates which side goes
first. The figure is the median ingest rate over the median raw rate, target 0.9 on CPU and 0.8 on a
GPU. It also times a dense search per query over the ingested texts, and its two parts apart: the
query's encode on the device, and the exact faiss search (always on the CPU) of that vector.

    .venv/bin/python perf/bench_embed_device.py --limit 2000 \
        --data ../shared/data/longmemeval/longmemeval_s_cleaned.dev.json.gz
    .venv/bin/python perf/bench_embed_device.py --turns turns.jsonl --device cuda --batch-size 512

``--dump-turns FILE`` writes the user turns it would use (one JSON string per line), so a machine
without the data file can be handed a sample.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

TARGETS = {"cpu": 0.9, "cuda": 0.8}


def user_turns(data: Path, limit: int) -> list[str]:
    """Distinct non-blank user turns of a LongMemEval file, in file order, at most ``limit``."""
    from memsuite.eval.benchmarks.longmemeval.loader import LmeFile

    file = LmeFile(data)
    seen: dict[str, None] = {}
    for question_id in file.ids:
        for session in file.question(question_id).sessions:
            for turn in session.turns:
                if turn.role == "user" and turn.content.strip():
                    seen.setdefault(turn.content)
                    if len(seen) >= limit:
                        return list(seen)
    return list(seen)


def read_turns(path: Path, limit: int) -> list[str]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line, _ in zip(fh, range(limit), strict=False)]


def measure(
    texts: list[str], model_path: str | None, device: str, batch_size: int | None, repeats: int
) -> dict[str, float | str | int]:
    from memsuite.baselines.dense import DenseMemory
    from memsuite.memory_systems.embedder import Embedder

    def embedder() -> Embedder:
        return Embedder(model_path, device=device, batch_size=batch_size)

    model = embedder().model
    batch_size = embedder().batch_size_used  # the request, else the device's default
    model.encode(texts[:batch_size], batch_size=batch_size)  # warm up kernels and allocator
    # One window per text, as raw encode sees it: the window is longer than any text and its suffix
    # (a text of at most that many bytes never needs a token count).
    window = max(len(t.encode("utf-8")) for t in texts) + 64
    raw_rates, ingest_rates = [], []

    def time_raw(batch: list[str]) -> None:
        started = time.perf_counter()
        model.encode(batch, batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True)
        raw_rates.append(len(batch) / (time.perf_counter() - started))

    def time_ingest(batch: list[str]) -> None:
        memory = DenseMemory(embedder=embedder(), window_tokens=window, window_overlap=0)
        started = time.perf_counter()
        memory.store(batch)
        memory.search("what did I say about my plans", k=5)
        ingest_rates.append(len(batch) / (time.perf_counter() - started))
        # Every stored text encoded once, and the query.
        assert memory.embedder.usage.embedded_texts == len(set(batch)) + 1

    for rep in range(repeats):
        first, second = (time_raw, time_ingest) if rep % 2 == 0 else (time_ingest, time_raw)
        first([f"{t} ({rep}a)" for t in texts])
        second([f"{t} ({rep}b)" for t in texts])

    memory = DenseMemory(embedder=embedder(), window_tokens=window, window_overlap=0)
    memory.store(texts)
    memory.search("warm up", k=5)
    queries = texts[:: max(1, len(texts) // 200)][:200]
    search_ms, encode_ms, index_ms = [], [], []
    for query in queries:
        started = time.perf_counter()
        memory.search(query, k=10)
        search_ms.append((time.perf_counter() - started) * 1000)
    # The parts apart, on dense's own embedder (no cache: every query is encoded) and its own index.
    index = memory._indexes["default"]
    for query in queries:
        started = time.perf_counter()
        vector = memory.embedder.encode([query])
        encode_ms.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        index.search(vector, k=10)
        index_ms.append((time.perf_counter() - started) * 1000)
    used = embedder().device_used
    return {
        "device": used,
        "texts": len(texts),
        "batch_size": batch_size,
        "repeats": repeats,
        "raw_encode_texts_per_s": statistics.median(raw_rates),
        "dense_ingest_texts_per_s": statistics.median(ingest_rates),
        "ingest_vs_raw": statistics.median(ingest_rates) / statistics.median(raw_rates),
        "target": TARGETS[used.partition(":")[0]],
        "dense_search_p50_ms": statistics.median(search_ms),
        "query_encode_p50_ms": statistics.median(encode_ms),
        "index_search_p50_ms": statistics.median(index_ms),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--data", type=Path, help="a LongMemEval file (.json or .json.gz)")
    source.add_argument("--turns", type=Path, help="one JSON string per line")
    parser.add_argument("--limit", type=int, default=4000, help="texts to use")
    parser.add_argument("--model", help="sentence-transformers folder (default: the packaged MiniLM)")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--batch-size", type=int, help="default: the embedder's default for the device")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--dump-turns", type=Path, help="write the turns here and stop")
    args = parser.parse_args()
    texts = user_turns(args.data, args.limit) if args.data else read_turns(args.turns, args.limit)
    if args.dump_turns:
        with open(args.dump_turns, "w", encoding="utf-8") as fh:
            fh.writelines(json.dumps(t) + "\n" for t in texts)
        print(f"wrote {len(texts)} turns to {args.dump_turns}", file=sys.stderr)
        return
    figures = measure(texts, args.model, args.device, args.batch_size, args.repeats)
    ok = figures["ingest_vs_raw"] >= figures["target"]
    print(json.dumps(figures))
    print(
        f"{figures['device']}: dense ingest {figures['dense_ingest_texts_per_s']:.0f} texts/s, raw encode "
        f"{figures['raw_encode_texts_per_s']:.0f} texts/s, ratio {figures['ingest_vs_raw']:.3f} "
        f"(target >= {figures['target']}: {'OK' if ok else 'MISSED'}); dense search p50 "
        f"{figures['dense_search_p50_ms']:.2f} ms over {figures['texts']} texts (its parts: query encode "
        f"{figures['query_encode_p50_ms']:.2f} ms, exact index search "
        f"{figures['index_search_p50_ms']:.3f} ms)"
    )


if __name__ == "__main__":
    main()
