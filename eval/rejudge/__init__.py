"""``memsuite rejudge``: judge stored answers again, with no memory system and no answer model called.

- :mod:`.formats` -- the registered readers of answer files (a memsuite run folder, LongMemEval's
  hypothesis / ``evaluate_qa`` JSONL, Zep's and mem0's LoCoMo outputs): each gives
  :class:`~.formats.SourceAnswer` records;
- :mod:`.questions` -- each benchmark's questions as rejudging needs them (registered per benchmark),
  and the matching of answers to them, by id or by question text and category;
- :mod:`.command` -- the whole step: read, match, judge, write an ordinary run folder.
"""
