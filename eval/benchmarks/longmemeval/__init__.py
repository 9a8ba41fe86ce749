"""LongMemEval (ICLR 2025): long-term chat memory, one haystack of sessions per question."""

from memsuite.eval.spec import BenchmarkSpec, DataOption

SPEC = BenchmarkSpec(
    name="longmemeval",
    description="LongMemEval: long-term chat memory, one haystack of sessions per question (ICLR 2025)",
    factory="memsuite.eval.benchmarks.longmemeval.protocol:LongMemEvalBenchmark",
    judges="memsuite.eval.benchmarks.longmemeval.judges",
    judge_needs={
        "retrieval": ("evidence",),
        "answer_in_context": (),
        "rule": ("answer",),
        "llm": ("answer", "llm"),
    },
    report="memsuite.eval.benchmarks.longmemeval.report:render_longmemeval",
    outcomes="memsuite.eval.benchmarks.longmemeval.report:OUTCOMES",
    rejudge="memsuite.eval.benchmarks.longmemeval.rejudge:longmemeval_questions",
    systems=("memsuite.eval.benchmarks.longmemeval.reference",),
    data=DataOption("data", "longmemeval_s", "longmemeval/longmemeval_s_cleaned.dev.json.gz"),
    configs=("longmemeval_quick", "longmemeval_s"),
)
