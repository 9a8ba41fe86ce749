"""The evaluation driver, shared by every benchmark: a config in, a run folder out, a report from it.

Modules, by job (the flow of a row: docs and ARCHITECTURE.md):

The run
- ``run_config``: the config's schema (:class:`RunConfig`), frozen pydantic models.
- ``config``: YAML -> a validated :class:`RunConfig`; ``--set`` overrides; shipped configs by name.
- ``config_errors``: a mistake's key path and the closest valid keys.
- ``validate``: the whole config checked against the registries before any work.
- ``preflight``: one tiny request to every configured LLM endpoint before any unit.
- ``runner``: units x systems of one benchmark, resumable, with workers.
- ``runlog``: the run folder: header, one file per finished unit, ``summary.json``.
- ``provenance``: the code that made a run; a resume by other code is refused.
- ``stopping``: Ctrl-C and SIGTERM: a clean ``interrupted`` stop.
- ``protocol``: what the runner needs from a benchmark (``Benchmark``, ``Row``, ``RunContext``).
- ``answer``: the one answer-and-judge step every protocol uses.
- ``reference``: the reference rows ``full_context`` and ``gold_evidence``.
- ``spec``: a benchmark's declaration; ``registry``: the benchmarks and their judges.

Data
- ``datasets``: the catalogue of released data; ``datasets_beam``: BEAM's checked hashes.
- ``data_cache``: where catalogue files lie, fetched and verified; ``data_cli``: ``memsuite data``.
- ``shared_data``: which data a benchmark reads (an option, the dev copy, else the catalogue).
- ``json_stream``: a released JSON array read record by record, in bounded memory.

Reading runs
- ``metrics``, ``stats``: rates and their intervals, paired differences, McNemar.
- ``diagnostics``: failure stages (encoded, maintained, retrieved, answered), shared part.
- ``compare`` (``compare_cli``): two systems question by question.
- ``show`` (``show_cli``): a run's questions as records (``load_run(...).rows``).
- ``leaderboard``: one headline per benchmark across runs.
- ``row_diff``: do two runs hold the same rows, timings aside (``perf/compare_rows.py``).
- ``plots``: PNG plots; ``report``: the report document and its tables.
- ``seeds`` (``seeds_cli``): one config over several seeds.
- ``ablation``: one swept key, one run per value, one combined report.
- ``rejudge``: stored answers judged again.

Commands and parts
- ``cli``: the ``memsuite`` command line.
- ``answer_rules``: LLM-free answer matching shared by the ``rule`` judges.
- ``oracle``: the gold-backed LLM endpoint.
- ``benchmarks``: one package per benchmark.
"""
