"""Ingest throughput of ``dense`` on the LoCoMo dev file vs raw ``SentenceTransformer.encode``.

Both encode the same texts (every turn document of the file, LoCoMo's RAG format) in the same
process with the same model: raw = one ``model.encode`` call over all of them (dense's batch size,
normalised);
dense = a fresh ``DenseMemory`` (no embedding cache) ingesting every session of every conversation
through ``ingest_session`` and then finalizing each conversation, as the LoCoMo protocol does (dense
embeds at finalize what ingestion deferred). Each is timed ``--repeats`` times,
alternating, after one untimed warm-up of each; the medians give the throughput ratio
(dense / raw, turns per second), printed with both medians as JSON.

    .venv/bin/python perf/bench_locomo.py                    # the shared dev file
    .venv/bin/python perf/bench_locomo.py --data path/to/locomo10.json --repeats 5
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memsuite.baselines.dense import DenseMemory
from memsuite.eval.benchmarks.locomo.loader import load_conversations
from memsuite.eval.benchmarks.locomo.protocol import default_data_path, to_session
from memsuite.memory_systems.embedder import Embedder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=None, help="LoCoMo file (default: the shared dev file)")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    path = args.data or default_data_path()
    conversations, _ = load_conversations(path)
    sessions = [(c.sample_id, to_session(c, s)) for c in conversations for s in c.sessions]
    texts = [document.text for _, session in sessions for document in session.documents or ()]
    embedder = Embedder()  # dense's model and batch size
    model, batch_size = embedder.model, embedder.batch_size_used

    def raw() -> float:
        started = time.perf_counter()
        model.encode(texts, batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True)
        return time.perf_counter() - started

    def dense() -> float:
        system = DenseMemory(embedder=Embedder())
        started = time.perf_counter()
        for namespace, session in sessions:
            system.ingest_session(session, namespace=namespace)
        for conversation in conversations:  # dense embeds what ingestion deferred here, as in a run
            system.finalize(namespace=conversation.sample_id)
        elapsed = time.perf_counter() - started
        assert sum(len(system.records(namespace=c.sample_id)) for c in conversations) == len(texts)
        return elapsed

    raw(), dense()  # warm-up: model load, first-call allocations
    raw_s, dense_s = [], []
    for _ in range(args.repeats):
        raw_s.append(raw())
        dense_s.append(dense())
    raw_median, dense_median = statistics.median(raw_s), statistics.median(dense_s)
    print(
        json.dumps(
            {
                "data": str(path),
                "turns": len(texts),
                "sessions": len(sessions),
                "raw_encode_s": raw_s,
                "dense_ingest_s": dense_s,
                "raw_turns_per_s": len(texts) / raw_median,
                "dense_turns_per_s": len(texts) / dense_median,
                "ratio": raw_median / dense_median,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
