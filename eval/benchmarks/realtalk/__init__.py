"""REALTALK (Lee et al., 2025; danny911kr/REALTALK): 21 days of real messaging-app chat between people,
memory-probing questions citing the messages that answer them; loader, evidence rule, protocol,
judges, diagnostics and report."""

from memsuite.eval.definition import BenchmarkDefinition
from memsuite.eval.registry import benchmark


@benchmark("realtalk")
def realtalk() -> BenchmarkDefinition:
    """REALTALK: 21-day real human chats, memory-probing questions, evidence recall per category"""
    from memsuite.eval.benchmarks.realtalk import catalogue, judges, rejudge, report
    from memsuite.eval.benchmarks.realtalk.protocol import RealtalkBenchmark

    return BenchmarkDefinition(
        protocol=RealtalkBenchmark,
        judges=judges.JUDGES,
        report=report.render,
        beside=report.beside_locomo,
        outcomes=report.OUTCOMES,
        rejudge=rejudge.realtalk_questions,
        data=catalogue.DATA,
        catalogue=catalogue.CATALOGUE,
    )
