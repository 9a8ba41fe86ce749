"""Encode time by batch size: texts of one call against texts split into per-question calls.

The texts are the distinct LongMemEval user turns of the first ``--per-type`` questions of each
type, in question order; per-question calls are what a run makes (each question's new documents
are encoded when it is asked), one call is what a raw ``SentenceTransformer.encode`` peer makes.
Each batch is padded to its longest text, so the batch size decides how much padding is computed:
this shows the cost on a device. Median of ``--repeats`` runs.

    .venv/bin/python perf/bench_embed_batch.py --per-type 2 --batch-sizes 8,16,32,64

``--dump-calls FILE`` writes the per-question calls (one JSON list of texts per line) and stops, so a
machine without the data file (a GPU box) can be handed them with ``--calls FILE``:

    python3 perf/bench_embed_batch.py --calls calls.jsonl --device cuda --batch-sizes 16,64,128,512
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_longmemeval import DEFAULT_DATA, question_documents  # the sibling script's helpers


def read_calls(path: Path) -> list[list[str]]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--data", type=Path, default=DEFAULT_DATA, help="a LongMemEval S file")
    source.add_argument("--calls", type=Path, help="per-question calls written by --dump-calls")
    parser.add_argument("--per-type", type=int, default=2, help="first N questions of each type")
    parser.add_argument("--granularity", choices=("session", "turn"), default="turn")
    parser.add_argument("--batch-sizes", default="8,16,32,64", help="joined by commas")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--device", default="auto", help="auto | cpu | cuda[:N], as the embedder takes")
    parser.add_argument("--model", help="sentence-transformers folder (default: the packaged MiniLM)")
    parser.add_argument("--dump-calls", type=Path, help="write the per-question calls here and stop")
    args = parser.parse_args()
    if args.calls:
        calls = read_calls(args.calls)
    else:
        calls = question_documents(args.data, args.per_type, args.granularity)
    if args.dump_calls:
        with open(args.dump_calls, "w", encoding="utf-8") as fh:
            fh.writelines(json.dumps(call) + "\n" for call in calls)
        print(f"wrote {len(calls)} calls to {args.dump_calls}", file=sys.stderr)
        return
    from memsuite.memory_systems.embedder import Embedder

    texts = [text for call in calls for text in call]
    embedder = Embedder(args.model, device=args.device)
    model = embedder.model
    model.encode(texts[:64], batch_size=16)  # warm up
    print(
        f"{len(texts)} texts in {len(calls)} per-question calls, device {embedder.device_used} "
        f"(default batch size there: {embedder.batch_size_used})"
    )
    print(f"{'batch':>5s} {'one call (s)':>13s} {'per question (s)':>17s}")
    for batch_size in (int(b) for b in args.batch_sizes.split(",")):
        timings: dict[str, list[float]] = {"one": [], "per_question": []}
        for rep in range(args.repeats):
            shapes = (("one", [texts]), ("per_question", calls))
            for shape, groups in shapes if rep % 2 == 0 else shapes[::-1]:
                started = time.perf_counter()
                for group in groups:
                    model.encode(group, batch_size=batch_size, normalize_embeddings=True)
                timings[shape].append(time.perf_counter() - started)
        one, per_question = (statistics.median(timings[s]) for s in ("one", "per_question"))
        print(f"{batch_size:5d} {one:13.2f} {per_question:17.2f}", flush=True)


if __name__ == "__main__":
    main()
