"""Reports from run folders: each benchmark's paper tables (Markdown and CSV) and plots (PNG).

A report reads only run folders (``run.json``, ``summary.json``, ``rows.jsonl``, ``units.jsonl``):
never a memory system, a model or a dataset, so a copied folder renders the same report. Tables are
plain data (:class:`Table`) rendered by :func:`table_markdown` and :func:`table_csv`; figures are
deferred calls into :mod:`memsuite.eval.analysis.plots`.

Every report labels what produced its numbers: the runs table names the answer LLM, the internal
LLM, the judges and the data source (generated or official) of each run, each score table names its
judge, and published numbers sit beside ours with the paper's own setup in the notes.

Each benchmark contributes one renderer, in its own package (``eval/benchmarks/<name>/report.py``),
named by its definition (``BenchmarkDefinition.report``): a function ``(runs, options) -> Section`` over the
runs of that benchmark. A benchmark without one gets :func:`render_generic` (its summary's numbers,
flattened); a table with no rows is not printed (neither in Markdown nor as CSV). ``options.sweep`` is
set for an ablation (:mod:`memsuite.eval.study.ablation`): the runs are its variants in sweep order, and
renderers add sweep curves.

Context goes in every section too: the tokens each system handed over per question (mean, p50, p95)
in its usage table, a warning above its tables when systems were handed more than 2x different amounts,
and, for an ablation, each system's verdict rate against its mean context tokens (:mod:`.context`).

Cost and usage go in every section: LLM calls, tokens, cost under a :class:`PriceTable` (tokens x
the price of the model named in the run header's ``answer_llm`` / ``internal_llm`` identity), and
ingest / query wall time from each system's usage in ``summary.json``.

Every rate says what it left out: a cell whose rows include failed LLM calls shows how many
("0.50 (2 left out)"), and a cell whose questions were asked of a memory holding at most k items is
marked (the context was the whole memory); :mod:`.caveats` has the shared marks and notes.

Modules: :mod:`.runs` (a run's labels: LLMs, judges, data source; the runs table), :mod:`.tables` (a
table as Markdown or CSV), :mod:`.kit` (the helpers renderers share: percentages, judge order, rates with
intervals, ranking metrics), :mod:`.model` (tables, figures, sections, the report), :mod:`.usage` (usage
and cost), :mod:`.context` (context tokens, the like-for-like warning, rate against context),
:mod:`.layout` (helpers for renderers: run column, stage tables), :mod:`.caveats` (left-out and
whole-memory marks), :mod:`.document` (building and writing). Import from those modules
(``memsuite.build_report`` and ``memsuite.write_report`` are :mod:`.document`'s); this package imports
none of them, since the analysis builds on its tables while the document builds on the analysis.
"""
