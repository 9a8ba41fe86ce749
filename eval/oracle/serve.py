"""``memsuite llm oracle CONFIG``: the oracle endpoint served on its own for a config's benchmark, for a
library or script outside a run (a run starts its own: :mod:`.run`)."""

from __future__ import annotations


def serve_config(path: str, *, port: int = 0, overrides: list[str] | None = None) -> int:
    """``memsuite llm oracle CONFIG``: serve a config's benchmark gold on a loopback port until Ctrl-C.

    A caller names its unit in the ``X-Memsuite-Account`` header (``<anything>@<unit id>``), as a run's
    clients do (``LLMConfig.send_account``).

    Raises:
        ConfigError: The config is invalid, its benchmark carries no gold, or an installed library is at a
            version the oracle does not recognise.
    """
    import signal
    import time

    from memsuite.eval.oracle.kinds import check_kinds
    from memsuite.eval.oracle.prompts import all_kinds
    from memsuite.eval.oracle.run import gold_source
    from memsuite.eval.oracle.server import ORACLE_MODEL, OracleServer
    from memsuite.eval.registry import defining, definition, get_benchmark, seeded_options
    from memsuite.eval.run.config import load_config

    config = load_config(path, overrides)
    reader = gold_source(definition(config.benchmark), lambda: defining("oracle_gold"))
    check_kinds(all_kinds())  # every installed library at the version its prompts are pinned to
    benchmark = get_benchmark(
        config.benchmark, **seeded_options(config.benchmark, config.benchmark_options, config.seed)
    )
    units = benchmark.units()

    def _stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, _stop)
    try:
        with OracleServer(port=port) as server:
            known = set(units)
            server.bind(lambda unit_id: reader(benchmark, unit_id) if unit_id in known else None)
            print(f"base_url: {server.base_url}", flush=True)
            print(f"model: {ORACLE_MODEL}", flush=True)
            print(
                f"{config.benchmark}: {len(units)} units (first {units[0]});"
                " send header X-Memsuite-Account: <system>@<unit>. Replies come from gold. Ctrl-C stops it.",
                flush=True,
            )
            while True:
                time.sleep(3600)
    except KeyboardInterrupt:
        pass
    return 0
