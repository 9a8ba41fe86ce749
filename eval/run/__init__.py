"""A run: a config checked, then systems x units driven into a run folder (the flow: ARCHITECTURE.md).

- ``schema``: the config's schema (:class:`RunConfig`), frozen pydantic models.
- ``config``: YAML -> a validated :class:`RunConfig`; ``--set`` overrides; shipped configs by name.
- ``config_errors``: a mistake's key path and the closest valid keys.
- ``validate``: the whole config checked against the registries before any work.
- ``preflight``: one tiny request to every configured LLM endpoint before any unit.
- ``runner``: units x systems of one benchmark, resumable, with workers.
- ``units``: the unit loop a run and a rejudge share: units computed on threads, written one by one,
  the folder closed with its rows, summary and final status.
- ``folder``: the run folder: header, one file per finished unit, ``summary.json``; read back by
  ``load_run``.
- ``provenance``: the code that made a run; a resume by other code is refused.
- ``stopping``: Ctrl-C and SIGTERM: a clean ``interrupted`` stop.

Studies of several runs (seeds, ablations) read runs back into reports, so they sit above this package
and the report, in ``memsuite.eval.study``.
"""
