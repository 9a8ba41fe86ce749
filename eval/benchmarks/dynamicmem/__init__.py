"""DynamicMem (arXiv 2606.22877): 15 months of multi-app activity per user, asked at quarterly checkpoints.

Records (:mod:`.schema`), the loader of the released two-file layout (:mod:`.loader`), the checkpoint cut
rule and gold replay (:mod:`.checkpoints`), the runner protocol (:mod:`.protocol`), the Core + Detail field
judges (:mod:`.judges`) and the scores (:mod:`.scoring`). Synthetic users in the same layout come from
:mod:`memsuite.eval.benchmarks.dynamicmem.generator`.
"""

from memsuite.eval.definition import BenchmarkDefinition, Command
from memsuite.eval.registry import benchmark


@benchmark("dynamicmem")
def dynamicmem() -> BenchmarkDefinition:
    """DynamicMem: 15 months of multi-app activity per user, asked at quarterly checkpoints C1..C5"""
    from memsuite.eval.benchmarks.dynamicmem import commands, judges, oracle_gold, report, scoring
    from memsuite.eval.benchmarks.dynamicmem.protocol import DynamicMemBenchmark

    generate = Command(
        help="DynamicMem users in the released layout (one folder per user, two JSON files)",
        add_arguments=commands.add_generate_arguments,
        run=commands.generate,
    )
    return BenchmarkDefinition(
        protocol=DynamicMemBenchmark,
        judges=judges.JUDGES,
        scores_layout=scoring.DYNAMICMEM_LAYOUT,
        report=report.render_dynamicmem,
        outcomes=report.OUTCOMES,
        commands={"generate": generate},
        oracle_gold=oracle_gold.unit_gold,
    )
