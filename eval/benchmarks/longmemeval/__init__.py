"""LongMemEval (ICLR 2025): long-term chat memory, one haystack of sessions per question."""

from memsuite.eval.definition import BenchmarkDefinition
from memsuite.eval.registry import benchmark


@benchmark("longmemeval")
def longmemeval() -> BenchmarkDefinition:
    """LongMemEval: long-term chat memory, one haystack of sessions per question (ICLR 2025)"""
    # reference registers flat_bm25, the official lexical baseline, a system of this benchmark alone.
    from memsuite.eval.benchmarks.longmemeval import (  # noqa: F401
        answer_files,
        catalogue,
        judges,
        reference,
        rejudge,
        report,
        scoring,
    )
    from memsuite.eval.benchmarks.longmemeval.protocol import LongMemEvalBenchmark

    return BenchmarkDefinition(
        protocol=LongMemEvalBenchmark,
        judges=judges.JUDGES,
        scores_layout=scoring.LONGMEMEVAL_LAYOUT,
        report=report.render_longmemeval,
        outcomes=report.OUTCOMES,
        rejudge=rejudge.longmemeval_questions,
        answer_formats=answer_files.FORMATS,
        data=catalogue.DATA,
        catalogue=catalogue.CATALOGUE,
    )
