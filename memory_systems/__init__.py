"""The memory-system contract and the shared parts every system uses."""

from memsuite.memory_systems.base import CONTEXT_SEPARATOR, NO_MEMORY, MemorySystem
from memsuite.memory_systems.embedder import Embedder
from memsuite.memory_systems.errors import (
    ConfigError,
    DatasetError,
    InvalidInputError,
    MemsuiteError,
    UnknownMemoryError,
)
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

__all__ = [
    "CONTEXT_SEPARATOR",
    "NO_MEMORY",
    "ConfigError",
    "DatasetError",
    "Document",
    "Embedder",
    "Hit",
    "IngestReport",
    "InvalidInputError",
    "MemoryRecord",
    "MemorySystem",
    "MemsuiteError",
    "RetrievalResult",
    "Session",
    "Turn",
    "UnknownMemoryError",
    "Usage",
    "get_system",
    "register",
    "system_names",
]
