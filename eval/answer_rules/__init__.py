"""LLM-free answer rules shared by the LongMemEval and LoCoMo ``rule`` judges.

- :mod:`.lists` -- the word lists (data: ``data/answer_rules.json``, documented there);
- :mod:`.dates` -- dates in any format as (year, month, day) and when two name the same day or period;
- :mod:`.text` -- normalisation and the content elements of a text (words, numbers, dates), and the
  containment of a gold answer's elements in a response;
- :mod:`.responses` -- the final stated answer of a chain-of-thought response, and refusals;
- :mod:`.verdict` -- the verdict dict of a ``rule`` judge (undecided marked).
"""
