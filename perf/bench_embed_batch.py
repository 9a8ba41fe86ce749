"""Encode time by batch size: texts of one call against texts split into per-question calls.

The texts are the distinct LongMemEval user turns of the first ``--per-type`` questions of each
type, in question order; per-question calls are what a run makes (each question's new documents
are encoded when it is asked), one call is what a raw ``SentenceTransformer.encode`` peer makes.
Each batch is padded to its longest text, so the batch size decides how much padding is computed:
this shows the cost on the device the default embedder uses. Median of ``--repeats`` runs.

    .venv/bin/python perf/bench_embed_batch.py --per-type 2 --batch-sizes 8,16,32,64
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_longmemeval import DEFAULT_DATA, question_documents  # the sibling script's helpers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="a LongMemEval S file")
    parser.add_argument("--per-type", type=int, default=2, help="first N questions of each type")
    parser.add_argument("--granularity", choices=("session", "turn"), default="turn")
    parser.add_argument("--batch-sizes", default="8,16,32,64", help="joined by commas")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    from memsuite.memory_systems.embedder import Embedder

    calls = question_documents(args.data, args.per_type, args.granularity)
    texts = [text for call in calls for text in call]
    embedder = Embedder()
    model = embedder.model
    model.encode(texts[:64], batch_size=16)  # warm up
    print(f"{len(texts)} texts in {len(calls)} per-question calls, device {embedder.device_used}")
    print(f"{'batch':>5s} {'one call (s)':>13s} {'per question (s)':>17s}")
    for batch_size in (int(b) for b in args.batch_sizes.split(",")):
        timings: dict[str, list[float]] = {"one": [], "per_question": []}
        for _ in range(args.repeats):
            for shape, groups in (("one", [texts]), ("per_question", calls)):
                started = time.perf_counter()
                for group in groups:
                    model.encode(group, batch_size=batch_size, normalize_embeddings=True)
                timings[shape].append(time.perf_counter() - started)
        one, per_question = (statistics.median(timings[s]) for s in ("one", "per_question"))
        print(f"{batch_size:5d} {one:13.1f} {per_question:17.1f}")


if __name__ == "__main__":
    main()
