"""WMB-100K v2.1: the benchmark's declaration (records, loader, protocol, judges, scores, calibration and
report in the package's modules; WMB-100K v2.1 README)."""

from memsuite.eval.definition import BenchmarkDefinition, Command
from memsuite.eval.registry import benchmark


@benchmark("wmb")
def wmb() -> BenchmarkDefinition:
    """WMB-100K v2.1: situational retrieval over ~105K turns, with false-memory probes"""
    from memsuite.eval.benchmarks.wmb import catalogue, commands, judges, report, scoring
    from memsuite.eval.benchmarks.wmb.protocol import WMBBenchmark

    calibrate = Command(
        help="choose WMB-100K abstention cutoffs on a held-out split of a run",
        add_arguments=commands.add_calibrate_arguments,
        run=commands.calibrate,
    )
    return BenchmarkDefinition(
        protocol=WMBBenchmark,
        judges=judges.JUDGES,
        scores_layout=scoring.WMB_LAYOUT,
        report=report.render_wmb,
        outcomes=report.OUTCOMES,
        commands={"calibrate": calibrate},
        data=catalogue.DATA,
        catalogue=catalogue.CATALOGUE,
    )
