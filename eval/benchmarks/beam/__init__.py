"""BEAM (ICLR 2026, "Beyond a Million Tokens"): conversations of 128K to 10M tokens, probing questions
over ten memory abilities, and evidence retrieval scored from ``source_chat_ids`` with no LLM."""

from memsuite.eval.spec import BenchmarkSpec, DataOption

SPEC = BenchmarkSpec(
    name="beam",
    description="BEAM: 128K-10M-token conversations, ten memory abilities, evidence retrieval per ability",
    factory="memsuite.eval.benchmarks.beam.protocol:BeamBenchmark",
    judges="memsuite.eval.benchmarks.beam.judges",
    judge_needs={"retrieval": ("evidence",), "rule": ("answer",), "llm": ("answer", "llm")},
    report="memsuite.eval.benchmarks.beam.report:render",
    outcomes="memsuite.eval.benchmarks.beam.report:OUTCOMES",
    rejudge="memsuite.eval.benchmarks.beam.rejudge",
    data=DataOption("data", None, "beam", folder=True),
    configs=("beam_quick", "beam_128k", "beam_500k", "beam_1m"),
)
