"""REALTALK (Lee et al., 2025; danny911kr/REALTALK): 21 days of real messaging-app chat between people,
memory-probing questions citing the messages that answer them; loader, evidence rule, protocol,
judges, diagnostics and report."""

from memsuite.eval.spec import BenchmarkSpec, DataOption

SPEC = BenchmarkSpec(
    name="realtalk",
    description="REALTALK: 21-day real human chats, memory-probing questions, evidence recall per category",
    factory="memsuite.eval.benchmarks.realtalk.protocol:RealtalkBenchmark",
    judges="memsuite.eval.benchmarks.realtalk.judges",
    judge_needs={
        "retrieval": ("evidence",),
        "f1": ("answer",),
        "rule": ("answer",),
        "llm": ("answer", "llm"),
    },
    report="memsuite.eval.benchmarks.realtalk.report:render",
    outcomes="memsuite.eval.benchmarks.realtalk.report:OUTCOMES",
    rejudge="memsuite.eval.benchmarks.realtalk.rejudge:realtalk_questions",
    data=DataOption("data", "realtalk", "realtalk", folder=True),
    configs=("realtalk_quick", "realtalk"),
)
