"""memsuite: reference memory systems for LLM agents and one evaluation driver.

The public surface, importable from the top::

    import memsuite

    memory = memsuite.get_system("bm25")                      # any registered memory system
    config = memsuite.load_config("configs/meme_quick.yaml")  # a path to a run config
    folder = memsuite.run(config, out_dir="runs/quick")       # resumable; rows in folder.rows()
    report = memsuite.build_report(memsuite.load_runs(["runs/quick"]))

Everything else lives in the subpackages and is internal unless their docs say otherwise:
``memsuite.memory_systems`` (the contract, records, registry, embedder, LLM layer),
``memsuite.baselines`` (the reference systems), ``memsuite.eval`` (the driver and the benchmarks) and
``memsuite.configs`` (the shipped run configs). Names resolve on first use, so ``import memsuite``
loads no model, no benchmark and no third-party library.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from memsuite.distribution import DISTRIBUTION

#: Public name -> module that defines it.
_PUBLIC = {
    "MemorySystem": "memsuite.memory_systems.base",
    "get_system": "memsuite.memory_systems.registry",
    "register": "memsuite.memory_systems.registry",
    "system_names": "memsuite.memory_systems.registry",
    "Document": "memsuite.memory_systems.records",
    "Hit": "memsuite.memory_systems.records",
    "IngestReport": "memsuite.memory_systems.records",
    "MemoryRecord": "memsuite.memory_systems.records",
    "RetrievalResult": "memsuite.memory_systems.records",
    "Session": "memsuite.memory_systems.records",
    "Turn": "memsuite.memory_systems.records",
    "Usage": "memsuite.memory_systems.records",
    "MemsuiteError": "memsuite.memory_systems.errors",
    "Embedder": "memsuite.memory_systems.embedder",
    "load_config": "memsuite.eval.run.config",
    "run": "memsuite.eval.run.runner",
    "load_run": "memsuite.runs",
    "load_runs": "memsuite.runs",
    "build_report": "memsuite.eval.report.document",
    "write_report": "memsuite.eval.report.document",
}

__all__ = [
    "DISTRIBUTION",
    "Document",
    "Embedder",
    "Hit",
    "IngestReport",
    "MemoryRecord",
    "MemorySystem",
    "MemsuiteError",
    "RetrievalResult",
    "Session",
    "Turn",
    "Usage",
    "build_report",
    "get_system",
    "load_config",
    "load_run",
    "load_runs",
    "register",
    "run",
    "system_names",
    "write_report",
]

if TYPE_CHECKING:
    from memsuite.eval.report.document import build_report, write_report
    from memsuite.eval.run.config import load_config
    from memsuite.eval.run.runner import run
    from memsuite.memory_systems.base import MemorySystem
    from memsuite.memory_systems.embedder import Embedder
    from memsuite.memory_systems.errors import MemsuiteError
    from memsuite.memory_systems.records import (
        Document,
        Hit,
        IngestReport,
        MemoryRecord,
        RetrievalResult,
        Session,
        Turn,
        Usage,
    )
    from memsuite.memory_systems.registry import get_system, register, system_names
    from memsuite.runs import load_run, load_runs


def __getattr__(name: str) -> Any:
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version(DISTRIBUTION)
        except PackageNotFoundError:
            return "0+unknown"
    if name not in _PUBLIC:
        raise AttributeError(f"module 'memsuite' has no attribute {name!r}")
    value = getattr(importlib.import_module(_PUBLIC[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
