"""What the benchmarks that rank a unit's documents and answer questions from a retrieved context share
(LoCoMo, LongMemEval, BEAM, REALTALK): the per-question step, the judges two of them use, the summaries
and the published-scores table. No benchmark package imports another's; what two need lives here.

- ``step``: the per-question step: announce the questions, rank, retrieve, cut, answer, judge, row.
- ``evidence``: the LLM-free evidence verdict of a ranking (recall_any, recall_all, evidence_recall).
- ``categories``: the question categories LoCoMo numbered and REALTALK reuses.
- ``category_f1``: LoCoMo's per-category token F1 (REALTALK's lexical score) and evidence recall.
- ``category_rule``: the LLM-free ``rule`` judge of those categories.
- ``adversarial``: category 5's rule and its multiple-choice format.
- ``scores``: the retrieval averages and a judge's scores, overall and per a benchmark's groups.
- ``published``: a benchmark's published answer scores as a report table.
"""
