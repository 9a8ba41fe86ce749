"""LifeBench (2025; 1754955896/LifeBench): a year of one person's phone -- messages, calls, calendar,
notes, photos, notifications, assistant chats -- asked about at points in time, with questions citing
the records they need; loader, time and evidence rules, protocol, judges and report."""

from memsuite.eval.definition import BenchmarkDefinition
from memsuite.eval.registry import benchmark


@benchmark("lifebench")
def lifebench() -> BenchmarkDefinition:
    """LifeBench: a year of a person's phone records, questions asked in time, evidence recall per record"""
    from memsuite.eval.benchmarks.lifebench import catalogue, judges, report, scoring
    from memsuite.eval.benchmarks.lifebench.protocol import LifebenchBenchmark

    return BenchmarkDefinition(
        protocol=LifebenchBenchmark,
        judges=judges.JUDGES,
        scores_layout=scoring.LIFEBENCH_LAYOUT,
        report=report.render,
        outcomes=report.OUTCOMES,
        data=catalogue.DATA,
        catalogue=catalogue.CATALOGUE,
    )
