"""The reference memory systems, one module per memory paradigm (docs/systems.md).

- ``bm25``: BM25 over the benchmark's documents with bm25s (MEME paper's BM25).
- ``dense``: faiss over sentence embeddings (MEME paper's dense).
- ``llm_extraction``: mem0's original (v1) algorithm, natively.
- ``temporal_kg``: a bi-temporal knowledge graph on networkx, with dependency reasoning.
- ``md_flat``: one markdown file of dated memories kept by an LLM agent.
- ``karpathy_wiki``: entity and concept pages kept by an LLM agent.
- ``adapters``: third-party libraries (mem0ai, graphiti-core, LangChain FAISS) behind the contract.
- ``_llm_paradigm``, ``_llm_support``: what the four LLM paradigms share (LLM, budgets, oracle modes,
  action loop).
- ``gold_facts``: a session's gold facts, typed and worded, for the oracle modes and the oracle endpoint.
- ``_temporal_extract``, ``_temporal_graph``: the temporal graph's prompts and model.
- ``_wiki_tools``: what the markdown-file agents share.
"""
