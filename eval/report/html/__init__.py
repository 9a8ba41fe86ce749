"""A report as a web page: ``index.html`` beside ``report.md``, opening from ``file://`` with no server
and no network.

The page has four views: the overview (the runs and what stands behind them, each section's tables,
sortable and with their intervals drawn, and its plots drawn interactively), the question browser
(every row of every run, filtered by run, system, task / category, verdict per judge, failure stage,
judge disagreement and free text; a question opens to its text, gold, answer, retrieved context with
evidence marked, verdicts with reasons, failure stage, latency and tokens), the paired view (two
systems, the questions one passes and the other fails) and the judge view (agreement between judges).

Modules: :mod:`.questions` (rows as page data), :mod:`.charts` (figures as chart specs),
:mod:`.overview` (tables and sections as the template reads them), :mod:`.page` (writing the folder).
The template is ``templates/index.html.j2``; the scripts, styles and libraries are under ``static/``.

Libraries (``static/vendor/``, each with its licence; none is fetched at run time): Chart.js 4 (MIT;
the most used canvas chart library, maintained, one 210 KB file with no dependency), its error-bars
plugin by the maintainer of the Chart.js box-plot and graph plugins (MIT, 12 KB: bars and lines with
intervals) and sortable-tablesort (Unlicense, 2 KB: sorts any ``table.sortable`` by its ``data-sort``
keys).
"""

from memsuite.eval.report.html.page import write_page

__all__ = ["write_page"]
