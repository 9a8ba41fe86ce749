"""One config over several seeds: a run per seed (``<out>/seed-<s>``) and a table of each system's
headline metric per seed with the mean and the spread across seeds.

The seed is the run's top-level ``seed`` (:func:`memsuite.eval.registry.seeded_options`: a generated
benchmark's data seed), so each seed is a fresh draw of generated data; a benchmark on released data
gets the same questions under every seed and is refused.
"""

from __future__ import annotations

import inspect
import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memsuite.eval.analysis.compare import headline
from memsuite.eval.registry import benchmark_factory
from memsuite.eval.report.document import definitions_of
from memsuite.eval.report.model import Table
from memsuite.eval.run.config import RunConfig
from memsuite.eval.run.folder import RunFolder
from memsuite.eval.run.runner import run
from memsuite.memory_systems.errors import ConfigError


def seed_config(config: RunConfig, seed: int) -> RunConfig:
    """``config`` with ``seed`` as its run seed (and its data seed, replacing ``benchmark_options.seed``).

    Raises:
        ConfigError: The benchmark does not generate its data (it takes no ``seed`` option).
    """
    if "seed" not in inspect.signature(benchmark_factory(config.benchmark)).parameters:
        raise ConfigError(f"--seeds: {config.benchmark!r} does not generate its data; a seed changes nothing")
    options = {**config.benchmark_options, "seed": seed}
    name = f"{config.name}-seed-{seed}"
    return config.model_copy(update={"seed": seed, "benchmark_options": options, "name": name})


def run_seeds(config: RunConfig, seeds: Sequence[int], out_dir: Path, **run_options: Any) -> list[Path]:
    """Run ``config`` once per seed into ``out_dir/seed-<s>`` (each resumable); returns the folders."""

    if len(set(seeds)) != len(seeds):
        raise ConfigError(f"--seeds: repeated seed in {list(seeds)}")
    configs = [seed_config(config, seed) for seed in seeds]  # every seed checked before any runs
    return [run(c, out_dir=out_dir / f"seed-{c.seed}", **run_options).path for c in configs]


def seeds_table(runs: Sequence[RunFolder], seeds: Sequence[int]) -> Table:
    """Per system: the headline metric under each seed, their mean, standard deviation and range."""
    definitions = definitions_of(runs)
    specs = {name: found.outcomes for name, found in definitions.items()}
    systems = list(dict.fromkeys(s for run in runs for s in run.systems))
    records, names = [], set()
    for system in systems:
        found = [
            headline(run, system, spec=specs.get(run.benchmark)) if system in run.systems else None
            for run in runs
        ]
        values = [h.interval.value for h in found if h is not None]
        names |= {f"{h.name} [{h.judge}]" for h in found if h is not None}
        records.append(
            {
                "system": system,
                **{f"seed {s}": (h.interval.value if h else None) for s, h in zip(seeds, found, strict=True)},
                "mean": statistics.fmean(values) if values else None,
                "sd": statistics.stdev(values) if len(values) > 1 else None,
                "min": min(values, default=None),
                "max": max(values, default=None),
                "seeds": len(values),
            }
        )
    columns = ("system", *(f"seed {s}" for s in seeds), "mean", "sd", "min", "max", "seeds")
    metric = ", ".join(sorted(names)) or "headline"
    notes = (
        f"{runs[0].benchmark if runs else '?'}: {metric} of each system under each seed (a fresh draw of "
        "the generated data); sd: sample standard deviation across seeds -- the spread the data draw "
        "alone causes, beside each run's own interval over its questions (its report).",
    )
    return Table.from_records("seeds", f"Headline across seeds: {metric}", columns, records, notes)
