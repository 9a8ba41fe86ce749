"""One package per benchmark, holding everything about it; nothing outside a benchmark's package names it,
and no benchmark's package imports another's (what two share lives in :mod:`memsuite.eval.retrieval_qa`).

- ``meme``: MEME, six tasks asked before and after an upstream change (generated or released episodes).
- ``wmb``: WMB-100K v2.1, situational retrieval over ~105K turns with false-memory probes.
- ``dynamicmem``: DynamicMem, 15 months of app activity per user asked at quarterly checkpoints.
- ``locomo``: LoCoMo, long two-speaker conversations; the audited answer key and category 5.
- ``longmemeval``: LongMemEval, one haystack per question; the official retrieval metrics.
- ``beam``: BEAM, conversations of 128K to 10M tokens with probing questions per memory ability.
- ``realtalk``: REALTALK, 21 days of real human chat; cited evidence messages scored per category.
- ``lifebench``: LifeBench, a year of a person's phone records; questions asked in time cite records.

A package's parts: ``__init__.py`` (its ``@benchmark`` declaration), ``schema.py`` and ``loader.py`` (data),
``catalogue.py`` (its data option and catalogue entries), ``generator/`` (synthetic data, where there is
one), ``protocol.py`` (drives a system through a unit and yields rows), ``judges`` (a module, or a package
with one module per judge and the ``JUDGES`` map in its ``__init__.py``), ``scoring.py`` (the summaries),
``diagnostics.py`` (failure stages), ``report.py`` (its tables and plots, and its per-question outcomes for
``memsuite compare``), ``commands.py`` (``generate`` / ``calibrate``), ``paper.py`` (the paper's published
numbers), ``oracle_gold.py`` (what the oracle endpoint knows of a unit) and ``rejudge.py`` (its questions
for ``memsuite rejudge``). Each benchmark's page is ``docs/benchmarks/<name>.md``.
"""
