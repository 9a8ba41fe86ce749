"""A third-party benchmark as a user would write one: a dozen questions, its own judges and report.

Installed in tests through the ``memsuite.benchmarks`` entry point (tests/eval/test_eval_registry.py);
nothing outside this package names it.
"""

from memsuite.eval.definition import BenchmarkDefinition, Judge
from memsuite.eval.registry import benchmark


@benchmark("toy")
def toy() -> BenchmarkDefinition:
    """capital cities: one fact per unit, asked back"""
    from toy_bench import rejudge, report
    from toy_bench.protocol import ToyBenchmark

    found = Judge(lambda inp: {"correct": inp.case.lower() in inp.context.lower()}, needs=())
    exact = Judge(lambda inp: {"correct": inp.answer.text.strip() == inp.case}, needs=("answer",))
    return BenchmarkDefinition(
        protocol=ToyBenchmark,
        judges={"found": found, "exact": exact},
        report=report.render,
        outcomes=report.OUTCOMES,
        rejudge=rejudge.questions,
        answer_formats={"toy_answers": rejudge.ANSWERS},
    )
