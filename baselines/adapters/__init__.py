"""Adapters over third-party memory libraries (docs/systems.md).

One module per library, each registered like a built-in system: ``mem0ai`` (mem0ai), ``graphiti``
(graphiti-core on embedded Kuzu) and ``langchain_faiss`` (LangChain's FAISS vector store). A module
imports its library only when a system is built, so the registry lists every adapter even where the
``adapters`` extra is not installed; building one then raises an error naming the extra.
"""
