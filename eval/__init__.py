"""The evaluation driver, shared by every benchmark: a config in, a run folder out, a report from it.

Packages and modules, in the order a row flows (ARCHITECTURE.md):

- ``run``: a run: its config, validation, the runner, the run folder, provenance, stopping, seeds.
- ``data``: the benchmarks' real data: catalogue, cache, shared development copies, streaming.
- ``protocol``: what the runner needs from a benchmark (``Benchmark``, ``Row``, ``RunContext``), the
  judges it hands down (``Judge``) and the scores (``Scores``).
- ``summary``: a run's ``summary.json`` as typed data, beside the scores it holds.
- ``hooks``: the other parts a definition hands the driver (compare outcomes, rejudge formats and
  questions).
- ``budget``: the run's context budget: what every system hands over, cut in its rank order.
- ``answer``: the one answer-and-judge step every protocol uses.
- ``reference``: the reference rows ``full_context`` and ``gold_evidence``.
- ``definition``: a benchmark's parts and its judges' needs.
- ``registry``: the ``@benchmark`` declarations.
- ``benchmarks``: one package per benchmark.
- ``retrieval_qa``: what the benchmarks that rank documents and answer from a retrieved context share:
  the per-question step, shared judges, summaries and the published-scores table.
- ``answer_rules``: LLM-free answer matching shared by the ``rule`` judges.
- ``oracle``: the gold-backed LLM endpoint.
- ``analysis``: reading runs: rates, intervals, failure stages, comparisons, records, plots.
- ``report``: the report document and its tables.
- ``rejudge``: stored answers judged again.
- ``study``: studies of several runs (seeds, ablations), above the runner and the report.
- ``cli``: the ``memsuite`` command line.
"""
