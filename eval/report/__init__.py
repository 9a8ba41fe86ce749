"""Reports from run folders: each benchmark's paper tables (Markdown and CSV) and plots (PNG).

A report reads only run folders (``run.json``, ``summary.json``, ``rows.jsonl``, ``units.jsonl``):
never a memory system, a model or a dataset, so a copied folder renders the same report. Tables are
plain data (:class:`Table`) rendered by :func:`table_markdown` and :func:`table_csv`; figures are
deferred calls into :mod:`eval.plots`.

Every report labels what produced its numbers: the runs table names the answer LLM, the internal
LLM, the judges and the data source (generated or official) of each run, each score table names its
judge, and published numbers sit beside ours with the paper's own setup in the notes.

Each benchmark contributes one renderer, in its own package (``eval/benchmarks/<name>/report.py``),
registered by name with :func:`register_renderer`: a function ``(runs, options) -> Section`` over the
runs of that benchmark. A benchmark without one gets :func:`render_generic` (its summary's numbers,
flattened). ``options.sweep`` is set for an ablation (:mod:`eval.ablation`): the runs are its variants
in sweep order, and renderers add sweep curves.

Cost and usage go in every section: LLM calls, tokens, cost under a :class:`PriceTable` (tokens x
the price of the model named in the run header's ``answer_llm`` / ``internal_llm`` identity), and
ingest / query wall time from each system's usage in ``summary.json``.

Every rate says what it left out: a cell whose rows include failed LLM calls shows how many
("0.50 (2 left out)"), and a cell whose questions were asked of a memory holding at most k items is
marked (the context was the whole memory); :mod:`.caveats` has the shared marks and notes.

Modules: :mod:`.runs` (loading), :mod:`.model` (tables, figures, sections, the renderer registry),
:mod:`.usage` (usage and cost), :mod:`.layout` (helpers for renderers: run column, stage tables),
:mod:`.caveats` (left-out and whole-memory marks),
:mod:`.document` (building and writing).
"""

from eval.report.caveats import (
    LEFT_OUT_NOTE,
    WHOLE_MEMORY_MARK,
    count_text,
    left_out_mark,
    left_out_note,
    whole_memory_counts,
    whole_memory_mark,
    whole_memory_note,
    whole_memory_text,
)
from eval.report.document import (
    build_report,
    format_cell,
    render_generic,
    report_markdown,
    runs_table,
    table_csv,
    table_markdown,
    write_report,
)
from eval.report.layout import (
    has_number,
    ordered_systems,
    run_cell,
    run_column,
    series_name,
    slug,
    stage_figures,
    stage_table,
)
from eval.report.model import (
    NA,
    Cell,
    Figure,
    Renderer,
    Report,
    ReportOptions,
    Section,
    Sweep,
    Table,
    register_renderer,
    renderer_for,
)
from eval.report.runs import (
    RunInfo,
    data_source,
    internal_llm_label,
    judges_used,
    llm_label,
    load_runs,
)
from eval.report.usage import (
    USAGE_COLUMNS,
    USAGE_NOTES,
    USAGE_TABLE_COLUMNS,
    UsageSummary,
    run_cost,
    usage_record,
    usage_summary,
    usage_table,
)

__all__ = [
    "LEFT_OUT_NOTE",
    "NA",
    "USAGE_COLUMNS",
    "USAGE_NOTES",
    "USAGE_TABLE_COLUMNS",
    "WHOLE_MEMORY_MARK",
    "Cell",
    "Figure",
    "Renderer",
    "Report",
    "ReportOptions",
    "RunInfo",
    "Section",
    "Sweep",
    "Table",
    "UsageSummary",
    "build_report",
    "count_text",
    "data_source",
    "format_cell",
    "has_number",
    "internal_llm_label",
    "judges_used",
    "left_out_mark",
    "left_out_note",
    "llm_label",
    "load_runs",
    "ordered_systems",
    "register_renderer",
    "render_generic",
    "renderer_for",
    "report_markdown",
    "run_cell",
    "run_column",
    "run_cost",
    "runs_table",
    "series_name",
    "slug",
    "stage_figures",
    "stage_table",
    "table_csv",
    "table_markdown",
    "usage_record",
    "usage_summary",
    "usage_table",
    "whole_memory_counts",
    "whole_memory_mark",
    "whole_memory_note",
    "whole_memory_text",
    "write_report",
]
