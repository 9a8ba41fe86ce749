"""The oracle LLM endpoint: an OpenAI-compatible loopback server that answers each library's and each
native paradigm's real prompts from a unit's gold, so the LLM half runs end to end offline and reports
ceilings, never model results (:mod:`.run` wires it into a run; :mod:`.server` serves; the ``*_kinds``
modules recognise each prompt kind at its pinned library version; :mod:`.gold` is what it knows)."""
