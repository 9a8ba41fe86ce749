"""LoCoMo (Maharana et al., ACL 2024; snap-research/LoCoMo): loader, protocol, judges, scoring, report."""

from memsuite.eval.spec import BenchmarkSpec, DataOption

SPEC = BenchmarkSpec(
    name="locomo",
    description="LoCoMo: question answering over very long two-person conversations (ACL 2024)",
    factory="memsuite.eval.benchmarks.locomo.protocol:LocomoBenchmark",
    judges="memsuite.eval.benchmarks.locomo.judges",
    judge_needs={
        "evidence": ("evidence",),
        "rule": ("answer",),
        "rule_official": ("answer",),
        "f1": ("answer",),
        "llm": ("answer", "llm"),
    },
    report="memsuite.eval.benchmarks.locomo.report:render_locomo",
    outcomes="memsuite.eval.benchmarks.locomo.report:OUTCOMES",
    rejudge="memsuite.eval.benchmarks.locomo.rejudge:locomo_questions",
    data=DataOption("data", "locomo", "locomo/locomo.dev.json"),
    configs=("locomo_quick", "locomo_main"),
)
