"""The benchmarks' real data: what exists, where it lies, which copy a benchmark reads, how it is streamed.

- ``catalogue``: the catalogue of released data, gathered from the benchmarks' definitions.
- ``cache``: where catalogue files lie, fetched and verified, and the lock file of their hashes.
- ``shared``: which data a benchmark reads (an option, the shared development copy, else the catalogue).
- ``json_stream``: a released JSON array read record by record, in bounded memory.
"""
