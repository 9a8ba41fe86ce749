"""A third-party benchmark as a user would write one: a dozen questions, its own judge and report.

Installed in tests through the ``memsuite.benchmarks`` entry point (tests/eval/test_eval_registry.py);
nothing outside this package names it.
"""

from memsuite.eval.spec import BenchmarkSpec

SPEC = BenchmarkSpec(
    name="toy",
    description="capital cities: one fact per unit, asked back",
    factory="toy_bench.protocol:ToyBenchmark",
    judges="toy_bench.judges",
    judge_needs={"found": (), "exact": ("answer",)},
    report="toy_bench.report:render",
    outcomes="toy_bench.report:OUTCOMES",
    rejudge="toy_bench.rejudge:questions",
)
