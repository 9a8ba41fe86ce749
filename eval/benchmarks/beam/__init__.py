"""BEAM (ICLR 2026, "Beyond a Million Tokens"): conversations of 128K to 10M tokens, probing questions
over ten memory abilities, and evidence retrieval scored from ``source_chat_ids`` with no LLM."""

from memsuite.eval.definition import BenchmarkDefinition
from memsuite.eval.registry import benchmark


@benchmark("beam")
def beam() -> BenchmarkDefinition:
    """BEAM: 128K-10M-token conversations, ten memory abilities, evidence retrieval per ability"""
    from memsuite.eval.benchmarks.beam import catalogue, judges, rejudge, report, scoring
    from memsuite.eval.benchmarks.beam.protocol import BeamBenchmark

    return BenchmarkDefinition(
        protocol=BeamBenchmark,
        judges=judges.JUDGES,
        scores_layout=scoring.BEAM_LAYOUT,
        report=report.render,
        outcomes=report.OUTCOMES,
        rejudge=rejudge.beam_questions,
        data=catalogue.DATA,
        catalogue=catalogue.CATALOGUE,
    )
