"""LoCoMo (Maharana et al., ACL 2024; snap-research/LoCoMo): loader, protocol, judges, scoring, report."""

from memsuite.eval.definition import BenchmarkDefinition
from memsuite.eval.registry import benchmark


@benchmark("locomo")
def locomo() -> BenchmarkDefinition:
    """LoCoMo: question answering over very long two-person conversations (ACL 2024)"""
    from memsuite.eval.benchmarks.locomo import answer_files, catalogue, judges, rejudge, report
    from memsuite.eval.benchmarks.locomo.protocol import LocomoBenchmark

    return BenchmarkDefinition(
        protocol=LocomoBenchmark,
        judges=judges.JUDGES,
        report=report.render_locomo,
        outcomes=report.OUTCOMES,
        rejudge=rejudge.locomo_questions,
        answer_formats=answer_files.FORMATS,
        data=catalogue.DATA,
        catalogue=catalogue.CATALOGUE,
    )
