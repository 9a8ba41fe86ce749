"""MEME (Multi-entity & Evolving Memory Evaluation): the benchmark's declaration.

Its records are in :mod:`.schema`, the loader (``load_episodes`` / ``save_episodes``) in :mod:`.loader`,
scoring in :mod:`.scoring`; this module imports none of them until the definition is needed.
"""

from memsuite.eval.definition import BenchmarkDefinition, Command
from memsuite.eval.registry import benchmark


@benchmark("meme")
def meme() -> BenchmarkDefinition:
    """MEME: six tasks asked before and after an upstream change (generated or released episodes)"""
    from memsuite.eval.benchmarks.meme import catalogue, commands, demo, judges, oracle_gold, report
    from memsuite.eval.benchmarks.meme.protocol import MemeBenchmark

    generate = Command(
        help="MEME episodes in the released JSON schema",
        add_arguments=commands.add_generate_arguments,
        run=commands.generate,
    )
    return BenchmarkDefinition(
        protocol=MemeBenchmark,
        judges=judges.JUDGES,
        report=report.render_meme,
        outcomes=report.OUTCOMES,
        commands={"generate": generate},
        oracle_gold=oracle_gold.unit_gold,
        demo=demo.demo,
        data=catalogue.DATA,
        catalogue=catalogue.CATALOGUE,
    )
