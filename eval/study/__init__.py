"""Studies made of several runs: each one runs a config more than once and reads the runs back into one
table or report, so it stands above the runner (``run``), the report (``report``) and the analysis
(``analysis``).

- ``seeds``: one config over several seeds, and the table across them.
- ``ablation``: one swept key, one run per value, one combined report.
"""
