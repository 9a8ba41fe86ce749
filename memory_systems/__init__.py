"""The memory-system contract and the shared parts every system uses.

- ``base``: the contract (:class:`MemorySystem`): store / ``_search`` / update / delete, retrieve,
  snapshot, save / load; ``search`` and ``retrieve`` check their input once.
- ``records``: the plain records that cross module boundaries (``Hit``, ``Session``, ...).
- ``registry``: system names -> factories (decorators, built-ins, entry points ``memsuite.systems``).
- ``store``: the validated, namespaced, persistable record store most systems keep.
- ``errors``: the errors of user mistakes (``MemsuiteError`` and its kinds).
- ``persist``: atomic writes of a saved store.
- ``tokens``, ``chunking``: cl100k token counts and the MEME reference chunker.
- ``embedder``: offline sentence embeddings, batched and cached; ``vector_index``: the faiss index.
- ``llm``: the LLM layer (one client for any OpenAI-compatible endpoint, accounted and cached).
- ``llm_server``: the embedded SmolLM2-135M model served on a loopback port.
- ``lifeline``: child processes (the model server, a library's worker) that die with their parent.
- ``ratelimit``: per-endpoint concurrency, request and token limits.
- ``progress``: the one progress bar.
"""

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
