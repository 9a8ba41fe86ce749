"""Reading runs: numbers from a run folder's rows, never from a system or a model.

- ``metrics``, ``stats``: rates and their intervals, paired differences, McNemar.
- ``diagnostics``: failure stages (encoded, maintained, retrieved, answered), the shared part.
- ``compare``: two systems question by question, with paired intervals.
- ``show``: a run's questions as records (``records(load_run(...), outcomes)``).
- ``leaderboard``: one headline per benchmark across runs.
- ``row_diff``: do two runs hold the same rows, timings aside (``perf/compare_rows.py``).
- ``plots``: PNG plots, plain data in, a written file out.
"""
