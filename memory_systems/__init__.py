"""The memory-system contract and the shared parts every system uses."""

from memory_systems.base import CONTEXT_SEPARATOR, NO_MEMORY, MemorySystem
from memory_systems.embedder import Embedder
from memory_systems.errors import (
    ConfigError,
    DatasetError,
    InvalidInputError,
    MemsuiteError,
    UnknownMemoryError,
)
from memory_systems.records import Hit, IngestReport, MemoryRecord, Session, Turn, Usage
from memory_systems.registry import get_system, register, system_names

__all__ = [
    "CONTEXT_SEPARATOR",
    "NO_MEMORY",
    "ConfigError",
    "DatasetError",
    "Embedder",
    "Hit",
    "IngestReport",
    "InvalidInputError",
    "MemoryRecord",
    "MemorySystem",
    "MemsuiteError",
    "Session",
    "Turn",
    "UnknownMemoryError",
    "Usage",
    "get_system",
    "register",
    "system_names",
]
