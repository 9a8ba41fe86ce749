"""The ``memsuite`` command line: a thin layer over the public functions, one module per command family.

- ``main``: the parser, the dispatch and the smaller commands (``memsuite``'s entry point).
- ``compare``: ``memsuite compare``, two systems question by question.
- ``data``: ``memsuite data``, the catalogue's files fetched, verified and cached.
- ``seeds``: ``memsuite run CONFIG --seeds ...``, a run per seed and the table across them.
- ``show``: ``memsuite show``, a run's questions printed or exported as CSV.
"""
