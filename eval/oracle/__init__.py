"""The oracle LLM endpoint: an OpenAI-compatible loopback server that answers each library's and each
native paradigm's real prompts from a unit's gold, so the LLM half runs end to end offline and reports
ceilings, never model results.

- ``run``: the endpoint in a run (``internal_llm: oracle`` / ``answer_llm: oracle``) and its checks.
- ``serve``: ``memsuite llm oracle CONFIG``, the endpoint on its own.
- ``server``: the HTTP server: a request to its prompt kind, the kind's reply, the served-call log.
- ``kinds``: what a prompt kind is (markers, pins, reply) and the start-up check of its pins.
- ``prompts``: every prompt kind, one module per system module that calls an LLM.
- ``chunks``: finding a prompt's session and facts in a unit's gold (the native paradigms' kinds).
- ``gold``: what the endpoint knows of a unit (its sessions' gold facts, its questions' gold answers).
"""
